package isolate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"foya/backend/fault"
)

// GitTimeout bounds one git command (a submodule checkout has
// SubmoduleTimeout).
const (
	GitTimeout       = 2 * time.Minute
	SubmoduleTimeout = 10 * time.Minute
)

// gitRun runs git in one folder.
type gitRun struct {
	bin, dir string
	env      []string // added to the environment
}

func (i *Isolator) git(dir string) gitRun {
	bin := i.Git
	if bin == "" {
		bin = "git"
	}
	return gitRun{bin: bin, dir: dir}
}

// exitError is a git command that ran and failed: its status and stderr.
type exitError struct {
	args   []string
	code   int
	stderr string
}

func (e *exitError) Error() string {
	msg := e.stderr
	if msg == "" {
		msg = fmt.Sprintf("exit status %d", e.code)
	}
	return fmt.Sprintf("git %s: %s", strings.Join(e.args, " "), msg)
}

// out runs git with args and returns its standard output; an error when it
// could not run or exited non-zero (an *exitError then).
func (g gitRun) out(ctx context.Context, args ...string) ([]byte, error) {
	return g.outIn(ctx, GitTimeout, nil, args...)
}

func (g gitRun) outIn(ctx context.Context, timeout time.Duration, stdin []byte, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	// No hook and no fsmonitor program runs: a repository's config can
	// name them inside its files (core.hooksPath=.husky), which a session
	// may have changed, and Foya's git runs outside the sandbox.
	full := append([]string{"--no-pager", "-C", g.dir, "-c", "core.quotePath=false", "-c", "core.fsmonitor=false",
		"-c", "core.hooksPath=" + os.DevNull}, args...)
	cmd := exec.CommandContext(ctx, g.bin, full...)
	cmd.Env = append(gitEnv(os.Environ()), g.env...)
	cmd.WaitDelay = 2 * time.Second
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded):
		return nil, fault.Errorf(fault.ErrUnavailable, "git %s in %s took longer than %s: stopped", args[0], g.dir, timeout)
	case errors.As(err, &ee):
		return stdout.Bytes(), &exitError{args: args, code: ee.ExitCode(), stderr: strings.TrimSpace(stderr.String())}
	case errors.Is(err, exec.ErrNotFound):
		return nil, fault.Errorf(fault.ErrUnavailable, "git is not installed (not found on PATH): install git to isolate a session in a worktree")
	case err != nil:
		return nil, fmt.Errorf("run git %s: %w", args[0], err)
	}
	return stdout.Bytes(), nil
}

// gitEnv is env without Foya's own GIT_* variables (GIT_DIR and its kin
// would point git elsewhere), with git kept from prompting and paging.
func gitEnv(env []string) []string {
	out := make([]string, 0, len(env)+2)
	for _, kv := range env {
		if !strings.HasPrefix(strings.ToUpper(kv), "GIT_") || strings.HasPrefix(kv, "GIT_CONFIG_") {
			out = append(out, kv)
		}
	}
	return append(out, "GIT_TERMINAL_PROMPT=0", "GIT_PAGER=cat")
}

// repo returns the top of the git repository holding g.dir ("" for none)
// and whether it has a commit.
func (g gitRun) repo(ctx context.Context) (top string, hasHead bool) {
	out, err := g.out(ctx, "rev-parse", "--show-toplevel")
	if err != nil {
		return "", false
	}
	top = strings.TrimSpace(string(out))
	_, err = g.out(ctx, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
	return top, err == nil
}

// checkBranch refuses a branch name git refuses and a branch that exists.
func (g gitRun) checkBranch(ctx context.Context, branch string) error {
	if _, err := g.out(ctx, "check-ref-format", "--branch", branch); err != nil || strings.HasPrefix(branch, "-") {
		return fault.Errorf(fault.ErrInvalid, "branch name %q is not one git takes: choose another", branch)
	}
	if _, err := g.out(ctx, "show-ref", "--verify", "--quiet", "refs/heads/"+branch); err == nil {
		return fault.Errorf(fault.ErrConflict, "branch %s already exists in %s: choose another branch name, or delete it first (git branch -D %s) if nothing on it is needed", branch, g.dir, branch)
	}
	return nil
}

// makeWorktree adds the worktree at rec.Dir/work on a new branch at HEAD.
func (i *Isolator) makeWorktree(ctx context.Context, g gitRun, rec *Record, folder string) error {
	top := gitRun{bin: g.bin, dir: rec.Repo}
	head, err := top.out(ctx, "rev-parse", "--verify", "HEAD^{commit}")
	if err != nil {
		return err
	}
	rec.Base = strings.TrimSpace(string(head))
	// What is not committed stays in the folder: list it, so the user
	// knows the worktree starts without it.
	st, err := top.out(ctx, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--ignore-submodules=dirty")
	if err != nil {
		return err
	}
	for _, e := range strings.Split(string(st), "\x00") {
		if len(e) > 3 && e[2] == ' ' && len(rec.Uncommitted) < MaxListed {
			rec.Uncommitted = append(rec.Uncommitted, e[3:])
		}
	}
	work := filepath.Join(rec.Dir, "work")
	if _, err := top.out(ctx, "worktree", "add", "--quiet", "-b", rec.Branch, work, rec.Base); err != nil {
		return fmt.Errorf("make the worktree: %w", err)
	}
	if err := writeRecord(*rec); err != nil { // the branch exists now: Remove must delete it
		return err
	}
	rec.Workdir = work
	real, err := filepath.EvalSymlinks(folder)
	if err != nil {
		return err
	}
	if rel, err := filepath.Rel(rec.Repo, real); err == nil && rel != "." && !strings.HasPrefix(rel, "..") {
		rec.Workdir = filepath.Join(work, rel)
		if err := os.MkdirAll(rec.Workdir, 0o755); err != nil { // a folder with no tracked file
			return err
		}
	}
	if _, err := os.Stat(filepath.Join(work, ".gitmodules")); err == nil {
		wt := gitRun{bin: g.bin, dir: work}
		if _, err := wt.outIn(ctx, SubmoduleTimeout, nil, "submodule", "update", "--init", "--recursive"); err != nil {
			rec.Note = fmt.Sprintf("the repository's submodules could not be checked out in the worktree (%v): their folders are empty there, and Apply leaves submodules alone; run git submodule update --init in %s to try again", err, work)
		}
	}
	return nil
}

func baseRef(sessionID string) string { return "refs/foya/base/" + sessionID }

// identity is the environment that gives git a committer when the user's
// configuration names none.
func (g gitRun) identity(ctx context.Context) []string {
	if _, err := g.out(ctx, "var", "GIT_COMMITTER_IDENT"); err == nil {
		if _, err := g.out(ctx, "var", "GIT_AUTHOR_IDENT"); err == nil {
			return nil
		}
	}
	return []string{"GIT_AUTHOR_NAME=Foya", "GIT_AUTHOR_EMAIL=foya@localhost", "GIT_COMMITTER_NAME=Foya", "GIT_COMMITTER_EMAIL=foya@localhost"}
}

// rawChange is one line of git diff --raw: old and new mode and object.
type rawChange struct {
	path              string
	oldMode, newMode  string
	oldObject, newObj string
}

// parseRaw reads git diff --raw -z --no-renames output.
func parseRaw(out []byte) []rawChange {
	var list []rawChange
	parts := strings.Split(string(out), "\x00")
	for j := 0; j+1 < len(parts); j += 2 {
		meta := strings.Fields(strings.TrimPrefix(parts[j], ":"))
		if len(meta) < 5 {
			continue
		}
		list = append(list, rawChange{path: parts[j+1], oldMode: meta[0], newMode: meta[1], oldObject: meta[2], newObj: meta[3]})
	}
	return list
}
