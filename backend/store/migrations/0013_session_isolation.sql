-- Sessions isolated from their folder (issue 29): the copy a session works
-- in, a git worktree on a branch of its own or a copied folder, kept in
-- Foya's data folder (docs/isolated-sessions.md). A session without a row
-- works in its folder. sessions.workdir is the copy, sessions.project_id
-- the folder it was made from. The row goes with its session; the copy on
-- disk is removed by the kernel (and, after a crash, by its recovery).
CREATE TABLE session_isolation (
	session_id   TEXT PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
	kind         TEXT NOT NULL,            -- worktree | copy
	dir          TEXT NOT NULL,            -- the copy's own folder in the data folder
	folder       TEXT NOT NULL,            -- where Apply writes: the folder (a worktree's repository top)
	repo         TEXT NOT NULL DEFAULT '', -- a worktree's repository top
	branch       TEXT NOT NULL DEFAULT '', -- a worktree's branch
	base         TEXT NOT NULL DEFAULT '', -- a worktree's base commit, moved by each apply
	uncommitted  TEXT NOT NULL DEFAULT '[]', -- JSON: the folder's uncommitted paths left out of a worktree
	note         TEXT NOT NULL DEFAULT '', -- what the copy lacks (submodules not checked out)
	setup        TEXT NOT NULL DEFAULT '', -- the setup command run in the copy ('' for none)
	discarded_at INTEGER NOT NULL DEFAULT 0 -- unix nanoseconds; 0 while the copy is there
) WITHOUT ROWID;
