-- Review comments: what the user said about lines of a file change, for
-- the agent to act on. The lines are a range of the change's after side,
-- quoted as they were when the comment was made. seen_change is the
-- session's last change then: the changes after it came after the comment
-- (an agent's answer to it can only be among them). sent_at is 0 until
-- the comment went to the agent in run sent_run.
CREATE TABLE review_comments (
	id          TEXT PRIMARY KEY,
	session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
	change_id   TEXT NOT NULL,
	path        TEXT NOT NULL,
	start_line  INTEGER NOT NULL,
	end_line    INTEGER NOT NULL,
	quote       TEXT NOT NULL,
	body        TEXT NOT NULL,
	seen_change TEXT NOT NULL,
	created_at  INTEGER NOT NULL,
	updated_at  INTEGER NOT NULL,
	sent_at     INTEGER NOT NULL DEFAULT 0,
	sent_run    TEXT NOT NULL DEFAULT ''
);
CREATE INDEX review_comments_session ON review_comments(session_id, created_at);
