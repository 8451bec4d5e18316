package isolate

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"foya/backend/fault"
	"foya/backend/fspath"
)

// ForkOptions say what copy Fork makes.
type ForkOptions struct {
	// SessionID is the fork's session; From is the copy of the session
	// it was forked from.
	SessionID string
	From      Record
	Owner     string
}

// Fork makes a forked session's isolated copy from the copy of the session
// it was forked from, of the same kind and with that copy's files as they
// are now: for a copy, its base/ and work/ copied (cloned where the file
// system can); for a worktree, a new worktree on a branch of its own
// ("foya/<session id>") at the parent's base commit, holding every file of
// the parent's worktree (uncommitted, untracked and ignored ones too; the
// submodules checked out anew). The fork's base is the parent's, so
// applying the fork brings back what differs from there. Nothing is left
// behind when it fails; a crash part way leaves a folder with its record
// (written first), which Sweep removes as it does Make's.
func (i *Isolator) Fork(ctx context.Context, opts ForkOptions) (Record, error) {
	from := opts.From
	if opts.SessionID == "" || strings.ContainsAny(opts.SessionID, `/\.`) {
		return Record{}, fault.Errorf(fault.ErrInvalid, "isolate: session ID %q is not a folder name", opts.SessionID)
	}
	if from.Kind != Worktree && from.Kind != Copy {
		return Record{}, fault.Errorf(fault.ErrInvalid, "fork a copy: session %s's copy is of kind %q, not a worktree or a copy", from.SessionID, from.Kind)
	}
	fromWork := filepath.Join(from.Dir, "work")
	if fi, err := os.Stat(fromWork); err != nil || !fi.IsDir() {
		return Record{}, fault.Errorf(fault.ErrConflict, "session %s's copy %s is not there: there are no files to fork", from.SessionID, from.Dir)
	}
	rel, ok := fspath.Rel(fromWork, from.Workdir)
	if !ok {
		return Record{}, fmt.Errorf("fork a copy: session %s works in %s, outside its copy %s", from.SessionID, from.Workdir, fromWork)
	}
	rec := Record{SessionID: opts.SessionID, Kind: from.Kind, Folder: from.Folder, Dir: filepath.Join(i.Dir, opts.SessionID),
		Repo: from.Repo, Base: from.Base, Uncommitted: from.Uncommitted, Note: from.Note, Owner: opts.Owner, Created: time.Now().UTC()}
	var g gitRun
	if rec.Kind == Worktree {
		if _, err := os.Stat(from.Repo); err != nil {
			return Record{}, fault.Errorf(fault.ErrConflict, "the repository %s of session %s's worktree is not there: a fork's worktree is made in it", from.Repo, from.SessionID)
		}
		g = i.git(from.Repo)
		if _, err := g.out(ctx, "rev-parse", "--verify", "--quiet", from.Base+"^{commit}"); err != nil {
			return Record{}, fault.Errorf(fault.ErrConflict, "the base commit %s of session %s's worktree is not in %s: a fork's worktree starts there", from.Base, from.SessionID, from.Repo)
		}
		rec.Branch = "foya/" + opts.SessionID
		rec.Note = "" // said again below if the fork's submodules fail too
		if err := g.checkBranch(ctx, rec.Branch); err != nil {
			return Record{}, err
		}
	}
	// What a worktree's copy leaves out: its link to the repository, and
	// its submodules (their own links point into the parent's worktree's
	// git folder, which goes with it).
	var skip []string
	if rec.Kind == Worktree {
		skip = append(skip, filepath.Join(fromWork, ".git"))
		subs, err := submodules(ctx, i.git(fromWork))
		if err != nil {
			return Record{}, err
		}
		for _, s := range subs {
			skip = append(skip, filepath.Join(fromWork, filepath.FromSlash(s)))
		}
	}
	if err := i.start(rec); err != nil {
		return Record{}, err
	}
	err := i.forkFiles(ctx, g, &rec, from, skip)
	if err == nil {
		rec.Workdir = filepath.Join(rec.Dir, "work", rel)
		err = writeRecord(rec)
	}
	if err != nil {
		return Record{}, errors.Join(err, i.Remove(context.WithoutCancel(ctx), rec))
	}
	return rec, nil
}

// forkFiles fills the fork's copy rec from the parent's copy from.
func (i *Isolator) forkFiles(ctx context.Context, g gitRun, rec *Record, from Record, skip []string) error {
	fromWork, work := filepath.Join(from.Dir, "work"), filepath.Join(rec.Dir, "work")
	sources := []string{fromWork}
	if rec.Kind == Copy {
		sources = append(sources, filepath.Join(from.Dir, "base"))
	}
	if !canClone(fromWork, rec.Dir) {
		var need int64 = Headroom
		for _, src := range sources {
			size, files, err := treeSize(src, skip)
			if err != nil {
				return err
			}
			need += size + 4096*files
		}
		free, err := i.freeSpace(rec.Dir)
		if err != nil {
			return fmt.Errorf("free space for the copy: %w", err)
		}
		if uint64(need) > free {
			return fault.Errorf(fault.ErrUnavailable, "a copy of session %s's files for the fork needs about %s and the disk holding %s has %s free: free some space, or fork with the files shared (a session that works in the folder)",
				from.SessionID, human(need), filepath.Dir(rec.Dir), human(int64(free)))
		}
	}
	if rec.Kind == Copy {
		if err := copyTree(filepath.Join(from.Dir, "base"), filepath.Join(rec.Dir, "base"), nil); err != nil {
			return err
		}
		return copyTree(fromWork, work, skip)
	}
	// A worktree on its own branch at the parent's base, checked out
	// empty, then filled with the parent's files; its index is the base's,
	// so git sees the parent's changes as the fork's.
	if _, err := g.out(ctx, "worktree", "add", "--quiet", "--no-checkout", "-b", rec.Branch, work, rec.Base); err != nil {
		return fmt.Errorf("make the worktree: %w", err)
	}
	if err := writeRecord(*rec); err != nil { // the branch exists now: Remove must delete it
		return err
	}
	if err := copyTree(fromWork, work, skip); err != nil {
		return err
	}
	wt := gitRun{bin: g.bin, dir: work}
	if _, err := wt.out(ctx, "read-tree", "HEAD"); err != nil {
		return fmt.Errorf("make the worktree: %w", err)
	}
	if _, err := os.Stat(filepath.Join(work, ".gitmodules")); err == nil {
		if _, err := wt.outIn(ctx, SubmoduleTimeout, nil, "submodule", "update", "--init", "--recursive"); err != nil {
			rec.Note = fmt.Sprintf("the repository's submodules could not be checked out in the worktree (%v): their folders are empty there, and Apply leaves submodules alone; run git submodule update --init in %s to try again", err, work)
		}
	}
	return nil
}

// submodules lists the paths of a worktree's submodules (gitlinks in its
// index).
func submodules(ctx context.Context, g gitRun) ([]string, error) {
	out, err := g.out(ctx, "ls-files", "--stage", "-z")
	if err != nil {
		return nil, fmt.Errorf("fork a copy: list the worktree's files: %w", err)
	}
	var subs []string
	for _, e := range strings.Split(string(out), "\x00") {
		if meta, path, ok := strings.Cut(e, "\t"); ok && strings.HasPrefix(meta, "160000 ") {
			subs = append(subs, path)
		}
	}
	return subs, nil
}
