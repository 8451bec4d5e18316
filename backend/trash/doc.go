// Package trash moves files and folders to the operating system's trash and
// brings them back. It is how Foya keeps its promise that nothing is deleted
// for good (spec D1): the `delete` tool calls Put, revert calls Restore, and
// the user's own file manager sees and restores the same items.
//
// On Linux and the BSDs it implements the freedesktop.org Trash
// specification 1.0: the home trash under $XDG_DATA_HOME/Trash, the
// top-directory trashes $topdir/.Trash/$uid and $topdir/.Trash-$uid for
// other filesystems, .trashinfo files claimed with O_EXCL and the
// directorysizes cache. On macOS it asks Finder (so "Put Back" works) and
// falls back to a plain move into ~/.Trash; on Windows it uses the shell's
// recycle bin.
//
// Names in a trash's files/ folder start as the item's own name; when that
// is taken the next tries are "stem.2.ext", "stem.3.ext" … ("report.2.txt",
// "Makefile.2"), then a random tag. Names are cut so that NAME.trashinfo
// fits in 255 bytes. The original location is always read from the info
// file, never from the name.
//
// PutAt and RestoreAt take an entry of an open folder instead of a path:
// the move is renameat(2) from (or into) the folder's descriptor, so a
// folder on the way swapped for a symbolic link cannot redirect it, and the
// .trashinfo names the path the caller shows the user. The file tools use
// them for everything inside the workspace. On Windows, where the Recycle
// Bin takes paths only, they fall back to Put and Restore.
//
// Nothing here copies across filesystems or deletes: an item moves with
// rename(2) or not at all, and when no trash can take a path the call fails
// with an error wrapping ErrUnsupported and leaves the path where it was.
//
// The package imports the standard library and golang.org/x/sys only, and no
// other Foya package.
//
// Concurrency: a *Trash holds no mutable state apart from a lock that
// serialises its own updates of the directorysizes cache; its methods are
// safe for concurrent use. Two processes trashing files of the same name at
// once get two distinct trash entries, because names are claimed atomically.
package trash
