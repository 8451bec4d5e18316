-- Background commands (issue 16 item 1): a row per command a bash call
-- started in the background, ended when its changes are captured. After
-- a crash, the rows left without an end name the commands that were alive
-- when their owner died, so recovery gives what differs between the saved
-- workspace index and the disk to them, whatever run they started in.
CREATE TABLE background_jobs (
	id         TEXT PRIMARY KEY,
	session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
	run_id     TEXT NOT NULL,
	call_id    TEXT NOT NULL,
	owner      TEXT NOT NULL, -- the kernel that started it (see runs.owner)
	started_at INTEGER NOT NULL,
	ended_at   INTEGER NOT NULL DEFAULT 0 -- 0 while it may be alive
);
CREATE INDEX background_jobs_alive ON background_jobs (ended_at) WHERE ended_at = 0;
