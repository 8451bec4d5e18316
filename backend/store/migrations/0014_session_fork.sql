-- Forks (issue 29 item 2): a session started from another's history
-- records the session it came from and the prompt it was forked before
-- (1-based; 0 when it holds the whole history). No foreign key: a fork
-- outlives its parent, and then says it came from a deleted session.
ALTER TABLE sessions ADD COLUMN forked_from TEXT NOT NULL DEFAULT '';
ALTER TABLE sessions ADD COLUMN forked_at INTEGER NOT NULL DEFAULT 0;
CREATE INDEX sessions_forked_from ON sessions(forked_from) WHERE forked_from <> '';
