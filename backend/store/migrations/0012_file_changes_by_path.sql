-- The look before and after a shell command asks for the newest File Change
-- of the paths it found changed, and for the changes Foya's own tools (not
-- bash) made since the last look: by path, and by time over those changes
-- only, so that each look costs what it asks for, not the session's
-- history nor its recent commands (issue 27). The partial index's WHERE is
-- the one Store.OwnChangesSince asks with.
CREATE INDEX file_changes_path ON file_changes(session_id, path, seq);
CREATE INDEX file_changes_own ON file_changes(session_id, created_at)
	WHERE ifnull(json_extract(body, '$.tool'), '') <> 'bash';
