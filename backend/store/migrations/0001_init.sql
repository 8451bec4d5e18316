-- Sessions, runs, steps, canonical history, events, tool calls, blobs,
-- artifacts and settings: the kernel's whole state.
CREATE TABLE settings (
	key   TEXT PRIMARY KEY,
	value TEXT NOT NULL
);

CREATE TABLE sessions (
	id            TEXT PRIMARY KEY,
	title         TEXT NOT NULL DEFAULT '',
	project_id    TEXT NOT NULL DEFAULT '',
	workdir       TEXT NOT NULL,
	approval_mode TEXT NOT NULL,
	provider      TEXT NOT NULL DEFAULT '',
	model         TEXT NOT NULL DEFAULT '',
	tools         TEXT,            -- JSON array; NULL allows every tool
	created_at    INTEGER NOT NULL, -- unix nanoseconds
	updated_at    INTEGER NOT NULL,
	last_seq      INTEGER NOT NULL DEFAULT 0,
	last_msg      INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE runs (
	id          TEXT PRIMARY KEY,
	session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
	status      TEXT NOT NULL,
	prompt      TEXT NOT NULL,
	error       TEXT NOT NULL DEFAULT '',
	steps       INTEGER NOT NULL DEFAULT 0,
	usage       TEXT NOT NULL DEFAULT '{}',
	owner       TEXT NOT NULL DEFAULT '',
	started_at  INTEGER NOT NULL,
	ended_at    INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX runs_session ON runs(session_id, started_at);
CREATE INDEX runs_running ON runs(status) WHERE status = 'running';

CREATE TABLE messages (
	session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
	idx        INTEGER NOT NULL,
	run_id     TEXT NOT NULL,
	role       TEXT NOT NULL,
	body       TEXT NOT NULL, -- llm.Message as JSON
	PRIMARY KEY (session_id, idx)
) WITHOUT ROWID;

CREATE TABLE events (
	session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
	seq        INTEGER NOT NULL,
	run_id     TEXT NOT NULL DEFAULT '',
	type       TEXT NOT NULL,
	time       INTEGER NOT NULL,
	data       TEXT,
	PRIMARY KEY (session_id, seq)
) WITHOUT ROWID;

CREATE TABLE tool_calls (
	session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
	run_id     TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	step       INTEGER NOT NULL,
	idx        INTEGER NOT NULL,
	id         TEXT NOT NULL,
	name       TEXT NOT NULL,
	arguments  TEXT NOT NULL DEFAULT '',
	state      TEXT NOT NULL,
	result     TEXT, -- llm.ToolResult as JSON once ended
	started_at INTEGER NOT NULL DEFAULT 0,
	ended_at   INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (run_id, step, idx)
) WITHOUT ROWID;
CREATE INDEX tool_calls_open ON tool_calls(state) WHERE state IN ('queued', 'running');

CREATE TABLE blobs (
	sha256 TEXT PRIMARY KEY,
	size   INTEGER NOT NULL,
	data   BLOB NOT NULL
);

CREATE TABLE artifacts (
	id         TEXT PRIMARY KEY,
	session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
	sha256     TEXT NOT NULL REFERENCES blobs(sha256),
	mime       TEXT NOT NULL,
	width      INTEGER NOT NULL DEFAULT 0,
	height     INTEGER NOT NULL DEFAULT 0,
	size       INTEGER NOT NULL,
	created_at INTEGER NOT NULL
);
CREATE INDEX artifacts_session ON artifacts(session_id);
