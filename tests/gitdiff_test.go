package tests

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"foya/backend/kernel"
	pt "foya/backend/provider/providertest"
)

// spec: F2
// "Compare with git HEAD": what git diff HEAD prints in the session's
// folder after the agent edits a tracked file, untracked files listed
// beside it; Foya's own GIT_DIR does not point git elsewhere.
func TestGitStatusDiff(t *testing.T) {
	needGit(t)
	h := newHarness(t, nil,
		pt.Calls(call("r", "read", `{"path":"main.go"}`)),
		pt.Calls(call("e", "edit", `{"path":"main.go","old_string":"// two\n","new_string":"// TWO\n"}`),
			call("w", "write", `{"path":"fresh.txt","content":"new\n"}`)),
		pt.Say("done"))
	ctx := context.Background()
	writeFile(t, filepath.Join(h.dir, "main.go"), "package main\n\n// one\n// two\n", 0o644)
	gitRun(t, h.dir, "init", "-q")
	gitRun(t, h.dir, "add", "main.go")
	gitRun(t, h.dir, "commit", "-q", "-m", "first")
	sess := h.session("auto")
	g, err := h.k.GitStatusDiff(ctx, sess.ID)
	if err != nil || g.Text != "" || len(g.Untracked) != 0 {
		t.Fatalf("GitStatusDiff of a clean tree = %+v, %v; want an empty diff", g, err)
	}
	h.runIn(ctx, sess.ID, "edit")

	other := t.TempDir()
	gitRun(t, other, "init", "-q")
	t.Setenv("GIT_DIR", filepath.Join(other, ".git"))
	g, err = h.k.GitStatusDiff(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(g.Text, "diff --git a/main.go b/main.go\n") || !strings.Contains(g.Text, "\n-// two\n+// TWO\n") {
		t.Errorf("GitStatusDiff text:\n%s\nwant main.go's edit", g.Text)
	}
	if strings.Contains(g.Text, "\x1b[") || g.Truncated {
		t.Errorf("GitStatusDiff: color or truncated: %+v", g)
	}
	if len(g.Untracked) != 1 || g.Untracked[0] != "fresh.txt" {
		t.Errorf("untracked %q; want [fresh.txt]", g.Untracked)
	}
	if real, _ := filepath.EvalSymlinks(h.dir); g.Root != real {
		t.Errorf("root %q; want %q", g.Root, real)
	}
}

// spec: F2
// GitStatusDiff's bad input: an unknown session, git missing, a folder that is no git
// repository, one with no commit, and a diff past MaxGitDiff (cut after
// the last whole file, and said).
func TestGitStatusDiffBadInput(t *testing.T) {
	needGit(t)
	h := newHarness(t, nil)
	ctx := context.Background()
	if _, err := h.k.GitStatusDiff(ctx, "ses_nope"); !kernel.IsNotFound(err) {
		t.Errorf("GitStatusDiff(unknown) = %v; want not found", err)
	}
	sess := h.session("auto")
	t.Run("git missing", func(t *testing.T) {
		t.Setenv("PATH", t.TempDir())
		_, err := h.k.GitStatusDiff(ctx, sess.ID)
		if err == nil || !strings.Contains(err.Error(), "git is not installed") || !errors.Is(err, kernel.ErrUnavailable) {
			t.Errorf("GitStatusDiff without git = %v; want unavailable, git is not installed", err)
		}
	})
	_, err := h.k.GitStatusDiff(ctx, sess.ID)
	if err == nil || !strings.Contains(err.Error(), "not a git repository") || !errors.Is(err, kernel.ErrInvalid) {
		t.Errorf("GitStatusDiff outside a repository = %v; want invalid, not a git repository", err)
	}
	gitRun(t, h.dir, "init", "-q")
	if _, err := h.k.GitStatusDiff(ctx, sess.ID); err == nil || !strings.Contains(err.Error(), "no commit yet") {
		t.Errorf("GitStatusDiff without a commit = %v; want no commit yet", err)
	}

	// Two files whose diffs together pass the bound: the first whole, the
	// second left out and counted.
	line := strings.Repeat("x", 99) + "\n"
	writeFile(t, filepath.Join(h.dir, "a.txt"), "a\n", 0o644)
	writeFile(t, filepath.Join(h.dir, "b.txt"), "b\n", 0o644)
	gitRun(t, h.dir, "add", ".")
	gitRun(t, h.dir, "commit", "-q", "-m", "first")
	writeFile(t, filepath.Join(h.dir, "a.txt"), strings.Repeat(line, kernel.MaxGitDiff/len(line)/2), 0o644)
	writeFile(t, filepath.Join(h.dir, "b.txt"), strings.Repeat(line, kernel.MaxGitDiff/len(line)), 0o644)
	g, err := h.k.GitStatusDiff(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !g.Truncated || g.Omitted <= 0 || len(g.Text) > kernel.MaxGitDiff {
		t.Errorf("GitStatusDiff of a huge diff: truncated %v, omitted %d, %d bytes; want truncated at most %d", g.Truncated, g.Omitted, len(g.Text), kernel.MaxGitDiff)
	}
	if !strings.HasPrefix(g.Text, "diff --git a/a.txt b/a.txt\n") || strings.Contains(g.Text, "b.txt") || !strings.HasSuffix(g.Text, line) {
		t.Errorf("GitStatusDiff of a huge diff holds %s…%s; want a.txt's whole diff alone", firstN(g.Text, 80), g.Text[max(0, len(g.Text)-80):])
	}
}

func firstN(s string, n int) string { return fmt.Sprintf("%q", s[:min(n, len(s))]) }
