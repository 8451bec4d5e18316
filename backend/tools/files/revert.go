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
	"foya/backend/tools"
	"foya/backend/trash"
)

// Blobs gives back the contents File Changes kept, by sha256.
type Blobs interface {
	Blob(ctx context.Context, sha string) ([]byte, error)
}

// Conflict is a change revert will not undo without force, because the
// path is no longer what the change left there: undoing it would lose
// what is there now.
type Conflict struct {
	ChangeID string `json:"changeId"`
	Path     string `json:"path"`
	// Reason says what differs, for people.
	Reason string `json:"reason"`
	// Expected is what the change left; Found is what is there now.
	ExpectedExists bool   `json:"expectedExists"`
	ExpectedSHA    string `json:"expectedSha,omitempty"`
	FoundExists    bool   `json:"foundExists"`
	FoundSHA       string `json:"foundSha,omitempty"`
	// Diff shows what is there against what was expected, when both are
	// text.
	Diff string `json:"diff,omitempty"`
	// Forceable is false when even force cannot undo the change (a folder
	// is in the way, or a hunk's lines are gone).
	Forceable bool `json:"forceable"`
}

// Reverter undoes File Changes: it restores the exact bytes and mode of
// the before side, from the trash where the change put the file there,
// else from its blob; a path that did not exist before goes to the trash.
// Each undo is itself a File Change (Op "revert", RevertOf set), so a
// revert can be undone too.
type Reverter struct {
	Blobs Blobs
	Trash Trash
}

// seen is what a path holds, as far as the conflict check knows.
type seen struct {
	exists, dir bool
	mode        uint32 // Unix st_mode; 0 when not known
	sha         string
	data        []byte
	// from is where a folder's contents will come from once its undo has
	// run: its trash item.
	from string
}

func seenOf(st state) seen {
	return seen{exists: st.Exists, dir: st.IsDir, mode: st.Mode, sha: st.SHA, data: st.Data}
}

// space is the workspace a revert works in: paths inside it are used
// beneath its root (see loc), as the tools use them, so a folder on the
// way swapped for a link since the change can neither redirect the
// revert nor be followed by force.
type space struct {
	root *os.Root
	wd   string
}

// openSpace opens the workspace dir for a revert; the caller closes it.
func openSpace(dir string) (*space, error) {
	wd, err := workdir(dir)
	if err != nil {
		return nil, fmt.Errorf("revert: %w", err)
	}
	root, err := os.OpenRoot(wd)
	if err != nil {
		return nil, fmt.Errorf("revert: the working directory %s: %w", wd, err)
	}
	return &space{root: root, wd: wd}, nil
}

func (s *space) close() { s.root.Close() }

// at is the loc of a recorded path: beneath the root when inside the
// workspace, else the plain path.
func (s *space) at(path string) loc {
	if rel, ok := fspath.Rel(s.wd, path); ok {
		return rootLoc(s.root, s.wd, rel)
	}
	return plainLoc(path)
}

// wayChanged says why the folders on the way to path are no longer what
// they were when a change recorded it, or "": a recorded path has every
// link resolved (see resolve), so a link among them now was put there
// since, and so is a file where a folder was. Inside the workspace only
// the folders below its root are looked at.
func (s *space) wayChanged(path string) string {
	l := s.at(path)
	var way []loc
	for d := l.parent(); !d.isRoot(); d = d.parent() {
		way = append(way, d)
	}
	for i := len(way) - 1; i >= 0; i-- {
		fi, err := way[i].lstat()
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return "" // missing folders are made again
		case err != nil:
			return fmt.Sprintf("the folder %s on the way cannot be looked at (%v)", way[i].path, err)
		case fi.Mode()&fs.ModeSymlink != 0:
			return fmt.Sprintf("the folder %s on the way is a symbolic link now (it was a folder when this change was made); Foya does not follow it, and force cannot either: look at it, and move the link away to revert", way[i].path)
		case !fi.IsDir():
			return fmt.Sprintf("%s, a folder on the way, is not a folder now", way[i].path)
		}
	}
	return ""
}

// wayConflict is the conflict of a change whose way changed.
func wayConflict(c llm.FileChange, reason string) *Conflict {
	return &Conflict{ChangeID: c.ID, Path: c.Path, Reason: reason, ExpectedExists: c.ExistsAfter, ExpectedSHA: c.SHAAfter, FoundExists: true}
}

// kindName names the type bits of a Unix st_mode for people.
func kindName(mode uint32) string {
	switch mode & modeTypeMask {
	case modeSymlink:
		return "a symbolic link"
	case modeDir:
		return "a folder"
	case modeRegular:
		return "a file"
	}
	return "a special file"
}

// Check reports the conflicts reverting changes (newest first) would meet,
// without changing anything. Each change is checked against the state the
// undoing of the newer ones leaves, so a file changed twice is expected to
// hold its newest content first and its older one next, and a file in a
// deleted folder is looked for in the folder's trash item.
func (rv *Reverter) Check(ctx context.Context, workdir string, changes []llm.FileChange) ([]Conflict, error) {
	sp, err := openSpace(workdir)
	if err != nil {
		return nil, err
	}
	defer sp.close()
	return rv.check(ctx, sp, changes)
}

func (rv *Reverter) check(ctx context.Context, sp *space, changes []llm.FileChange) ([]Conflict, error) {
	virtual := map[string]seen{}
	var out []Conflict
	for _, c := range changes {
		if c.NotRestorable != "" {
			out = append(out, notRestorable(c))
			continue
		}
		if why := sp.wayChanged(c.Path); why != "" {
			out = append(out, *wayConflict(c, why))
			continue
		}
		cur, ours, err := lookup(sp, virtual, c.Path)
		if isEscape(err) {
			out = append(out, *wayConflict(c, "a folder on the way is a link that leads outside the workspace now; Foya does not follow it"))
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("revert %s: look at %s: %w", c.ID, c.Path, err)
		}
		// What an undo of this batch put there cannot conflict: if it is
		// not what c left (something changed the file between two
		// recorded changes), every content in between is kept in a blob.
		if cf := rv.conflict(ctx, sp.wd, c, cur); cf != nil && (!ours || !cf.Forceable) {
			out = append(out, *cf)
		}
		v := seen{exists: c.ExistedBefore, dir: c.IsDir && c.ExistedBefore, sha: c.SHABefore}
		if c.ExistedBefore {
			v.mode = c.ModeBefore
		}
		if v.dir && !c.ExistsAfter {
			v.from = c.TrashPath
		}
		if c.IsDir {
			// The folder's new state decides what is below it.
			for p := range virtual {
				if _, ok := fspath.Rel(c.Path, p); ok {
					delete(virtual, p)
				}
			}
		}
		virtual[c.Path] = v
	}
	return out, nil
}

// notRestorable is the conflict of a change recorded without a copy of
// its before content (a shell command changed a file the workspace index
// did not keep): nothing, force included, can bring that content back.
func notRestorable(c llm.FileChange) Conflict {
	return Conflict{ChangeID: c.ID, Path: c.Path, Reason: "it cannot be reverted: " + c.NotRestorable,
		ExpectedExists: c.ExistsAfter, ExpectedSHA: c.SHAAfter, FoundExists: c.ExistsAfter}
}

// lookup returns what path will hold once the undos checked so far have
// run: their own result (ours), else what a folder restored from the trash
// holds there, else what the disk holds now.
func lookup(sp *space, virtual map[string]seen, path string) (_ seen, ours bool, _ error) {
	l := sp.at(path)
	if v, ok := virtual[path]; ok {
		return v, true, nil
	}
	for dir := filepath.Dir(path); ; dir = filepath.Dir(dir) {
		if v, ok := virtual[dir]; ok {
			switch {
			case !v.exists || !v.dir:
				return seen{}, true, nil
			case v.from != "":
				rel, _ := fspath.Rel(dir, path)
				l = plainLoc(filepath.Join(v.from, rel))
			}
			break
		}
		if filepath.Dir(dir) == dir {
			break
		}
	}
	st, err := snapshot(l, MaxKeep)
	if err != nil && !errors.Is(err, errTooLarge) {
		return seen{}, false, err
	}
	return seenOf(st), false, nil
}

// conflict compares what is at c's path with what c left there.
func (rv *Reverter) conflict(ctx context.Context, workdir string, c llm.FileChange, cur seen) *Conflict {
	cf := &Conflict{ChangeID: c.ID, Path: c.Path, ExpectedExists: c.ExistsAfter, ExpectedSHA: c.SHAAfter,
		FoundExists: cur.exists, FoundSHA: cur.sha, Forceable: true}
	switch {
	case c.ExistsAfter && !cur.exists:
		cf.Reason = "it was deleted since this change"
	case !c.ExistsAfter && cur.exists:
		cf.Reason = "something was put there since this change"
		if c.IsDir && cur.dir {
			cf.Reason = "a folder was put there since this change"
		}
		cf.Forceable = !c.IsDir && !cur.dir
	case !c.ExistsAfter:
		return nil
	case c.IsDir != cur.dir:
		cf.Reason = "it is a folder now"
		if c.IsDir {
			cf.Reason = "it is no longer a folder"
		}
		cf.Forceable = false
	case c.IsDir:
		return nil
	case cur.mode != 0 && c.ModeAfter != 0 && cur.mode&modeTypeMask != c.ModeAfter&modeTypeMask:
		cf.Reason = fmt.Sprintf("it is %s now, not %s as this change left it; Foya does not follow or replace it", kindName(cur.mode), kindName(c.ModeAfter))
		cf.Forceable = false
	case c.SHAAfter != "" && cur.sha != c.SHAAfter:
		cf.Reason = "its content changed since this change"
		if expected, err := rv.Blobs.Blob(ctx, c.SHAAfter); err == nil && cur.data != nil {
			oldName, _ := DiffNames(c.Path, workdir)
			d := Unified("expected/"+trimAB(oldName), "found/"+trimAB(oldName), expected, cur.data, true, true)
			cf.Diff = d.Text
		}
	default:
		return nil
	}
	return cf
}

func trimAB(name string) string {
	if len(name) > 2 && (name[:2] == "a/" || name[:2] == "b/") {
		return name[2:]
	}
	return filepath.Base(name)
}

// Revert undoes changes, newest first as given. Unless force, it first
// checks them all and, on any conflict, returns the conflicts and changes
// nothing. With force, what is there now is overwritten (its content is
// kept as the revert's before blob) where that loses nothing; conflicts
// force cannot settle are still returned and stop the revert. It returns
// the revert changes made, in order; when an undo fails midway, those made
// before it are returned with the error.
func (rv *Reverter) Revert(ctx context.Context, workdir string, changes []llm.FileChange, force bool) ([]tools.FileChange, []Conflict, error) {
	sp, err := openSpace(workdir)
	if err != nil {
		return nil, nil, err
	}
	defer sp.close()
	conflicts, err := rv.check(ctx, sp, changes)
	if err != nil {
		return nil, nil, err
	}
	if len(conflicts) > 0 && (!force || slices.ContainsFunc(conflicts, func(c Conflict) bool { return !c.Forceable })) {
		return nil, conflicts, nil
	}
	var done []tools.FileChange
	ours := map[string]bool{} // paths an undo of this batch wrote
	for _, c := range changes {
		if err := ctx.Err(); err != nil {
			return done, nil, err
		}
		fc, cf, err := rv.undo(ctx, sp, c, force || ours[c.Path])
		ours[c.Path] = true
		if err != nil {
			return done, nil, err
		}
		if cf != nil {
			return done, []Conflict{*cf}, nil
		}
		if fc != nil {
			done = append(done, *fc)
		}
	}
	return done, nil, nil
}

// undo undoes one change. It returns nil, nil, nil when there was nothing
// left to undo (the path already holds the before state).
func (rv *Reverter) undo(ctx context.Context, sp *space, c llm.FileChange, force bool) (*tools.FileChange, *Conflict, error) {
	if c.NotRestorable != "" {
		cf := notRestorable(c)
		return nil, &cf, nil
	}
	if why := sp.wayChanged(c.Path); why != "" {
		return nil, wayConflict(c, why), nil
	}
	l := sp.at(c.Path)
	cur, err := snapshot(l, MaxKeep)
	if isEscape(err) {
		return nil, wayConflict(c, "a folder on the way is a link that leads outside the workspace now; Foya does not follow it"), nil
	}
	if err != nil && !errors.Is(err, errTooLarge) {
		return nil, nil, fmt.Errorf("revert %s: look at %s: %w", c.ID, c.Path, err)
	}
	if cf := rv.conflict(ctx, sp.wd, c, seenOf(cur)); cf != nil && (!force || !cf.Forceable) {
		return nil, cf, nil
	}
	var item *trash.Item
	switch {
	case !c.ExistedBefore:
		// The change created the path: it goes (empty folders are simply
		// removed, anything else to the trash).
		if !cur.Exists {
			return nil, nil, nil
		}
		if cur.IsDir && l.remove() == nil {
			break
		}
		it, err := trashLoc(rv.Trash, l)
		if err != nil {
			return nil, nil, fmt.Errorf("revert %s: move %s to the trash: %w", c.ID, c.Path, err)
		}
		item = &it
	case c.IsDir:
		if cur.Exists {
			if !cur.IsDir || l.remove() != nil {
				return nil, &Conflict{ChangeID: c.ID, Path: c.Path, Reason: "something is in the way of the folder", FoundExists: true}, nil
			}
		}
		if err := rv.restoreDir(c, l); err != nil {
			return nil, nil, err
		}
	case !c.ExistsAfter:
		// The change removed a file (delete, or a revert that trashed it):
		// bring it back from the trash, else from its blob.
		restored := false
		if !cur.Exists && c.TrashPath != "" {
			err := rv.restoreItem(c, l)
			switch {
			case err == nil:
				restored = true
			case errors.Is(err, trash.ErrNotFound) || errors.Is(err, trash.ErrUnsupported):
				// gone from the trash: the blob is the copy left
			default:
				return nil, nil, fmt.Errorf("revert %s: %w", c.ID, err)
			}
		}
		if !restored {
			if err := rv.restoreFile(ctx, c, l); err != nil {
				return nil, nil, err
			}
		}
	default:
		if err := rv.restoreFile(ctx, c, l); err != nil {
			return nil, nil, err
		}
	}
	after, err := snapshot(l, MaxKeep)
	if err != nil && !errors.Is(err, errTooLarge) {
		return nil, nil, fmt.Errorf("revert %s: look at %s: %w", c.ID, c.Path, err)
	}
	fc := makeChange("revert", c.Path, sp.wd, cur, after)
	fc.RevertOf, fc.Tool = c.ID, "revert"
	if item != nil {
		fc.TrashPath, fc.TrashInfo = item.TrashedPath, item.InfoPath
	}
	return &fc, nil, nil
}

// restoreItem brings the change's trash item back to l: beneath the
// workspace root into l's folder opened through the root (made again when
// missing), with trash.RestoreAt; a plain path with trash.Restore.
func (rv *Reverter) restoreItem(c llm.FileChange, l loc) error {
	it := trash.Item{OriginalPath: c.Path, TrashedPath: c.TrashPath, InfoPath: c.TrashInfo}
	if l.root == nil {
		return rv.Trash.Restore(it)
	}
	if err := l.parent().mkdirAll(0o755); err != nil {
		return err
	}
	dir, err := l.parent().openDirFile()
	if err != nil {
		return err
	}
	defer dir.Close()
	return rv.Trash.RestoreAt(it, dir, l.base())
}

// restoreDir brings back a folder the change removed: from the trash when
// the change put it there, else as an empty folder with its mode (a revert
// removed it because it was empty).
func (rv *Reverter) restoreDir(c llm.FileChange, l loc) error {
	if c.TrashPath == "" {
		if err := l.parent().mkdirAll(0o755); err != nil {
			return fmt.Errorf("revert %s: %w", c.ID, err)
		}
		if err := l.mkdir(0o700); err != nil {
			return fmt.Errorf("revert %s: %w", c.ID, err)
		}
		// The mode goes through the folder's descriptor, never a path.
		f, err := l.openDirFile()
		if err != nil {
			return fmt.Errorf("revert %s: %w", c.ID, err)
		}
		defer f.Close()
		return f.Chmod(goMode(c.ModeBefore))
	}
	err := rv.restoreItem(c, l)
	if errors.Is(err, trash.ErrNotFound) {
		return fmt.Errorf("revert %s: the folder %s is no longer in the trash (it was restored or emptied), and Foya keeps no copy of folders: %w", c.ID, c.Path, err)
	}
	if err != nil {
		return fmt.Errorf("revert %s: %w", c.ID, err)
	}
	return nil
}

// restoreFile writes the change's before content and mode at l.
func (rv *Reverter) restoreFile(ctx context.Context, c llm.FileChange, l loc) error {
	if c.SHABefore == "" {
		return fmt.Errorf("revert %s: %s is no longer in the trash, and it was too large for Foya to keep a copy", c.ID, c.Path)
	}
	data, err := rv.Blobs.Blob(ctx, c.SHABefore)
	if err != nil {
		return fmt.Errorf("revert %s: the content of %s before the change: %w", c.ID, c.Path, err)
	}
	if digest(data) != c.SHABefore {
		return fmt.Errorf("revert %s: the kept content of %s is damaged (its digest does not match)", c.ID, c.Path)
	}
	if err := l.parent().mkdirAll(0o755); err != nil {
		return fmt.Errorf("revert %s: %w", c.ID, err)
	}
	if c.ModeBefore&modeTypeMask == modeSymlink {
		dir, err := l.parent().openFolder()
		if err != nil {
			return fmt.Errorf("revert %s: %w", c.ID, err)
		}
		defer dir.Close()
		if err := dir.Remove(l.base()); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("revert %s: %w", c.ID, err)
		}
		if err := dir.Symlink(string(data), l.base()); err != nil {
			return fmt.Errorf("revert %s: %w", c.ID, err)
		}
		return nil
	}
	if fi, err := l.lstat(); err == nil && fi.IsDir() {
		return fmt.Errorf("revert %s: %s is a folder now", c.ID, c.Path)
	}
	if err := writeAtomic(l, data, c.ModeBefore); err != nil {
		return fmt.Errorf("revert %s: %w", c.ID, err)
	}
	return nil
}

// RevertHunks undoes only the hunks numbered in which (1-based, as the
// change's diff lists them) of one text change. The file must hold the
// change's after content, or the content a partial revert of the same
// change left (accept lists those digests); otherwise, unless force, it
// returns a conflict. A hunk whose lines are no longer in the file is a
// conflict even with force.
func (rv *Reverter) RevertHunks(ctx context.Context, workdir string, c llm.FileChange, which []int, accept []string, force bool) (*tools.FileChange, *Conflict, error) {
	return rv.hunks(ctx, workdir, c, which, accept, force, false)
}

// PlanHunks returns the change RevertHunks would make, or the conflict
// that would stop it, without writing anything: the same checks, the same
// content.
func (rv *Reverter) PlanHunks(ctx context.Context, workdir string, c llm.FileChange, which []int, accept []string, force bool) (*tools.FileChange, *Conflict, error) {
	return rv.hunks(ctx, workdir, c, which, accept, force, true)
}

func (rv *Reverter) hunks(ctx context.Context, workdir string, c llm.FileChange, which []int, accept []string, force, dry bool) (*tools.FileChange, *Conflict, error) {
	switch {
	case len(which) == 0:
		return nil, nil, fmt.Errorf("%w: no hunks given", ErrBadHunk)
	case c.IsDir || c.Binary || c.Diff == "" || !c.ExistsAfter:
		return nil, nil, fmt.Errorf("%w: change %s has no hunks to revert one by one (it is a folder, binary, a deletion or empty): revert it whole", ErrBadHunk, c.ID)
	}
	sp, err := openSpace(workdir)
	if err != nil {
		return nil, nil, err
	}
	defer sp.close()
	if why := sp.wayChanged(c.Path); why != "" {
		return nil, wayConflict(c, why), nil
	}
	l := sp.at(c.Path)
	cur, err := snapshot(l, MaxKeep)
	if isEscape(err) {
		return nil, wayConflict(c, "a folder on the way is a link that leads outside the workspace now; Foya does not follow it"), nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("revert %s: look at %s: %w", c.ID, c.Path, err)
	}
	if cur.Link || cur.IsDir {
		return nil, &Conflict{ChangeID: c.ID, Path: c.Path, Reason: fmt.Sprintf("it is %s now, not the file this change left; Foya does not follow or replace it", kindName(cur.Mode)),
			ExpectedExists: true, ExpectedSHA: c.SHAAfter, FoundExists: true, FoundSHA: cur.SHA}, nil
	}
	if cur.SHA != c.SHAAfter && !slices.Contains(accept, cur.SHA) {
		if cf := rv.conflict(ctx, sp.wd, c, seenOf(cur)); cf != nil && (!force || !cf.Forceable || !cur.Exists) {
			return nil, cf, nil
		}
	}
	data, err := unapply(cur.Data, c.Diff, which)
	if errors.Is(err, ErrBadHunk) {
		return nil, nil, err
	}
	if errors.Is(err, errHunk) {
		return nil, &Conflict{ChangeID: c.ID, Path: c.Path, Reason: err.Error() + ": its lines are no longer in the file",
			ExpectedExists: true, ExpectedSHA: c.SHAAfter, FoundExists: true, FoundSHA: cur.SHA}, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("revert %s: %w", c.ID, err)
	}
	var after state
	if dry {
		after = cur
		after.Data, after.SHA, after.Size = data, digest(data), int64(len(data))
	} else {
		if err := writeAtomic(l, data, cur.Mode); err != nil {
			return nil, nil, fmt.Errorf("revert %s: %w", c.ID, err)
		}
		after, err = snapshot(l, MaxKeep)
		if err != nil {
			return nil, nil, fmt.Errorf("revert %s: look at %s: %w", c.ID, c.Path, err)
		}
	}
	fc := makeChange("revert", c.Path, sp.wd, cur, after)
	fc.RevertOf, fc.Tool = c.ID, "revert"
	fc.OfHunks = slices.Compact(slices.Sorted(slices.Values(which)))
	return &fc, nil, nil
}
