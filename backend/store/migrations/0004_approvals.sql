-- Approval requests with their answers, and remembered session grants.
CREATE TABLE approvals (
	id          TEXT PRIMARY KEY,
	session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
	run_id      TEXT NOT NULL DEFAULT '',
	call_id     TEXT NOT NULL DEFAULT '',
	state       TEXT NOT NULL,
	request     TEXT NOT NULL,
	answer      TEXT,
	asked_at    INTEGER NOT NULL,
	answered_at INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX approvals_session ON approvals(session_id, asked_at);

CREATE TABLE grants (
	session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
	grant_json TEXT NOT NULL,
	created_at INTEGER NOT NULL,
	PRIMARY KEY (session_id, grant_json)
) WITHOUT ROWID;
