package isolate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"foya/backend/fault"
	"foya/backend/fspath"
)

// Kind is how a session is isolated from its folder.
type Kind string

// Kinds of isolation, and the choices NewSession takes besides them.
const (
	// None works in the folder itself (the default).
	None Kind = ""
	// Auto is a worktree for a folder in a git repository with a commit,
	// else a copy.
	Auto     Kind = "auto"
	Worktree Kind = "worktree"
	Copy     Kind = "copy"
)

// ParseKind reads an isolation choice: "", "auto", "worktree" or "copy".
func ParseKind(s string) (Kind, error) {
	switch k := Kind(strings.ToLower(strings.TrimSpace(s))); k {
	case None, Auto, Worktree, Copy:
		return k, nil
	}
	return None, fault.Errorf(fault.ErrInvalid, "isolation %q: give none (work in the folder), auto, worktree or copy", s)
}

// RecordFile is the name of a copy's record in its folder.
const RecordFile = "isolation.json"

// Record describes one session's isolated copy. It is kept as
// RecordFile in the copy's folder and by the kernel in its database.
type Record struct {
	SessionID string `json:"sessionId"`
	Kind      Kind   `json:"kind"`
	// Folder is the folder the session was started on, which Apply
	// writes into (for a worktree, the top of its repository: Repo).
	Folder string `json:"folder"`
	// Dir is the copy's own folder beneath the Isolator's Dir; Workdir is
	// where the session works: Dir/work, or for a worktree of a folder
	// below its repository's top, that folder in Dir/work.
	Dir     string `json:"dir"`
	Workdir string `json:"workdir"`
	// Repo, Branch and Base are a worktree's repository top, branch and
	// base commit: the commit the branch started at, moved by each Apply
	// to the files applied.
	Repo   string `json:"repo,omitempty"`
	Branch string `json:"branch,omitempty"`
	Base   string `json:"base,omitempty"`
	// Uncommitted lists (up to MaxListed) the paths the repository had
	// uncommitted changes in when the worktree was made: they are not in
	// the worktree, which starts at the last commit.
	Uncommitted []string `json:"uncommitted,omitempty"`
	// Note says what the copy lacks that the user should know of
	// (submodules that could not be checked out).
	Note string `json:"note,omitempty"`
	// Owner is the kernel that made the copy: Sweep leaves a copy whose
	// session is not recorded yet alone while its owner lives.
	Owner   string    `json:"owner,omitempty"`
	Created time.Time `json:"created"`
}

// MaxListed bounds Record.Uncommitted.
const MaxListed = 200

// Isolator makes, applies and removes isolated copies beneath Dir.
type Isolator struct {
	// Dir holds one folder per copy, named after its session.
	Dir string
	// FreeSpace returns the bytes free for an unprivileged user on the
	// file system of path; statfs when nil (tests give a smaller disk).
	FreeSpace func(path string) (uint64, error)
	// Git is the git program; "git" on PATH when empty.
	Git string
}

// MakeOptions say what copy to make.
type MakeOptions struct {
	SessionID string
	Folder    string
	Kind      Kind // Auto, Worktree or Copy
	// Branch is a worktree's new branch; "foya/<session id>" when empty.
	// A branch of that name that exists already is refused (ErrConflict).
	Branch string
	Owner  string
	// Skip lists absolute paths a copy leaves out (Foya's own database
	// when it lies in the folder).
	Skip []string
}

// Make makes a session's isolated copy of opts.Folder. Nothing is left
// behind when it fails; a crash part way leaves a folder with its record,
// which Sweep removes.
func (i *Isolator) Make(ctx context.Context, opts MakeOptions) (Record, error) {
	if opts.SessionID == "" || strings.ContainsAny(opts.SessionID, `/\.`) {
		return Record{}, fault.Errorf(fault.ErrInvalid, "isolate: session ID %q is not a folder name", opts.SessionID)
	}
	folder, err := filepath.Abs(opts.Folder)
	if err != nil {
		return Record{}, fault.Errorf(fault.ErrInvalid, "folder %s: %w", opts.Folder, err)
	}
	if fi, err := os.Stat(folder); err != nil || !fi.IsDir() {
		return Record{}, fault.Errorf(fault.ErrInvalid, "folder %s is not there to copy", folder)
	}
	if inside(folder, i.Dir) {
		return Record{}, fault.Errorf(fault.ErrInvalid, "folder %s is in Foya's copies (%s): choose the folder it was copied from", folder, i.Dir)
	}
	g := i.git(folder)
	top, hasHead := g.repo(ctx)
	kind := opts.Kind
	switch kind {
	case Auto:
		kind = Copy
		if top != "" && hasHead {
			kind = Worktree
		}
	case Worktree:
		if top == "" {
			return Record{}, fault.Errorf(fault.ErrInvalid, "folder %s is not in a git repository: a worktree needs one; choose a copy instead", folder)
		}
		if !hasHead {
			return Record{}, fault.Errorf(fault.ErrInvalid, "the git repository %s has no commit yet: a worktree starts at one; make a first commit or choose a copy", top)
		}
	case Copy:
	default:
		return Record{}, fault.Errorf(fault.ErrInvalid, "isolation %q: give auto, worktree or copy", opts.Kind)
	}
	if kind == Copy && opts.Branch != "" {
		return Record{}, fault.Errorf(fault.ErrInvalid, "a branch (%s) is for a worktree, and %s gets a copy (no git repository with a commit): leave the branch out", opts.Branch, folder)
	}
	if kind == Copy && inside(i.Dir, folder) {
		return Record{}, fault.Errorf(fault.ErrInvalid, "folder %s holds Foya's copies (%s): a copy of it would copy them too; choose a folder below it", folder, i.Dir)
	}
	rec := Record{SessionID: opts.SessionID, Kind: kind, Folder: folder, Dir: filepath.Join(i.Dir, opts.SessionID),
		Owner: opts.Owner, Created: time.Now().UTC()}
	if kind == Worktree {
		rec.Branch = opts.Branch
		if rec.Branch == "" {
			rec.Branch = "foya/" + opts.SessionID
		}
		rec.Repo, rec.Folder = top, top
		// Refused before anything is made: the branch's name and whether
		// it exists.
		if err := g.checkBranch(ctx, rec.Branch); err != nil {
			return Record{}, err
		}
	}
	if err := i.start(rec); err != nil {
		return Record{}, err
	}
	if kind == Worktree {
		err = i.makeWorktree(ctx, g, &rec, folder)
	} else {
		err = i.makeCopy(&rec, opts.Skip)
	}
	if err == nil {
		err = writeRecord(rec)
	}
	if err != nil {
		return Record{}, errors.Join(err, i.Remove(context.WithoutCancel(ctx), rec))
	}
	return rec, nil
}

// Remove removes a copy: a worktree with its branch (its commits are lost
// with it: that is what discarding means), or the copied folder. A copy
// already gone is no error.
func (i *Isolator) Remove(ctx context.Context, rec Record) error {
	if rec.Dir == "" || !inside(rec.Dir, i.Dir) || rec.Dir == filepath.Clean(i.Dir) {
		return fmt.Errorf("remove copy %q: not a copy beneath %s", rec.Dir, i.Dir)
	}
	var errs []error
	if rec.Kind == Worktree && rec.Repo != "" {
		g := i.git(rec.Repo)
		if _, err := os.Stat(rec.Repo); err == nil {
			_, _ = g.out(ctx, "worktree", "remove", "--force", filepath.Join(rec.Dir, "work"))
		}
		errs = append(errs, removeAll(rec.Dir))
		if _, err := os.Stat(rec.Repo); err == nil {
			_, _ = g.out(ctx, "worktree", "prune")
			if rec.Branch != "" {
				if _, err := g.out(ctx, "show-ref", "--verify", "--quiet", "refs/heads/"+rec.Branch); err == nil {
					if _, err := g.out(ctx, "branch", "-D", rec.Branch); err != nil {
						errs = append(errs, err)
					}
				}
			}
			_, _ = g.out(ctx, "update-ref", "-d", baseRef(rec.SessionID))
		}
	} else {
		errs = append(errs, removeAll(rec.Dir))
	}
	return errors.Join(errs...)
}

// Load reads the record of session id's copy.
func (i *Isolator) Load(id string) (Record, error) {
	return readRecord(filepath.Join(i.Dir, id))
}

// Listed is a copy on disk with its disk use.
type Listed struct {
	Record
	// Bytes is the disk the copy's folder takes (see Usage); -1 when its
	// record cannot be read.
	Bytes int64 `json:"bytes"`
}

// List returns the copies on disk, with their disk use.
func (i *Isolator) List() ([]Listed, error) {
	ents, err := os.ReadDir(i.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list copies: %w", err)
	}
	var out []Listed
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join(i.Dir, e.Name())
		rec, err := readRecord(dir)
		if err != nil {
			if !strings.HasPrefix(e.Name(), "ses_") {
				continue // not Foya's
			}
			rec = Record{SessionID: e.Name(), Dir: dir}
		}
		n, _ := Usage(dir)
		out = append(out, Listed{Record: rec, Bytes: n})
	}
	return out, nil
}

// Sweep removes the copies whose session is gone: live says whether a
// session is recorded, gone whether a copy's maker is no longer running
// (a copy made a moment ago by a live kernel is not recorded yet). It
// returns the sessions whose copies it removed and runs git worktree
// prune in their repositories.
func (i *Isolator) Sweep(ctx context.Context, live func(id string) (bool, error), gone func(owner string) bool) ([]string, error) {
	ents, err := os.ReadDir(i.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("sweep copies: %w", err)
	}
	var removed []string
	var errs []error
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		ok, err := live(e.Name())
		if err != nil {
			return removed, err
		}
		if ok {
			continue
		}
		dir := filepath.Join(i.Dir, e.Name())
		rec, err := readRecord(dir)
		if err != nil {
			if !strings.HasPrefix(e.Name(), "ses_") {
				continue // not Foya's: left alone
			}
			// No record: a crash between the folder and its record, the
			// first thing written in it.
			rec = Record{SessionID: e.Name(), Dir: dir}
		} else if rec.Owner != "" && !gone(rec.Owner) {
			continue
		}
		rec.Dir = dir
		if err := i.Remove(ctx, rec); err != nil {
			errs = append(errs, err)
			continue
		}
		removed = append(removed, e.Name())
	}
	return removed, errors.Join(errs...)
}

// Usage returns the disk a folder takes, as du counts it: allocated
// blocks of every file once (hard links counted once). A reflinked file
// counts whole, though it shares its blocks with the file it was cloned
// from until either changes: the figure is what the copy would take on
// its own. A worktree's objects are in its repository and not counted.
func Usage(dir string) (int64, error) {
	var total int64
	seen := map[[2]uint64]bool{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // a file removed meanwhile, a folder not readable
		}
		fi, err := d.Info()
		if err != nil {
			return nil
		}
		if n, key, ok := allocated(fi); ok {
			if seen[key] {
				return nil
			}
			seen[key] = true
			total += n
			return nil
		}
		total += fi.Size()
		return nil
	})
	return total, err
}

func writeRecord(rec Record) error {
	b, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	tmp := filepath.Join(rec.Dir, RecordFile+".tmp")
	if err := os.WriteFile(tmp, append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("write the copy's record: %w", err)
	}
	if err := os.Rename(tmp, filepath.Join(rec.Dir, RecordFile)); err != nil {
		return fmt.Errorf("write the copy's record: %w", err)
	}
	return nil
}

func readRecord(dir string) (Record, error) {
	b, err := os.ReadFile(filepath.Join(dir, RecordFile))
	if err != nil {
		return Record{}, fmt.Errorf("read the copy's record: %w", err)
	}
	var rec Record
	if err := json.Unmarshal(b, &rec); err != nil {
		return Record{}, fmt.Errorf("read the copy's record %s: %w", filepath.Join(dir, RecordFile), err)
	}
	rec.Dir = dir
	return rec, nil
}

// removeAll removes dir, making folders writable first where a read-only
// one stops it (a package manager's cache often has them).
func removeAll(dir string) error {
	if err := os.RemoveAll(dir); err == nil {
		return nil
	}
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			_ = os.Chmod(path, 0o700)
		}
		return nil
	})
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("remove copy: %w", err)
	}
	return nil
}

// inside reports whether path is dir or beneath it (both absolute).
func inside(path, dir string) bool { return fspath.Within(dir, path) }

// start makes rec's folder and writes its record there, first of all:
// whatever else a crash leaves, Sweep finds it. A session with a copy
// already is a conflict.
func (i *Isolator) start(rec Record) error {
	if err := os.MkdirAll(i.Dir, 0o700); err != nil {
		return fmt.Errorf("make the copies' folder: %w", err)
	}
	if err := os.Mkdir(rec.Dir, 0o700); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fault.Errorf(fault.ErrConflict, "session %s has a copy already (%s)", rec.SessionID, rec.Dir)
		}
		return fmt.Errorf("make the copy's folder: %w", err)
	}
	if err := writeRecord(rec); err != nil {
		return errors.Join(err, os.RemoveAll(rec.Dir))
	}
	return nil
}
