package shell

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

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
	// Granted returns the folders the user allowed a session's sandboxed
	// commands to write besides the working directory and the session's
	// temp folder; nil means none.
	Granted func(sessionID string) []string
	// Environ returns the environment commands start from, already
	// filtered of secrets; nil means this process's environment filtered
	// by secret.Filter's default rules.
	Environ func() []string
}

// Shell is what the shell tools share: each session's background commands
// and temp folder. One Shell serves a kernel; its background commands
// outlive runs and die with their session or with Close.
type Shell struct {
	opts   Options
	ctx    context.Context // lives until Close: background commands run under it
	cancel context.CancelFunc

	mu       sync.Mutex
	closed   bool
	sessions map[string]*session
	temps    map[string]string // session ID → temp folder created by this Shell
}

// session holds one session's background commands.
type session struct {
	seq  int
	jobs []*job // oldest first
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
	return &Shell{opts: o, ctx: ctx, cancel: cancel, sessions: map[string]*session{}, temps: map[string]string{}}
}

// Tools returns bash, bash_output and bash_kill, sharing s.
func (s *Shell) Tools() []tools.Tool {
	return []tools.Tool{bashTool{s}, outputTool{s}, killTool{s}}
}

// ErrClosed is returned for commands started after Close.
var ErrClosed = errors.New("the shell is shut down: Foya is exiting")

// TempDir returns the session's temp folder, creating it (mode 0700) on
// first use. A folder of that name that is not a plain folder owned by
// this user is refused, so nobody can plant it beforehand.
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
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", fmt.Errorf("session temp folder: %w", err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return "", fmt.Errorf("session temp folder: %w", err)
	}
	if !fi.IsDir() || !ownedByMe(fi) {
		return "", fmt.Errorf("session temp folder %s: exists and is not a folder of this user", dir)
	}
	s.temps[sessionID] = dir
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
// trees) and removes its temp folder (spec B3). Commands are gone when it
// returns.
func (s *Shell) DeleteSession(sessionID string) error {
	s.mu.Lock()
	sess := s.sessions[sessionID]
	delete(s.sessions, sessionID)
	dir, made := s.temps[sessionID]
	delete(s.temps, sessionID)
	s.mu.Unlock()
	var errs []error
	if sess != nil {
		errs = append(errs, killAll(sess.jobs))
	}
	if !made && validID(sessionID) {
		// Created by an earlier process of Foya.
		dir = filepath.Join(s.opts.TempRoot, "foya-"+sessionID)
		if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() || !ownedByMe(fi) {
			dir = ""
		}
	}
	if dir != "" {
		errs = append(errs, removeAll(dir))
	}
	return errors.Join(errs...)
}

// Close ends every background command (whole trees, SIGTERM then SIGKILL
// after a grace period) and removes the temp folders this Shell created.
// Later commands are refused. It is safe to call more than once.
func (s *Shell) Close() error {
	s.mu.Lock()
	s.closed = true
	var jobs []*job
	for _, sess := range s.sessions {
		jobs = append(jobs, sess.jobs...)
	}
	s.sessions = map[string]*session{}
	temps := s.temps
	s.temps = map[string]string{}
	s.mu.Unlock()
	s.cancel()
	errs := []error{killAll(jobs)}
	for _, dir := range temps {
		errs = append(errs, removeAll(dir))
	}
	return errors.Join(errs...)
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
