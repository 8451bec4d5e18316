-- Sub-agents (issue 13 item 2): a child run started by a task call is a run
-- of the same session, linked to the run and the call that started it. Its
-- messages are its own history, kept apart from the session's (whose
-- positions the context compiler's references name); its events carry the
-- parent call's ID, so clients nest them under that call.
ALTER TABLE runs ADD COLUMN parent_run_id TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN parent_call_id TEXT NOT NULL DEFAULT '';
ALTER TABLE events ADD COLUMN parent_call_id TEXT NOT NULL DEFAULT '';

CREATE TABLE run_messages (
	run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	idx    INTEGER NOT NULL, -- 1-based position in the run's history
	role   TEXT NOT NULL,
	body   TEXT NOT NULL,    -- llm.Message as JSON
	PRIMARY KEY (run_id, idx)
) WITHOUT ROWID;
