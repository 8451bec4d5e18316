-- Whether a session's title is the one the user gave it (at creation or
-- by renaming it), which Foya never replaces; a title Foya made (the
-- default, or the first prompt's line) is not. A session still called
-- "New session" has the default; any other title before this column was
-- given by the user or by foya exec from its prompt, and stays as it is.
ALTER TABLE sessions ADD COLUMN title_by_user INTEGER NOT NULL DEFAULT 0;
UPDATE sessions SET title_by_user = 1 WHERE title <> 'New session';
