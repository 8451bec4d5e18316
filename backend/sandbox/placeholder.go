package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// A read-only folder of Policy.ReadOnly (a workspace's .foya or .agents)
// must exist while a command runs, so that the command cannot make it with
// its own content: the mount namespace puts a read-only bind mount on it,
// Landlock carves it out, Seatbelt names it. When it is missing, Start makes
// it empty, and removes it again once no command relies on it, so that the
// user's project is left without folders nobody asked for.
//
// Removing it while another command relies on it would lift that command's
// protection (rmdir of a folder that is a mount point in another mount
// namespace detaches that mount), so every command holds each of its
// read-only folders, existing or made, with a shared flock(2) on the folder
// itself until it is done, and the maker removes the folder only when it
// can take the exclusive lock and the folder is still the one it made and
// is empty (rmdir refuses one that is not). Commands of this process share
// one hold per folder with a count; other Foya processes on the same
// project hold theirs with their own shared lock, and then the maker leaves
// the folder where it is (an empty folder is left behind, never a command
// unprotected). A folder that existed before is never removed.
var placeholders = struct {
	sync.Mutex
	m map[string]*placeholder // by the cleaned path the policy gave
}{m: map[string]*placeholder{}}

// placeholder is this process's hold on one read-only folder.
type placeholder struct {
	key   string
	canon string
	f     *os.File // open on the folder, holding the shared lock
	refs  int
	made  bool // this process made the folder: it may remove it
}

// holdAttempts bounds the retries when the folder is removed by another
// process between its creation (or lookup) and the lock.
const holdAttempts = 10

// holdReadOnly makes the read-only folder dir if it is missing and holds it
// until release is called, which removes it when this process made it and
// no command relies on it any more. canon is its canonical path.
func holdReadOnly(dir string) (canon string, release func(), err error) {
	placeholders.Lock()
	defer placeholders.Unlock()
	if p := placeholders.m[dir]; p != nil && p.current() {
		p.refs++
		return p.canon, func() { p.release() }, nil
	}
	for range holdAttempts {
		made := false
		switch err := os.Mkdir(dir, 0o755); {
		case err == nil:
			made = true
		case errors.Is(err, os.ErrExist):
		case errors.Is(err, os.ErrNotExist):
			// Its parent is missing too (a policy naming a deeper
			// folder): the parents made stay.
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return "", nil, fmt.Errorf("read-only directory: %w", err)
			}
			made = true
		default:
			return "", nil, fmt.Errorf("read-only directory: %w", err)
		}
		canon, err := canonicalDir(dir)
		if err != nil {
			return "", nil, fmt.Errorf("read-only directory: %w", err)
		}
		f, err := os.Open(canon)
		if err != nil {
			return "", nil, fmt.Errorf("read-only directory: %w", err)
		}
		if err := lockDir(f, false); err != nil {
			// No lock on this file system: hold it unlocked, and never
			// remove it (another process may rely on it unseen).
			made = false
		}
		p := &placeholder{key: dir, canon: canon, f: f, refs: 1, made: made}
		if !p.current() {
			f.Close() // removed by its maker meanwhile: make it again
			continue
		}
		placeholders.m[dir] = p
		return canon, func() { p.release() }, nil
	}
	return "", nil, fmt.Errorf("read-only directory %s: removed again and again while being prepared", dir)
}

// current reports whether the folder's path still names the held folder.
func (p *placeholder) current() bool {
	a, err := p.f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Lstat(p.canon)
	return err == nil && os.SameFile(a, b)
}

// release drops one command's hold; the last one removes the folder if
// this process made it, nobody else holds it and it is empty.
func (p *placeholder) release() {
	placeholders.Lock()
	defer placeholders.Unlock()
	if p.refs--; p.refs > 0 {
		return
	}
	if placeholders.m[p.key] == p {
		delete(placeholders.m, p.key)
	}
	remove := p.made && lockDir(p.f, true) == nil && p.current()
	if remove && !removeDirWhileOpen {
		p.f.Close()
	}
	if remove {
		// Fails, and keeps the folder, when something was put in it.
		_ = os.Remove(filepath.Clean(p.canon))
	}
	p.f.Close()
}
