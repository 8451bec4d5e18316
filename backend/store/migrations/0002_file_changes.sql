-- File changes (spec F1): one row per change to one path, with blobs for
-- the contents before and after.
CREATE TABLE file_changes (
	id             TEXT PRIMARY KEY,
	session_id     TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
	run_id         TEXT NOT NULL DEFAULT '',
	call_id        TEXT NOT NULL DEFAULT '',
	seq            INTEGER NOT NULL, -- order of changes in the session
	path           TEXT NOT NULL,
	body           TEXT NOT NULL, -- llm.FileChange as JSON
	created_at     INTEGER NOT NULL
);
CREATE INDEX file_changes_session ON file_changes(session_id, seq);
CREATE INDEX file_changes_run ON file_changes(run_id, seq);
