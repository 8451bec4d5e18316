-- The stale-read guard: what each session last saw of each file it read or
-- wrote, so that a session continued after a restart still refuses to
-- overwrite a file that changed since.
CREATE TABLE file_reads (
	session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
	path       TEXT NOT NULL,    -- resolved absolute path
	sha256     TEXT NOT NULL DEFAULT '', -- of the whole content; '' after a partial read
	size       INTEGER NOT NULL,
	mtime      INTEGER NOT NULL, -- unix nanoseconds
	read_at    INTEGER NOT NULL,
	outside    INTEGER NOT NULL DEFAULT 0, -- changed outside Foya since
	absent     INTEGER NOT NULL DEFAULT 0, -- the session knows nothing is there
	PRIMARY KEY (session_id, path)
) WITHOUT ROWID;
