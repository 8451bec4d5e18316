// Package isolate makes and removes the isolated copies sessions work in
// (issue 29): a git worktree on a branch of its own when the folder is in
// a git repository, else a copy of the folder (copy-on-write with FICLONE
// where the file system has it, else a plain copy bounded by the free
// space). It brings a copy's net change back into its folder with a
// three-way comparison per file (Apply), makes a forked session's copy
// from its parent's (Fork: same kind, same base, the parent's files as
// they are now) and finds copies whose session is gone (Sweep).
//
// Every copy lives in one folder of its own beneath the Isolator's Dir,
// named after its session: isolation.json (the Record, written before
// anything else so that a crash leaves nothing Sweep cannot explain),
// work/ (where the session works) and, for a copy, base/ (the folder as
// it was copied, the base of the three-way comparison). The format is
// documented in docs/isolated-sessions.md.
//
// git runs as a process with the user's configuration (it is the user's
// repository), no pager, no terminal prompt, no hook and no fsmonitor
// program (a repository's config can point them at its own files, which a
// session may have written), and Foya's own GIT_* variables dropped but
// GIT_CONFIG_* (the user's way of passing configuration).
//
// It imports fault, fspath and tools/files (unified diffs), never the
// kernel or the store: the kernel records Records in the database. An
// Isolator holds no state besides its configuration; callers serialise
// operations on one session's copy (the kernel does so per session).
package isolate
