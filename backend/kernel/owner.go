package kernel

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"foya/backend/engine"
	"foya/backend/lockfile"
	"foya/backend/store"
)

// An owner is a kernel's claim on the runs it drives. Each kernel holds an
// exclusive lock on its own lock file in the database's owners folder,
// <db>.owners/<name>.lock, for as long as it lives; the operating system
// drops the lock when the process ends, however it ends. A run records its
// owner's ID, and recovery marks a run interrupted only when it can take
// that owner's lock: then the owner is gone. Process IDs play no part,
// because they differ across PID namespaces (a sandboxed command sees
// other numbers) and are recycled.
//
// An owner ID is the lock file's name, "own_" and a time-ordered random
// part, followed where the system tells by "~" and the lock file's
// identity (device and inode), so a lock file that was removed and made
// anew by someone else is not taken for the owner's.
type owner struct {
	id   string
	name string // the lock file's name without .lock: id up to "~"
	dir  string
	lock *lockfile.File
}

const ownerPrefix = "own_"

// OwnersDir returns the folder next to a database where the kernels using
// it keep their lock files. Like the database itself, a sandboxed command
// must not be able to change it.
func OwnersDir(dbPath string) string { return dbPath + ".owners" }

// claimOwner makes this kernel's lock file in the owners folder of the
// database at dbPath and takes its lock.
func claimOwner(dbPath string) (*owner, error) {
	dir := OwnersDir(dbPath)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("run owners folder: %w", err)
	}
	name := engine.NewID(strings.TrimSuffix(ownerPrefix, "_"))
	// Made locked: another kernel's sweep opens and locks every owner's
	// file to learn whether it is gone, and would take a new one's
	// between its creation and its lock.
	l, err := lockfile.CreateNew(filepath.Join(dir, name+".lock"), lockfile.Exclusive)
	if err != nil {
		return nil, fmt.Errorf("run owner: %w", err)
	}
	id := name
	if fid := l.ID(); fid != "" {
		id += "~" + fid
	}
	return &owner{id: id, name: name, dir: dir, lock: l}, nil
}

// claimTries and claimPause bound how long claim waits for an owner's lock
// that is held. A process the owner was starting when it died holds a copy
// of the lock (an flock lock belongs to the open file, which fork copies)
// until it executes its program, a moment later: taking that for a live
// owner left the run running and its calls unanswered until the next start
// (the crash harness, tests/crash, restarts at once and found it). A live
// owner costs a start claimTries pauses, 100 ms in all.
const claimTries = 20

var claimPause = func() { time.Sleep(5 * time.Millisecond) }

// claim takes the lock of the owner that wrote id, if that owner is gone.
// It reports gone only when it holds the lock: the caller recovers the
// owner's runs, then calls release(true) to remove the lock file, or
// release(false) to keep it. Runs written before owners held locks (a
// process ID, or no owner) have nobody to ask and count as gone. A lock
// file that is missing or was replaced does not prove anything: its runs
// are left alone.
func (o *owner) claim(id string) (release func(remove bool), gone bool) {
	none := func(bool) {}
	if !strings.HasPrefix(id, ownerPrefix) {
		return none, true
	}
	if id == o.id {
		return none, false
	}
	name, fid, _ := strings.Cut(id, "~")
	if !validOwnerName(name) {
		return none, false
	}
	path := filepath.Join(o.dir, name+".lock")
	l, err := lockfile.Open(path, lockfile.Exclusive)
	for try := 1; errors.Is(err, lockfile.ErrLocked) && try < claimTries; try++ {
		claimPause()
		l, err = lockfile.Open(path, lockfile.Exclusive)
	}
	if err != nil {
		return none, false
	}
	if !l.Current() || fid != "" && l.ID() != fid {
		l.Close()
		return none, false
	}
	return func(remove bool) {
		if remove {
			l.Remove()
		} else {
			l.Close()
		}
	}, true
}

// sweep removes the lock files of owners that are gone and drive no run
// any more (a crash between runs leaves them), so the folder does not grow
// by one file per start.
func (o *owner) sweep(ctx context.Context, st *store.Store) error {
	entries, err := os.ReadDir(o.dir)
	if err != nil {
		return fmt.Errorf("run owners folder: %w", err)
	}
	var errs []error
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".lock")
		if !ok || !validOwnerName(name) || name == o.name {
			continue
		}
		l, err := lockfile.Open(filepath.Join(o.dir, e.Name()), lockfile.Exclusive)
		if err != nil {
			continue // alive, or gone already
		}
		// Held now: the owner is gone. Its runs were recovered before the
		// sweep; one that is still marked running keeps the file, so a
		// later start can try again.
		busy, err := ownsRunning(ctx, st, name)
		if err != nil || busy {
			l.Close()
			errs = append(errs, err)
			continue
		}
		errs = append(errs, l.Remove())
	}
	return errors.Join(errs...)
}

// release gives up the kernel's claim: the lock file goes when no run of
// this kernel is still marked running, else it stays for recovery to
// find unlocked.
func (o *owner) release(ctx context.Context, st *store.Store) error {
	if o.lock == nil {
		return nil // released already
	}
	l := o.lock
	o.lock = nil
	busy, err := ownsRunning(ctx, st, o.id)
	if err != nil || busy {
		return errors.Join(err, l.Close())
	}
	return l.Remove()
}

// ownsRunning reports whether a run whose owner ID starts with the owner
// name is still marked running.
func ownsRunning(ctx context.Context, st *store.Store, id string) (bool, error) {
	name, _, _ := strings.Cut(id, "~")
	runs, err := st.RunningRuns(ctx)
	if err != nil {
		return false, err
	}
	for _, r := range runs {
		if n, _, _ := strings.Cut(r.Owner, "~"); n == name {
			return true, nil
		}
	}
	return false, nil
}

func validOwnerName(name string) bool {
	rest, ok := strings.CutPrefix(name, ownerPrefix)
	if !ok || rest == "" || len(rest) > 64 {
		return false
	}
	for _, c := range rest {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// goneOrMissing reports whether the kernel that wrote id is gone: its
// lock can be taken, or its lock file is not there any more (a later start
// removed it: sweep). Used for what a kernel leaves on disk besides runs
// (isolated copies), where a lock file removed by hand is no reason to
// keep a copy for ever.
func (o *owner) goneOrMissing(id string) bool {
	if id == o.id {
		return false
	}
	release, gone := o.claim(id)
	release(false)
	if gone {
		return true
	}
	name, _, _ := strings.Cut(id, "~")
	if !validOwnerName(name) {
		return true
	}
	_, err := os.Stat(filepath.Join(o.dir, name+".lock"))
	return errors.Is(err, fs.ErrNotExist)
}
