// Package files holds the built-in file tools (read, ls, glob, grep, write,
// edit, delete), the rules they share, and what File Changes need after the
// fact: unified diffs, the stale-read guard, revert, and a workspace watcher.
//
// Paths. A tool's path is relative to the session's working directory or
// absolute. It is cleaned lexically first (so "a/../b" is "b"), then
// symbolic links are resolved in every element that exists; the tool works
// on that resolved path and nothing else, so what the approval gateway is
// asked about is what is touched. A path whose resolved form lies outside
// the resolved workdir is an outside path, whatever its spelling. delete
// resolves links in the parent folders only: it moves a link to the trash,
// never the link's target.
//
// Use. That string resolution decides the approval kind only. What a tool,
// the change recorder or revert then touches inside the workspace is
// resolved again at each system call, beneath the workspace root opened
// as an *os.Root (see loc): a symbolic link is followed only while it
// stays beneath the root, so a folder swapped for a link to the outside
// between the check and the use makes the call fail with an is_error
// result instead of acting outside (a sandboxed command can exchange a
// folder for a link while a call runs). Writes open the
// parent folder once and create, chmod and rename through its descriptor;
// delete and revert move entries to and from the trash with renameat(2)
// from a folder opened beneath the root (trash.PutAt, trash.RestoreAt);
// ls, glob and grep descend with openat(O_NOFOLLOW) from folder to folder
// and never follow a link. Outside paths (approved, or Full Access) are
// used as plain paths. Revert treats a path whose type changed since the
// change (file, folder, link), or with a link or file where a folder was
// on the way, as a conflict that force cannot settle: a link planted
// after the change must not carry the revert outside. On
// Windows the walk and the trash go by os.Root and by path, a weaker
// guarantee: the Recycle Bin takes paths only.
//
// Approval. Every operation asks rc.Approve with an approval.Action (reads
// inside the workspace included, so the gateway sees them). The policy is
// the approval package's; this package encodes one rule of its own, as a
// defence in depth: the filesystem root is never deleted (spec D4).
//
// Fence. Before asking, a tool checks its resolved path against the lists
// the kernel gives (Options.Database, Hidden, Own; see fence): Foya's
// database and lock files are never opened, in any mode; what the sandbox
// hides is neither read nor written outside Full Access, and walks leave
// it out and say so; Foya's own configuration is not written outside Full
// Access. These refusals come unasked, so no answer can let them through.
//
// File Changes. write, edit and delete return tools.FileChange records
// (spec F1): modes are Unix st_mode values (type and permission bits, as
// git writes them: 0100644, 0120777 for a link, 040755 for a folder),
// digests are sha256 in hex, and Diff is a unified diff that GNU patch
// applies to the before content to give exactly the after content. The
// model reads only the text result (spec F2).
//
// It imports tools, approval, trash, llm and libraries; never engine,
// store or kernel: the stale-read guard's storage and the blobs revert
// needs come in through small interfaces (Reads, Blobs).
//
// Concurrency: the tools hold no per-call state and are safe for concurrent
// use; read, ls, glob and grep are parallel-safe (spec P1), write, edit and
// delete are not (spec P5). A Watcher's callback runs on its own goroutine;
// Watcher.Barrier may be called from any goroutine and returns once the
// callback has been told of every change made before the call. The
// Watchers of a process share one fsnotify watcher (one inotify instance
// on Linux, where a user has 128 by default for all their programs): its
// goroutine hands each event, in order, to the queues of the Watchers
// watching its folder, and the last Watcher to close closes it.
package files
