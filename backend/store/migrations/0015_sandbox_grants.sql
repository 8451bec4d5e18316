-- What the user allowed a session's sandboxed commands beyond the workspace
-- (issue 29 item 4): a folder made writable (kind 'write', folder set) or
-- the network on (kind 'network'), for the session or, with once, for the
-- session's next command only (the row goes once a command started with it).
CREATE TABLE sandbox_grants (
	id         INTEGER PRIMARY KEY,
	session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
	kind       TEXT NOT NULL CHECK (kind IN ('write', 'network')),
	folder     TEXT NOT NULL DEFAULT '',
	once       INTEGER NOT NULL DEFAULT 0,
	created_at INTEGER NOT NULL,
	CHECK ((kind = 'write') = (folder <> ''))
);
CREATE UNIQUE INDEX sandbox_grants_one ON sandbox_grants (session_id, kind, folder, once);
