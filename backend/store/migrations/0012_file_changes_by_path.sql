-- The look before and after a shell command asks for the newest File Change
-- of the paths it found changed, and for the changes Foya's own tools (not
-- bash) made since the last look: by path, and by time over those changes
-- only, so that each look costs what it asks for, not the session's
-- history nor its recent commands (issue 27). The tool that made a change
-- gets a column of its own (it was only in the body's JSON), so that
-- neither the index nor its queries parse JSON.
ALTER TABLE file_changes ADD COLUMN tool TEXT NOT NULL DEFAULT '';
UPDATE file_changes SET tool = ifnull(json_extract(body, '$.tool'), '');
CREATE INDEX file_changes_path ON file_changes(session_id, path, seq);
CREATE INDEX file_changes_own ON file_changes(session_id, created_at) WHERE tool <> 'bash';
