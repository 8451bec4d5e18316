package files

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"foya/backend/fspath"
	"foya/backend/llm"
)

// Unrestorable is a path whose content at a fork point cannot be brought
// back into a copy of the session's files, and why.
type Unrestorable struct {
	// ChangeID is the change after the fork point at fault; Path is the
	// path as that change recorded it.
	ChangeID string `json:"changeId"`
	Path     string `json:"path"`
	Reason   string `json:"reason"`
}

// restoreStep is one path of a restore: what its changes after the fork
// point left there (want), and what it held before the first of them.
type restoreStep struct {
	rel         string
	first, last llm.FileChange
}

// CheckRestore reports which paths RestoreFiles could not bring back to
// how they were at a fork point, changing nothing: it is what to say
// before forking. dir holds a copy of the session's files as they are
// now; recorded is the folder the session's File Changes name (the
// session's own folder); after are the session's changes made after the
// fork point, oldest first (as the store lists them). A path cannot be
// restored when its content before the first of those changes was not
// kept (NotRestorable) or its blob is gone, when dir no longer holds
// what the last of them left there (compared by content hash: the copy
// was changed some other way), when it lies outside recorded, or when a
// whole folder was deleted (its files went to the OS trash, not to Foya's
// records).
func CheckRestore(ctx context.Context, blobs Blobs, dir, recorded string, after []llm.FileChange) ([]Unrestorable, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("restore %s: %w", dir, err)
	}
	defer root.Close()
	_, bad, err := planRestore(ctx, blobs, root, recorded, after)
	return bad, err
}

// RestoreFiles brings the files of dir back to how they were at a fork
// point, from the session's File Changes after it (see CheckRestore for
// the arguments): for each path, newest first, the content its first
// change after the fork point found there, from its blob, or no file where
// there was none, no folder where the session made one (unless something
// its records do not know is in it). It first checks every path and, when
// any cannot be restored, returns them and changes nothing. Paths are used beneath dir
// (os.Root): a link in the copy cannot lead a write outside it.
func RestoreFiles(ctx context.Context, blobs Blobs, dir, recorded string, after []llm.FileChange) ([]Unrestorable, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("restore %s: %w", dir, err)
	}
	defer root.Close()
	steps, bad, err := planRestore(ctx, blobs, root, recorded, after)
	if err != nil || len(bad) > 0 {
		return bad, err
	}
	for _, s := range slices.Backward(steps) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := restoreOne(ctx, blobs, root, s); err != nil {
			return nil, fmt.Errorf("restore %s: %w", s.first.Path, err)
		}
	}
	return nil, nil
}

// planRestore groups the changes by path, in the order of each path's
// first change, and checks each path.
func planRestore(ctx context.Context, blobs Blobs, root *os.Root, recorded string, after []llm.FileChange) ([]restoreStep, []Unrestorable, error) {
	var steps []restoreStep
	at := map[string]int{}
	var bad []Unrestorable
	for _, c := range after {
		if i, ok := at[c.Path]; ok {
			steps[i].last = c
			continue
		}
		rel, ok := fspath.Rel(recorded, c.Path)
		if !ok || rel == "." {
			bad = append(bad, Unrestorable{ChangeID: c.ID, Path: c.Path, Reason: "it is outside the session's folder"})
			continue
		}
		at[c.Path] = len(steps)
		steps = append(steps, restoreStep{rel: rel, first: c, last: c})
	}
	for _, s := range steps {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		why, id, err := checkStep(ctx, blobs, root, s)
		if err != nil {
			return nil, nil, err
		}
		if why != "" {
			bad = append(bad, Unrestorable{ChangeID: id, Path: s.first.Path, Reason: why})
		}
	}
	return steps, bad, nil
}

// checkStep says why s cannot be restored ("" when it can) and which
// change is at fault.
func checkStep(ctx context.Context, blobs Blobs, root *os.Root, s restoreStep) (string, string, error) {
	f, l := s.first, s.last
	if f.IsDir || l.IsDir {
		return checkFolder(root, s)
	}
	if f.NotRestorable != "" {
		return "its content from before was not kept: " + f.NotRestorable, f.ID, nil
	}
	if f.ExistedBefore {
		if f.SHABefore == "" {
			return "its content from before was not kept", f.ID, nil
		}
		data, err := blobs.Blob(ctx, f.SHABefore)
		if err != nil {
			return "its content from before is no longer stored", f.ID, nil
		}
		if digest(data) != f.SHABefore {
			return "its stored content from before is damaged (its digest does not match)", f.ID, nil
		}
	}
	cur, err := currentSHA(root, s.rel)
	if err != nil {
		return "", "", err
	}
	switch {
	case !l.ExistsAfter && cur.exists:
		return "something is there now that the session's last change of it did not leave", l.ID, nil
	case l.ExistsAfter && !cur.exists:
		return "it is gone, and the session's records do not say it was removed", l.ID, nil
	case l.ExistsAfter && l.SHAAfter == "":
		return "what the session's last change of it left was not recorded", l.ID, nil
	case l.ExistsAfter && cur.sha != l.SHAAfter:
		return "its content is not what the session's last change of it left", l.ID, nil
	}
	return "", "", nil
}

// checkFolder checks a path whose changes were of a folder: one made
// after the fork point is removed, one there before is put back, but one
// deleted whole took its files to the OS trash, which a copy cannot take
// them from.
func checkFolder(root *os.Root, s restoreStep) (string, string, error) {
	f, l := s.first, s.last
	if f.ExistedBefore && !f.IsDir {
		return "it was a file before, and a folder after that point", f.ID, nil
	}
	for _, c := range []llm.FileChange{f, l} {
		if c.IsDir && c.ExistedBefore && !c.ExistsAfter {
			return "a whole folder was deleted after that point (its files went to the trash, not to Foya's records)", c.ID, nil
		}
	}
	cur, err := currentSHA(root, s.rel)
	switch {
	case err != nil:
		return "", "", err
	case l.ExistsAfter && cur.sha != folderMark:
		return "it is no longer the folder the session's last change of it left", l.ID, nil
	case !l.ExistsAfter && cur.exists:
		return "something is there now that the session's last change of it did not leave", l.ID, nil
	}
	return "", "", nil
}

// folderMark stands for a folder's content in current.sha.
const folderMark = "a folder"

// current is what a path of a restore holds now.
type current struct {
	exists bool
	sha    string // of a file's bytes, or of a link's target
}

func currentSHA(root *os.Root, rel string) (current, error) {
	fi, err := root.Lstat(rel)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return current{}, nil
	case err != nil:
		return current{}, err
	case fi.Mode()&fs.ModeSymlink != 0:
		target, err := root.Readlink(rel)
		if err != nil {
			return current{}, err
		}
		return current{exists: true, sha: digest([]byte(target))}, nil
	case fi.IsDir():
		return current{exists: true, sha: folderMark}, nil
	}
	data, err := root.ReadFile(rel)
	if err != nil {
		return current{}, err
	}
	return current{exists: true, sha: digest(data)}, nil
}

// restoreOne puts back what s's path held before its first change.
func restoreOne(ctx context.Context, blobs Blobs, root *os.Root, s restoreStep) error {
	f := s.first
	switch {
	case !f.ExistedBefore && s.last.IsDir:
		// A folder made after the fork point goes once what the session
		// put in it has (newest first); one that still holds something
		// the records do not know stays.
		if err := root.Remove(s.rel); err != nil && !errors.Is(err, fs.ErrNotExist) && !isNotEmpty(root, s.rel) {
			return err
		}
		return nil
	case !f.ExistedBefore:
		if err := root.Remove(s.rel); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	case f.IsDir:
		return root.MkdirAll(s.rel, 0o755)
	}
	data, err := blobs.Blob(ctx, f.SHABefore)
	if err != nil {
		return err
	}
	if err := root.MkdirAll(filepath.Dir(s.rel), 0o755); err != nil {
		return err
	}
	if err := root.Remove(s.rel); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if f.ModeBefore&modeTypeMask == modeSymlink {
		return root.Symlink(string(data), s.rel)
	}
	perm := fs.FileMode(f.ModeBefore & 0o777)
	if perm == 0 {
		perm = 0o644
	}
	if err := root.WriteFile(s.rel, data, perm); err != nil {
		return err
	}
	return root.Chmod(s.rel, perm) // WriteFile's mode is filtered by the umask
}

// isNotEmpty says whether rel is a folder with something in it.
func isNotEmpty(root *os.Root, rel string) bool {
	d, err := root.Open(rel)
	if err != nil {
		return false
	}
	defer d.Close()
	names, err := d.Readdirnames(1)
	return err == nil && len(names) > 0
}
