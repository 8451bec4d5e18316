package isolate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"foya/backend/fault"
	"foya/backend/tools/files"
)

// Conflict is a path both the folder and the session changed since the
// base, each its own way: Apply writes nothing there unless asked to.
type Conflict struct {
	Path string `json:"path"`
	// Folder and Session say what each side did to the file since the
	// base: "added", "changed" or "deleted".
	Folder  string `json:"folder"`
	Session string `json:"session"`
	// FolderDiff and SessionDiff are unified diffs from the base to the
	// folder's and to the session's file.
	FolderDiff  string `json:"folderDiff"`
	SessionDiff string `json:"sessionDiff"`
	Binary      bool   `json:"binary"`
}

// Result is what Apply did.
type Result struct {
	// Applied lists the paths written into the folder (or removed from
	// it) as the session has them; Same those the folder had as the
	// session has them already.
	Applied []string `json:"applied"`
	Same    []string `json:"same"`
	// Conflicts are the paths left as the folder has them.
	Conflicts []Conflict `json:"conflicts"`
}

// entry is one side's file at a path: missing, a symbolic link (data is
// its target), or a regular file and whether it is executable.
type entry struct {
	exists, link, exec bool
	data               []byte
}

func (e entry) equal(o entry) bool {
	if e.exists != o.exists {
		return false
	}
	return !e.exists || e.link == o.link && e.exec == o.exec && bytes.Equal(e.data, o.data)
}

// state says what happened to a file from base to e.
func state(base, e entry) string {
	switch {
	case !base.exists:
		return "added"
	case !e.exists:
		return "deleted"
	}
	return "changed"
}

// readEntry reads path beneath root; a missing file (or a folder) is an
// entry that does not exist.
func readEntry(root *os.Root, path string) (entry, error) {
	fi, err := root.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) || err == nil && fi.IsDir() {
		return entry{}, nil
	}
	if err != nil {
		return entry{}, err
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		t, err := root.Readlink(path)
		return entry{exists: true, link: true, data: []byte(t)}, err
	}
	if !fi.Mode().IsRegular() {
		return entry{}, fmt.Errorf("%s is not a regular file", path)
	}
	b, err := root.ReadFile(path)
	return entry{exists: true, exec: fi.Mode()&0o111 != 0, data: b}, err
}

// writeEntry makes path beneath root what e is: written through a
// temporary file and renamed, removed when e does not exist.
func writeEntry(root *os.Root, path string, e entry) error {
	if !e.exists {
		if err := root.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	if dir := filepath.Dir(path); dir != "." {
		if err := root.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	tmp := filepath.Join(filepath.Dir(path), ".foya-apply-"+filepath.Base(path))
	_ = root.Remove(tmp)
	if e.link {
		if err := root.Symlink(string(e.data), tmp); err != nil {
			return err
		}
	} else {
		perm := fs.FileMode(0o644)
		if fi, err := root.Stat(path); err == nil && fi.Mode().IsRegular() {
			perm = fi.Mode().Perm() &^ 0o111
		}
		if e.exec {
			perm |= perm & 0o444 >> 2 // executable where readable
		}
		if err := root.WriteFile(tmp, e.data, perm); err != nil {
			_ = root.Remove(tmp)
			return err
		}
		if err := root.Chmod(tmp, perm); err != nil {
			_ = root.Remove(tmp)
			return err
		}
	}
	if fi, err := root.Lstat(path); err == nil && fi.IsDir() {
		_ = root.Remove(tmp)
		return fmt.Errorf("%s is a folder in the folder", path)
	}
	if err := root.Rename(tmp, path); err != nil {
		_ = root.Remove(tmp)
		return err
	}
	return nil
}

// change is one path the session changed since the base.
type change struct {
	path          string
	base, session entry
	// mode and object are the session's in git (worktree), for moving
	// the base.
	mode, object string
}

// Apply brings the session's net change since the base into the folder,
// file by file: where the folder has the base's file, the session's is
// written (or the file removed); where the folder has the session's, there
// is nothing to do; where the folder changed the file too, it is a
// conflict and nothing is written, unless its path is in take (the user
// chose the session's version). The base then moves to what was applied,
// so a later Apply brings only what changed since. A worktree's changes
// are committed on its branch first; rec's base is updated (and its
// record file rewritten).
func (i *Isolator) Apply(ctx context.Context, rec *Record, take []string) (Result, error) {
	return i.apply(ctx, rec, take, false)
}

// Preview returns what Apply would do now, writing nothing in the folder
// and moving nothing: the files it would apply, those the folder has as
// the session already, and the conflicts with their diffs. (A worktree's
// index is brought up to its files; nothing is committed.)
func (i *Isolator) Preview(ctx context.Context, rec Record) (Result, error) {
	return i.apply(ctx, &rec, nil, true)
}

func (i *Isolator) apply(ctx context.Context, rec *Record, take []string, preview bool) (Result, error) {
	var changes []change
	var err error
	switch rec.Kind {
	case Worktree:
		changes, err = i.worktreeChanges(ctx, *rec, !preview)
	case Copy:
		changes, err = copyChanges(*rec)
	default:
		return Result{}, fmt.Errorf("apply: copy of kind %q", rec.Kind)
	}
	if err != nil {
		return Result{}, err
	}
	for _, p := range take {
		if !slices.ContainsFunc(changes, func(c change) bool { return c.path == p }) {
			return Result{}, fault.Errorf(fault.ErrInvalid, "take %s: the session did not change it since the base, so there is nothing of it to take (give paths as apply lists them, relative to %s)", p, rec.Folder)
		}
	}
	folder, err := os.OpenRoot(rec.Folder)
	if err != nil {
		return Result{}, fmt.Errorf("apply: the folder %s: %w", rec.Folder, err)
	}
	defer folder.Close()
	res := Result{Applied: []string{}, Same: []string{}, Conflicts: []Conflict{}}
	var done []change
	for _, c := range changes {
		f, err := readEntry(folder, c.path)
		if err != nil {
			return res, fmt.Errorf("apply: read %s in the folder: %w", c.path, err)
		}
		switch {
		case f.equal(c.session):
			res.Same = append(res.Same, c.path)
		case preview && f.equal(c.base):
			res.Applied = append(res.Applied, c.path)
		case f.equal(c.base) || slices.Contains(take, c.path) && !preview:
			if err := writeEntry(folder, c.path, c.session); err != nil {
				return res, fmt.Errorf("apply: write %s in the folder: %w (the files listed as applied before it are written)", c.path, err)
			}
			res.Applied = append(res.Applied, c.path)
		default:
			a, b := "a/"+c.path, "b/"+c.path
			fd := files.Unified(a, b, c.base.data, f.data, c.base.exists, f.exists)
			sd := files.Unified(a, b, c.base.data, c.session.data, c.base.exists, c.session.exists)
			res.Conflicts = append(res.Conflicts, Conflict{Path: c.path, Folder: state(c.base, f), Session: state(c.base, c.session),
				FolderDiff: fd.Text, SessionDiff: sd.Text, Binary: fd.Binary || sd.Binary})
			continue
		}
		done = append(done, c)
	}
	if preview {
		return res, nil
	}
	if err := i.moveBase(ctx, rec, done); err != nil {
		return res, fmt.Errorf("apply: the files are written; moving the base failed: %w", err)
	}
	return res, nil
}

// copyChanges compares a copy's base/ and work/ (a .git folder left out).
func copyChanges(rec Record) ([]change, error) {
	baseDir, workDir := filepath.Join(rec.Dir, "base"), filepath.Join(rec.Dir, "work")
	paths := map[string]bool{}
	for _, dir := range []string{baseDir, workDir} {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if d.Name() == ".git" {
					return fs.SkipDir
				}
				return nil
			}
			rel, err := filepath.Rel(dir, path)
			if err == nil {
				paths[filepath.ToSlash(rel)] = true
			}
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("apply: compare the copy: %w", err)
		}
	}
	base, err := os.OpenRoot(baseDir)
	if err != nil {
		return nil, err
	}
	defer base.Close()
	work, err := os.OpenRoot(workDir)
	if err != nil {
		return nil, err
	}
	defer work.Close()
	var out []change
	for _, p := range slices.Sorted(maps.Keys(paths)) {
		b, err := readEntry(base, p)
		if err != nil {
			return nil, err
		}
		s, err := readEntry(work, p)
		if err != nil {
			return nil, err
		}
		if !b.equal(s) {
			out = append(out, change{path: p, base: b, session: s})
		}
	}
	return out, nil
}

// worktreeChanges commits the worktree's changes on its branch (when
// commit is set) and lists what differs from the base (submodules left
// out).
func (i *Isolator) worktreeChanges(ctx context.Context, rec Record, commit bool) ([]change, error) {
	work := filepath.Join(rec.Dir, "work")
	g := i.git(work)
	if _, err := g.out(ctx, "add", "--all"); err != nil {
		return nil, fmt.Errorf("apply: %w", err)
	}
	raw, err := g.out(ctx, "diff", "--cached", "--raw", "-z", "--no-renames", "--no-abbrev", rec.Base)
	if err != nil {
		return nil, fmt.Errorf("apply: %w", err)
	}
	if _, err := g.out(ctx, "diff", "--cached", "--quiet", "HEAD"); err != nil && commit {
		g.env = g.identity(ctx)
		msg := "Foya session " + rec.SessionID
		if _, err := g.out(ctx, "commit", "--quiet", "--no-verify", "-m", msg); err != nil {
			return nil, fmt.Errorf("apply: commit the session's changes on %s: %w", rec.Branch, err)
		}
	}
	root, err := os.OpenRoot(work)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	var out []change
	for _, r := range parseRaw(raw) {
		if r.oldMode == "160000" || r.newMode == "160000" {
			continue // a submodule's commit: left to git
		}
		c := change{path: r.path, mode: r.newMode, object: r.newObj}
		if r.oldMode != "000000" {
			b, err := g.out(ctx, "cat-file", "blob", r.oldObject)
			if err != nil {
				return nil, fmt.Errorf("apply: read %s at the base: %w", r.path, err)
			}
			c.base = entry{exists: true, link: r.oldMode == "120000", exec: r.oldMode == "100755", data: b}
		}
		if c.session, err = readEntry(root, r.path); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// moveBase makes the base have the session's version of each change
// done: a copy's base/ files, or a worktree's base commit (a commit on
// the old base with those files, kept by a ref of its own).
func (i *Isolator) moveBase(ctx context.Context, rec *Record, done []change) error {
	if len(done) == 0 {
		return nil
	}
	if rec.Kind == Copy {
		base, err := os.OpenRoot(filepath.Join(rec.Dir, "base"))
		if err != nil {
			return err
		}
		defer base.Close()
		for _, c := range done {
			if err := writeEntry(base, c.path, c.session); err != nil {
				return err
			}
		}
		return nil
	}
	g := i.git(filepath.Join(rec.Dir, "work"))
	index := filepath.Join(rec.Dir, "base.index")
	defer os.Remove(index)
	g.env = append(g.identity(ctx), "GIT_INDEX_FILE="+index)
	if _, err := g.out(ctx, "read-tree", rec.Base); err != nil {
		return err
	}
	var info strings.Builder
	for _, c := range done {
		if c.mode == "000000" {
			fmt.Fprintf(&info, "0 %s\t%s\x00", strings.Repeat("0", len(c.object)), c.path)
		} else {
			fmt.Fprintf(&info, "%s %s\t%s\x00", c.mode, c.object, c.path)
		}
	}
	if _, err := g.outIn(ctx, GitTimeout, []byte(info.String()), "update-index", "-z", "--index-info"); err != nil {
		return err
	}
	tree, err := g.out(ctx, "write-tree")
	if err != nil {
		return err
	}
	commit, err := g.out(ctx, "commit-tree", strings.TrimSpace(string(tree)), "-p", rec.Base, "-m", "Foya: applied from session "+rec.SessionID)
	if err != nil {
		return err
	}
	next := strings.TrimSpace(string(commit))
	if _, err := g.out(ctx, "update-ref", baseRef(rec.SessionID), next); err != nil {
		return err
	}
	rec.Base = next
	return writeRecord(*rec)
}
