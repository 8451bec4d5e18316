// Package workspace keeps a per-session index of a workspace's files, so
// that what a shell command changes can be recorded as File Changes and
// reverted like the file tools' changes, without git.
//
// The index holds stat data (size, modification and change times, inode,
// mode) and the sha256 of each file it walked, and a compressed copy
// (zstd) of each file it keeps, in a blob folder shared by every session
// of the data folder and keyed by digest, so identical contents are kept
// once. It follows .gitignore as the file tools do: ignored folders are
// not walked at all; ignored files in walked folders, files above the
// per-file cap (workspace.maxFileBytes), files past the total cap
// (workspace.maxTotalBytes), files that cannot be read and files that
// changed while they were read are tracked by stat data only and marked
// "not restorable", with the reason. .git folders are never walked.
//
// A Manager owns the indexes of a kernel. Warm builds a session's index
// in the background; Before waits for it (the whole index: a first
// version that does not guess which files a command could touch), then
// brings it up to date with the disk and returns what changed since the
// index last looked (changes made outside the session's commands: package
// capture tells the user's edits from Foya's own tools' writes). After
// walks again and returns what the command changed, as tools.FileChange
// records with the before content from the index and the after content
// from the disk. A watcher's events (Touch) narrow both looks to the paths
// they name while the watcher is whole (Attach, not Degrade nor Detach),
// after one full walk with it attached. After first waits for the
// watcher's Barrier (a marker written after the command ended, whose event
// comes after the command's own), so late events are in; it walks
// everything when the barrier fails or takes over two seconds, when too
// many paths were touched, or when a .gitignore changed. A look walks
// each path once (a touched path below another touched one is covered by
// it) and returns at most one change per path, from what the index held
// before the look to what it holds after: a file a running command
// changes while the look walks is never found changed twice, whose two
// records would not follow one another.
//
// Each index is saved in the data folder after a walk that changed it, so
// a restarted kernel compares the disk with what it saw last: a save
// appends the paths that changed to the index's journal, and writes the
// whole index again only after a start, when another kernel replaced it,
// or when the journal outgrew it (journal.go); Prune
// removes the blobs no saved index refers to any more (after a session is
// deleted). Usage reports the disk the indexes take. The blob folder is
// bounded by Limits.MaxKept: after Before saved the index, the earlier
// contents no saved or live index needs any more (a capture handed them
// over as its "before") are pruned once the folder is past half the
// bound, and past the bound a content is not kept, so the change that
// needs it later is not restorable, with the reason.
//
// The walk opens each folder beneath its parent's descriptor with
// O_NOFOLLOW, never by path: a folder swapped for a link is not entered.
//
// It imports tools, tools/files, event and llm, and libraries; never
// engine, store or kernel. A Manager is safe for concurrent use; one
// session's syncs run one at a time.
package workspace
