package shell

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"foya/backend/lockfile"
	"foya/backend/sandbox"
	"foya/backend/secret"
	"foya/backend/tools"
)

// Tool names. They and their arguments are a contract with the model.
const (
	BashName   = "bash"
	OutputName = "bash_output"
	KillName   = "bash_kill"
)

// Options configure a Shell. The zero value is ready to use.
type Options struct {
	// TempRoot is where session temp folders are created; empty means
	// os.TempDir().
	TempRoot string
	// Probe reports what can confine commands here; nil means sandbox.Probe.
	Probe func() sandbox.Capability
	// Granter keeps what the user allowed a session's sandboxed commands
	// besides the working directory and the session's temp folder: folders
	// to write, the network, for the session or the next command (see
	// Grants); nil allows nothing more. A grant never uncovers a Hidden
	// path nor a read-only one (.git, .foya, Own) inside a granted folder.
	Granter Granter
	// Database lists paths sandboxed commands may neither read nor write,
	// whatever the user allows: Foya's database with its -wal, -shm and
	// -journal files: a command that wrote it could switch its own
	// session's mode or mark a live run interrupted.
	Database []string
	// Private lists more paths hidden like the credential stores, which
	// Readable may uncover: Foya's data folder.
	Private []string
	// Own lists Foya's data folders and the files it reads back as
	// configuration (its MCP servers, provider keys, the user's rules):
	// where they exist inside a folder a command may write, they stay
	// read-only, even when Readable uncovers them.
	Own []string
	// Readable returns the paths the user allows sandboxed commands to
	// read although they are hidden by default (a credential store, the
	// data folder); nil means none.
	Readable func() []string
	// Environ returns the environment commands start from, already
	// filtered of secrets; nil means this process's environment filtered
	// by secret.Filter's default rules.
	Environ func() []string
	// Capture records what commands change in the workspace, so that they
	// can be reviewed and reverted like the file tools' changes; nil
	// records nothing.
	Capture Capture
	// Jobs stores the background commands whose changes Capture records,
	// so that a kernel started after a crash knows which were alive;
	// nil stores nothing.
	Jobs Jobs
	// Changed, if set, is told a background command as it is now, with
	// what changed (event.BackgroundStarted, BackgroundOutput,
	// BackgroundEnded): when it starts, while it prints (at most every
	// OutputEvery, and never leaving its last output unannounced), and
	// when it ends, killed or not. Calls for one command come one at a
	// time, started first and ended last; Changed must not block for long
	// nor call back into the Shell.
	Changed func(change string, b Background)
}

// OutputEvery is the least time between two output changes of one
// background command (Options.Changed): a command that prints without end
// costs a front end two updates a second.
const OutputEvery = 500 * time.Millisecond

// Jobs stores background commands, so that recovery after a crash knows
// which were alive: Started when one starts, returning its row's ID, and
// Ended once its changes are captured.
type Jobs interface {
	Started(ctx context.Context, sessionID, runID, callID string) (string, error)
	Ended(ctx context.Context, id string) error
}

// Capture is what the shell needs to record a command's changes: Before
// brings the session's record of the workspace up to date before the
// command runs (what changed meanwhile was not the command's doing, or,
// with live set, was the live background command's, and is recorded
// against its call), After returns what changed since, as File Changes,
// and a note on what could not be recorded whole. Record keeps the changes
// of a background command, found when it ends, against the call that
// started it. The shell calls them holding the session's change lock
// (tools.RunContext.LockChanges, Locker).
type Capture interface {
	Before(ctx context.Context, sessionID, workdir string, live *Live) error
	After(ctx context.Context, sessionID, workdir string) ([]tools.FileChange, string, error)
	Record(ctx context.Context, sessionID, runID, callID string, changes []tools.FileChange) error
}

// Live is the background command a look before a command gives what
// changed since the last look to: the call that started it, and whether
// others are live too (then Foya cannot tell which made a change, and the
// records are marked unconfirmed).
type Live struct {
	RunID, CallID string
	Others        bool
}

// Locker is the optional capability of a Capture that takes the session's
// change lock for a background command's capture at its end, which runs
// outside any call (engine.LockChanges): from before its look until its
// changes are recorded.
type Locker interface {
	Lock(ctx context.Context, sessionID string) (unlock func(), err error)
}

// Shell is what the shell tools share: each session's background commands
// and temp folder. One Shell serves a kernel; its background commands
// outlive runs and die with their session or with Close.
type Shell struct {
	opts   Options
	ctx    context.Context // lives until Close: background commands run under it
	cancel context.CancelFunc

	wg sync.WaitGroup // background commands' endings (quarantine, capture)

	mu       sync.Mutex
	closed   bool
	sessions map[string]*session
	temps    map[string]*temp // session ID → temp folder this Shell uses
}

// temp is a session temp folder in use. Its users (Shells, in any process)
// hold a shared lock on the lock file beside it, foya-<session ID>.lock,
// for as long as they use it; the folder is removed only by whoever can
// take that lock exclusively, so a live Shell's folder is never removed
// under it, and a crashed Shell's is, at the next Sweep.
type temp struct {
	dir  string
	lock *lockfile.File
}

// session holds one session's background commands, and the network
// namespace its sandboxed commands share (see Shell.loopback).
type session struct {
	seq  int
	jobs []*job // oldest first
	loop *sandbox.Loopback
}

// running reports whether one of the session's background commands runs.
func (sess *session) running() bool {
	return slices.ContainsFunc(sess.jobs, func(j *job) bool { _, done := j.proc.Result(); return !done })
}

// loopback returns the loopback-only network namespace the session's
// sandboxed commands share, so that a server a background command started
// on 127.0.0.1 is reachable by the session's later commands and by no
// one else's: always for a background command, and for another one while
// a background command of the session runs. Without one running, nothing
// of the session's outlives a call, and a command's own namespace costs
// it less (joining one starts nsenter and unshare). Nil when the Shell is
// closed.
func (s *Shell) loopback(sessionID string, background bool) *sandbox.Loopback {
	s.mu.Lock()
	defer s.mu.Unlock()
	sess := s.sessions[sessionID]
	if s.closed || !background && (sess == nil || !sess.running()) {
		return nil
	}
	if sess == nil {
		sess = &session{}
		s.sessions[sessionID] = sess
	}
	if sess.loop == nil {
		sess.loop = &sandbox.Loopback{}
	}
	return sess.loop
}

// New returns a Shell.
func New(o Options) *Shell {
	if o.Probe == nil {
		o.Probe = sandbox.Probe
	}
	if o.TempRoot == "" {
		o.TempRoot = os.TempDir()
	}
	if o.Environ == nil {
		o.Environ = func() []string {
			env, _ := secret.Filter(os.Environ(), secret.Policy{}, nil)
			return env
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Shell{opts: o, ctx: ctx, cancel: cancel, sessions: map[string]*session{}, temps: map[string]*temp{}}
}

// Tools returns bash, bash_output and bash_kill, sharing s.
func (s *Shell) Tools() []tools.Tool {
	return []tools.Tool{bashTool{s}, outputTool{s}, killTool{s}}
}

// ErrClosed is returned for commands started after Close.
var ErrClosed = errors.New("the shell is shut down: Foya is exiting")

// TempDir returns the session's temp folder, creating it (mode 0700) on
// first use. A folder or lock file of that name that is not this user's
// plain folder or file is refused, so nobody can plant it beforehand.
func (s *Shell) TempDir(sessionID string) (string, error) {
	if !validID(sessionID) {
		return "", fmt.Errorf("session ID %q: want letters, digits, _ or -", sessionID)
	}
	dir := filepath.Join(s.opts.TempRoot, "foya-"+sessionID)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return "", ErrClosed
	}
	if t := s.temps[sessionID]; t != nil {
		return t.dir, nil
	}
	// The lock first: a Sweep that holds it exclusively is removing the
	// folder, and Create waits for it to finish.
	l, err := lockfile.Create(dir+".lock", lockfile.Shared|lockfile.Wait)
	if err != nil {
		return "", fmt.Errorf("session temp folder: %w", err)
	}
	if fi, err := l.Stat(); err != nil || !fi.Mode().IsRegular() || !ownedByMe(fi) {
		l.Close()
		return "", fmt.Errorf("session temp folder lock %s: exists and is not a file of this user", dir+".lock")
	}
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		l.Close()
		return "", fmt.Errorf("session temp folder: %w", err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		l.Close()
		return "", fmt.Errorf("session temp folder: %w", err)
	}
	if !fi.IsDir() || !ownedByMe(fi) {
		l.Close()
		return "", fmt.Errorf("session temp folder %s: exists and is not a folder of this user", dir)
	}
	s.temps[sessionID] = &temp{dir: dir, lock: l}
	return dir, nil
}

func validID(id string) bool {
	if id == "" || len(id) > 128 {
		return false
	}
	for _, c := range id {
		if !(c == '_' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// DeleteSession ends the session's background commands (their whole
// trees) and removes its temp folder (spec B3), even when another Shell
// uses it too: the session is gone. Commands are gone when it returns.
func (s *Shell) DeleteSession(sessionID string) error {
	s.mu.Lock()
	sess := s.sessions[sessionID]
	delete(s.sessions, sessionID)
	t := s.temps[sessionID]
	delete(s.temps, sessionID)
	s.mu.Unlock()
	var errs []error
	if sess != nil {
		for _, j := range sess.jobs {
			j.mu.Lock()
			j.dropped = true // its changes belong to no session now
			j.mu.Unlock()
		}
		errs = append(errs, killAll(sess.jobs))
		if sess.loop != nil {
			errs = append(errs, sess.loop.Close())
		}
	}
	if t != nil {
		t.lock.Close()
	}
	if validID(sessionID) {
		errs = append(errs, s.removeTemp(sessionID, true))
	}
	return errors.Join(errs...)
}

// Close ends every background command (whole trees, SIGTERM then SIGKILL
// after a grace period) and removes the temp folders this Shell used that
// no other Shell uses. Later commands are refused. It is safe to call more
// than once.
func (s *Shell) Close() error {
	s.mu.Lock()
	s.closed = true
	var jobs []*job
	var loops []*sandbox.Loopback
	for _, sess := range s.sessions {
		jobs = append(jobs, sess.jobs...)
		if sess.loop != nil {
			loops = append(loops, sess.loop)
		}
	}
	s.sessions = map[string]*session{}
	temps := s.temps
	s.temps = map[string]*temp{}
	s.mu.Unlock()
	s.cancel()
	errs := []error{killAll(jobs)}
	for _, l := range loops {
		errs = append(errs, l.Close())
	}
	s.wg.Wait()
	for id, t := range temps {
		t.lock.Close()
		errs = append(errs, s.removeTemp(id, false))
	}
	return errors.Join(errs...)
}

// Sweep removes the session temp folders under TempRoot that no live Shell
// uses, in this process or any other: what a crash (kill -9 included) left
// behind. A folder is in use while a Shell holds its lock; the operating
// system drops the lock with the process. Folders without a lock file
// beside them are not Foya's (or predate the locks) and are left alone.
func (s *Shell) Sweep() error {
	entries, err := os.ReadDir(s.opts.TempRoot)
	if err != nil {
		return fmt.Errorf("sweep session temp folders: %w", err)
	}
	var errs []error
	for _, e := range entries {
		id, ok := strings.CutPrefix(e.Name(), "foya-")
		id, lock := strings.CutSuffix(id, ".lock")
		if !ok || !lock || !validID(id) {
			continue
		}
		s.mu.Lock()
		_, mine := s.temps[id]
		s.mu.Unlock()
		if !mine {
			errs = append(errs, s.removeTemp(id, false))
		}
	}
	return errors.Join(errs...)
}

// removeTemp removes a session's temp folder and its lock file once it
// holds the lock exclusively; a folder
// another Shell holds is left to it, unless force says so (DeleteSession:
// the session is gone, whoever else used it), and so is a folder without a
// lock file (made before the locks). Sweep and Close never touch a folder
// they hold no lock on.
func (s *Shell) removeTemp(sessionID string, force bool) error {
	dir := filepath.Join(s.opts.TempRoot, "foya-"+sessionID)
	l, err := lockfile.Open(dir+".lock", lockfile.Exclusive)
	switch {
	case (errors.Is(err, lockfile.ErrLocked) || errors.Is(err, fs.ErrNotExist)) && !force:
		return nil
	case errors.Is(err, lockfile.ErrLocked):
		l = nil
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("session temp folder: %w", err)
	}
	if l != nil {
		if fi, err := l.Stat(); err != nil || !l.Current() || !ownedByMe(fi) {
			l.Close() // replaced meanwhile, or not ours
			return nil
		}
		defer l.Remove() // after the folder: whoever waits on it then starts afresh
	}
	if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() || !ownedByMe(fi) {
		return nil
	}
	return removeAll(dir)
}

// killAll kills jobs at once and waits until all are done.
func killAll(jobs []*job) error {
	errs := make([]error, len(jobs))
	var wg sync.WaitGroup
	for i, j := range jobs {
		wg.Go(func() { errs[i] = j.kill() })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// removeAll removes dir, making read-only folders inside it writable when
// that is what stops it (module caches are read-only).
func removeAll(dir string) error {
	if err := os.RemoveAll(dir); err == nil {
		return nil
	}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && d.Type()&fs.ModeSymlink == 0 {
			os.Chmod(p, 0o700)
		}
		return nil
	})
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("remove session temp folder: %w", err)
	}
	return nil
}
