package sandbox

import (
	"errors"
	"os"
	"sync"
)

// Loopback is a network namespace with only its own loopback, shared by the
// commands whose Policy names it (one per session): a server one of them
// starts on 127.0.0.1 is reachable by the others, never by other sessions'
// commands or the host's programs. It is made on first use and lives until
// Close and the end of the last command in it (see "landlock+netns" in the
// package documentation); where it cannot be made or joined, each command
// gets a network namespace of its own, as without it. No process holds it:
// the runner keeps descriptors of its user and network namespaces, which
// the kernel drops when the runner exits.
//
// A Loopback is safe for concurrent use; the zero value is ready.
type Loopback struct {
	mu     sync.Mutex
	closed bool
	// user and net are the namespaces' descriptors, nil before first use.
	user, net *os.File
	err       error // why the namespaces could not be made, for good
}

// errLoopbackClosed is files' error after Close.
var errLoopbackClosed = errors.New("the shared loopback is closed")

// files returns copies of the descriptors of the user and network
// namespaces (made on first use), which the caller closes, or why there
// are none. They are copied under the lock, so that Close cannot close them
// meanwhile.
func (l *Loopback) files() (user, net *os.File, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case l.closed:
		return nil, nil, errLoopbackClosed
	case l.err != nil:
		return nil, nil, l.err
	case l.user == nil:
		if l.user, l.net, l.err = makeLoopback(); l.err != nil {
			return nil, nil, l.err
		}
	}
	if user, err = dupFile(l.user); err != nil {
		return nil, nil, err
	}
	if net, err = dupFile(l.net); err != nil {
		user.Close()
		return nil, nil, err
	}
	return user, net, nil
}

// Close lets the namespaces go: commands that use them keep them until they
// end; later commands naming l get namespaces of their own.
func (l *Loopback) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = true
	var err error
	for _, f := range []*os.File{l.user, l.net} {
		if f != nil {
			err = errors.Join(err, f.Close())
		}
	}
	l.user, l.net = nil, nil
	return err
}
