-- Large tool-call arguments are stored once, as content-addressed blobs: the
-- call's row keeps an llm.ArgsRef (JSON) instead of a copy, and so does the
-- assistant message in its body.
ALTER TABLE tool_calls ADD COLUMN args_ref TEXT;

-- Large blobs are kept in chunks of at most 1 MiB (blobs.chunks > 0, data
-- empty), so that no statement hands SQLite a whole 100 MB value to copy.
ALTER TABLE blobs ADD COLUMN chunks INTEGER NOT NULL DEFAULT 0;
CREATE TABLE blob_chunks (
	sha256 TEXT NOT NULL REFERENCES blobs(sha256) ON DELETE CASCADE,
	n      INTEGER NOT NULL,
	data   BLOB NOT NULL,
	UNIQUE (sha256, n)
);
