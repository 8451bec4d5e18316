-- The look before and after a shell command asks for the newest File Change
-- of the paths it found changed, and for the changes Foya's own tools made
-- since the last look: by path and by time, so that each look costs what it
-- asks for, not the session's whole history (issue 27).
CREATE INDEX file_changes_path ON file_changes(session_id, path, seq);
CREATE INDEX file_changes_created ON file_changes(session_id, created_at);
