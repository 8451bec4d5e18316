package kernel

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// GitTimeout bounds each git command GitStatusDiff runs.
const GitTimeout = 30 * time.Second

// maxUntracked bounds the untracked files GitDiff lists.
const maxUntracked = 1000

// GitStatusDiff returns what `git diff HEAD` prints in the session's folder
// (see GitDiff). The folder (or one above it) must be a git repository
// with a commit; git must be installed.
//
// git runs as the user's own git would, outside the sandbox, with the
// user's configuration, but only as a reader that cannot be made to run
// anything the repository names: no pager, no external diff, no textconv,
// core.fsmonitor off (a repository's config can name a program there),
// implicit bare repositories refused (a folder the agent made to look like
// one could carry such a config), optional index locks off (the look
// writes nothing), no terminal prompt, and every GIT_* variable of Foya's
// own environment dropped so that it cannot point git at another
// repository. The system and global config files stay: they are the
// user's, not the workspace's.
func (k *Kernel) GitStatusDiff(ctx context.Context, sessionID string) (GitDiff, error) {
	sess, err := k.store.Session(ctx, sessionID)
	if err != nil {
		return GitDiff{}, err
	}
	gitBin, err := exec.LookPath("git")
	if err != nil {
		return GitDiff{}, kindf(ErrUnavailable, "git is not installed (not found on PATH): install git to compare with the last commit")
	}
	if fi, err := os.Stat(sess.Workdir); err != nil || !fi.IsDir() {
		return GitDiff{}, kindf(ErrInvalid, "the session's folder %s is not there", sess.Workdir)
	}
	g := gitRunner{bin: gitBin, dir: sess.Workdir}
	root, _, code, err := g.run(ctx, 0, "rev-parse", "--show-toplevel")
	if err != nil {
		return GitDiff{}, err
	}
	if code != 0 {
		return GitDiff{}, kindf(ErrInvalid, "not a git repository: %s (nor any folder above it); run git init there to start one", sess.Workdir)
	}
	out := GitDiff{SessionID: sess.ID, Root: strings.TrimSpace(string(root)), Untracked: []string{}}
	if _, _, code, err := g.run(ctx, 0, "rev-parse", "--verify", "--quiet", "HEAD^{commit}"); err != nil {
		return GitDiff{}, err
	} else if code != 0 {
		return GitDiff{}, kindf(ErrInvalid, "the git repository %s has no commit yet: there is no HEAD to compare with; make a first commit", out.Root)
	}
	text, omitted, code, err := g.run(ctx, MaxGitDiff, "diff", "HEAD", "--no-color", "--no-ext-diff", "--no-textconv")
	if err != nil {
		return GitDiff{}, err
	}
	if code != 0 {
		return GitDiff{}, fmt.Errorf("git diff HEAD in %s exited with status %d: %s", sess.Workdir, code, g.stderr)
	}
	if omitted > 0 {
		// Cut after the last whole file, so every file shown is shown whole.
		if i := bytes.LastIndex(text, []byte("\ndiff --git ")); i >= 0 {
			omitted += int64(len(text) - i - 1)
			text = text[:i+1]
		} else {
			omitted += int64(len(text))
			text = nil
		}
		out.Truncated, out.Omitted = true, omitted
	}
	out.Text = string(text)
	list, _, code, err := g.run(ctx, 1<<20, "ls-files", "--others", "--exclude-standard", "-z", "--full-name", ":/")
	if err != nil {
		return GitDiff{}, err
	}
	if code == 0 {
		for _, name := range strings.Split(string(list), "\x00") {
			if name != "" && len(out.Untracked) < maxUntracked {
				out.Untracked = append(out.Untracked, name)
			}
		}
	}
	return out, nil
}

// gitRunner runs git read-only in one folder (see GitStatusDiff).
type gitRunner struct {
	bin, dir string
	stderr   string // the last command's, trimmed
}

// run runs git with args and returns its output (at most max bytes when
// max > 0, omitted counting the rest) and its exit status. err is set only
// when git could not be run or timed out.
func (g *gitRunner) run(ctx context.Context, max int, args ...string) (out []byte, omitted int64, code int, err error) {
	ctx, cancel := context.WithTimeout(ctx, GitTimeout)
	defer cancel()
	full := append([]string{"--no-pager", "-C", g.dir,
		"-c", "core.fsmonitor=false", "-c", "safe.bareRepository=explicit", "-c", "core.quotePath=false"}, args...)
	cmd := exec.CommandContext(ctx, g.bin, full...)
	cmd.Env = gitEnv(os.Environ())
	// No pager, external diff, textconv or fsmonitor: git starts no
	// program of its own here; WaitDelay still bounds a child (a clean
	// filter of the user's config) that holds the pipes open.
	cmd.WaitDelay = 2 * time.Second
	stdout := &boundedBuffer{max: max}
	var stderr boundedBuffer
	stderr.max = 4 << 10
	cmd.Stdout, cmd.Stderr = stdout, &stderr
	err = cmd.Run()
	g.stderr = strings.TrimSpace(string(stderr.buf))
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded):
		return nil, 0, 0, kindf(ErrUnavailable, "git %s in %s took longer than %s: stopped", args[0], g.dir, GitTimeout)
	case errors.As(err, &ee):
		return stdout.buf, stdout.omitted, ee.ExitCode(), nil
	case err != nil:
		return nil, 0, 0, fmt.Errorf("run git %s: %w", args[0], err)
	}
	return stdout.buf, stdout.omitted, 0, nil
}

// gitEnv is env without Foya's own GIT_* variables (GIT_DIR and its kin
// would point git elsewhere), with git kept from prompting, paging and
// taking the index lock.
func gitEnv(env []string) []string {
	out := make([]string, 0, len(env)+4)
	for _, kv := range env {
		if !strings.HasPrefix(strings.ToUpper(kv), "GIT_") {
			out = append(out, kv)
		}
	}
	return append(out, "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0", "GIT_PAGER=cat")
}

// boundedBuffer keeps the first max bytes written to it (all when max is
// 0) and counts the rest, so that a huge output neither fills memory nor
// blocks the writer.
type boundedBuffer struct {
	buf     []byte
	max     int
	omitted int64
}

func (b *boundedBuffer) Write(p []byte) (int, error) {
	room := len(p)
	if b.max > 0 {
		room = min(room, b.max-len(b.buf))
	}
	b.buf = append(b.buf, p[:room]...)
	b.omitted += int64(len(p) - room)
	return len(p), nil
}
