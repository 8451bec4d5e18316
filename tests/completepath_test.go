package tests

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"foya/backend/kernel"
)

// CompletePath offers the folders completing a typed path, for the
// browser's "new session" path field (a browser has no folder dialog):
// folders only, sorted, at most 50, ~ expanded, hidden ones
// only when asked for with a dot; bad input is invalid.
//
// spec: W3
func TestCompletePath(t *testing.T) {
	h := newHarness(t, nil)
	ctx := context.Background()
	root := t.TempDir()
	for _, d := range []string{"src", "srv", "Src", "docs", ".git", ".github", "sr c"} {
		os.Mkdir(filepath.Join(root, d), 0o755)
	}
	os.WriteFile(filepath.Join(root, "src.txt"), nil, 0o644)
	os.Symlink(filepath.Join(root, "docs"), filepath.Join(root, "srlink"))
	os.Symlink(filepath.Join(root, "src.txt"), filepath.Join(root, "srfile"))
	os.Symlink(filepath.Join(root, "gone"), filepath.Join(root, "srdangling"))
	in := func(names ...string) []string {
		out := []string{}
		for _, n := range names {
			out = append(out, filepath.Join(root, n))
		}
		return out
	}
	for _, c := range []struct {
		typed string
		want  []string
	}{
		{root + "/sr", in("sr c", "src", "srlink", "srv")},
		{root + "/src", in("src")},
		{root + "/", in("Src", "docs", "sr c", "src", "srlink", "srv")},
		{root + "/.", in(".git", ".github")},
		{root + "/.gith", in(".github")},
		{root + "/x", in()},
		{root + "/src.txt/", in()},               // a file is no folder to list
		{filepath.Join(root, "nope", "a"), in()}, // nor is a missing one
		{root + "/docs/../sr", in("sr c", "src", "srlink", "srv")},
	} {
		got, err := h.k.CompletePath(ctx, c.typed)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("CompletePath(%q) = %q, %v; want %q", c.typed, got, err, c.want)
		}
	}

	// At most 50, the first 50 in order.
	many := t.TempDir()
	for i := range 120 {
		os.Mkdir(filepath.Join(many, fmt.Sprintf("d%03d", i)), 0o755)
	}
	got, err := h.k.CompletePath(ctx, many+"/d")
	if err != nil || len(got) != kernel.MaxCompletions || got[0] != filepath.Join(many, "d000") || got[49] != filepath.Join(many, "d049") {
		t.Errorf("120 folders: %d completions from %q, %v; want the first 50", len(got), got[:min(len(got), 1)], err)
	}

	// ~ is the home folder.
	home := t.TempDir()
	t.Setenv("HOME", home)
	os.Mkdir(filepath.Join(home, "projects"), 0o755)
	os.Mkdir(filepath.Join(home, ".config"), 0o755)
	for _, typed := range []string{"~", "~/", "~/pro"} {
		got, err := h.k.CompletePath(ctx, typed)
		if err != nil || !slices.Equal(got, []string{filepath.Join(home, "projects")}) {
			t.Errorf("CompletePath(%q) = %q, %v; want the home folder's projects", typed, got, err)
		}
	}

	// Bad input.
	for _, typed := range []string{"", "src", "./src", "~user/x", root + "/\x00", "/" + strings.Repeat("a", kernel.MaxPathBytes)} {
		if _, err := h.k.CompletePath(ctx, typed); kernel.Code(err) != kernel.CodeInvalid {
			t.Errorf("CompletePath(%.40q): %v; want an invalid request", typed, err)
		}
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := h.k.CompletePath(cancelled, root+"/"); err == nil {
		t.Error("a cancelled completion went on")
	}
}
