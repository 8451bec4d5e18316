package files

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"foya/backend/testwait"
)

// mountTmpfs mounts a small tmpfs at a temporary folder, or skips the
// test where the process may not mount (it needs root on Linux).
func mountTmpfs(t *testing.T, opts string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		testwait.Missing(t, "root (mounting a tmpfs needs it)", "the file tools on a full or read-only filesystem")
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", opts, "tmpfs", dir).CombinedOutput(); err != nil {
		testwait.Missing(t, fmt.Sprintf("a tmpfs mount (%v: %s)", err, out), "the file tools on a full or read-only filesystem")
	}
	t.Cleanup(func() { exec.Command("umount", "-l", dir).Run() })
	real, _ := filepath.EvalSymlinks(dir)
	return real
}

// leftovers lists Foya's temporary files in dir.
func leftovers(t *testing.T, dir string) []string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(dir, tempPrefix+"*"))
	return m
}

// A full disk: write and edit fail with a clear error, the file keeps its
// old content, and no temporary file is left behind.
func TestWriteOnAFullDisk(t *testing.T) {
	f := newFixture(t)
	f.dir = mountTmpfs(t, "size=64k")
	f.rc.Workdir = f.dir
	f.put("a.txt", "small\n", 0o644)
	f.ok("read", map[string]any{"path": "a.txt"})
	big := strings.Repeat("x", 200<<10)
	res := f.fail("write", map[string]any{"path": "a.txt", "content": big})
	if !strings.Contains(res.Text, "the disk is full") || !strings.Contains(res.Text, "unchanged") || len(res.FileChanges) > 0 {
		t.Fatalf("write: %s", res.Text)
	}
	res = f.fail("edit", map[string]any{"path": "a.txt", "old_string": "small", "new_string": big})
	if !strings.Contains(res.Text, "the disk is full") {
		t.Fatalf("edit: %s", res.Text)
	}
	res = f.fail("write", map[string]any{"path": "new/deep/b.txt", "content": big})
	if !strings.Contains(res.Text, "the disk is full") {
		t.Fatalf("new file: %s", res.Text)
	}
	if f.get("a.txt") != "small\n" || len(leftovers(t, f.dir)) > 0 || exists(f.path("new")) {
		t.Fatalf("after a full disk: %q, leftovers %v, new/ exists %v", f.get("a.txt"), leftovers(t, f.dir), exists(f.path("new")))
	}
}

// A read-only filesystem: nothing can be written or moved to a trash; the
// calls say so and nothing is lost.
func TestReadOnlyMount(t *testing.T) {
	f := newFixture(t)
	f.dir = mountTmpfs(t, "size=1m")
	f.rc.Workdir = f.dir
	f.put("a.txt", "keep me\n", 0o644)
	if out, err := exec.Command("mount", "-o", "remount,ro", f.dir).CombinedOutput(); err != nil {
		testwait.Missing(t, fmt.Sprintf("a read-only remount (%v: %s)", err, out), "the file tools on a read-only filesystem")
	}
	f.ok("read", map[string]any{"path": "a.txt"})
	res := f.fail("write", map[string]any{"path": "a.txt", "content": "other\n"})
	if !strings.Contains(res.Text, "read-only") {
		t.Fatalf("write: %s", res.Text)
	}
	res = f.fail("delete", map[string]any{"path": "a.txt"})
	if !strings.Contains(res.Text, "could not move a.txt to the trash") || !strings.Contains(res.Text, "nothing was deleted") {
		t.Fatalf("delete: %s", res.Text)
	}
	if f.get("a.txt") != "keep me\n" {
		t.Fatal("the file changed")
	}
}

// Permission denied (an immutable file, which even root cannot replace):
// write, edit and delete fail clearly and change nothing.
func TestPermissionDenied(t *testing.T) {
	f := newFixture(t)
	f.put("locked.txt", "locked\n", 0o644)
	p := f.path("locked.txt")
	if os.Geteuid() == 0 {
		if out, err := exec.Command("chattr", "+i", p).CombinedOutput(); err != nil {
			testwait.Missing(t, fmt.Sprintf("chattr +i, to deny root a write (%v: %s)", err, out), "the file tools on a file they may not change")
		}
		t.Cleanup(func() { exec.Command("chattr", "-i", p).Run() })
	} else {
		os.Chmod(f.dir, 0o555)
		t.Cleanup(func() { os.Chmod(f.dir, 0o755) })
	}
	f.ok("read", map[string]any{"path": "locked.txt"})
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"write", map[string]any{"path": "locked.txt", "content": "x\n"}},
		{"edit", map[string]any{"path": "locked.txt", "old_string": "locked", "new_string": "open"}},
		{"delete", map[string]any{"path": "locked.txt"}},
	} {
		res := f.fail(c.tool, c.args)
		if !strings.Contains(res.Text, "not permitted") && !strings.Contains(res.Text, "permission denied") {
			t.Errorf("%s: %s", c.tool, res.Text)
		}
	}
	if f.get("locked.txt") != "locked\n" || len(leftovers(t, f.dir)) > 0 {
		t.Fatal("a refused call changed something")
	}
}

// Files over MaxKeep are not overwritten or edited (a copy could not be
// kept for revert); binary and huge reads are described, not dumped.
func TestHugeFilesRefusedForChanges(t *testing.T) {
	f := newFixture(t)
	fh, _ := os.Create(f.path("huge.txt"))
	fh.WriteString("head\n")
	if err := fh.Truncate(MaxKeep + 1); err != nil {
		testwait.Missing(t, "sparse files ("+err.Error()+")", "huge files refused for changes")
	}
	fh.Close()
	f.ok("read", map[string]any{"path": "huge.txt", "limit": 1})
	res := f.fail("write", map[string]any{"path": "huge.txt", "content": "x"})
	if !strings.Contains(res.Text, "more than the 64.0 MiB write replaces") {
		t.Fatalf("write: %s", res.Text)
	}
	res = f.fail("edit", map[string]any{"path": "huge.txt", "old_string": "head", "new_string": "x"})
	if !strings.Contains(res.Text, "more than the 64.0 MiB edit changes") {
		t.Fatalf("edit: %s", res.Text)
	}
	// delete still works: the trash holds the only copy, and says so.
	res = f.ok("delete", map[string]any{"path": "huge.txt"})
	if !strings.Contains(res.Text, "too large for Foya to keep a copy") || res.FileChanges[0].SHABefore != "" {
		t.Fatalf("delete: %s", res.Text)
	}
}

// spec: K1
// TestHugePathIsRefused: a path of a million missing folders is refused by
// every file tool, saying the limit; resolving it element by element took
// hours, holding the call: a model's argument must not make a call's cost
// unbounded.
func TestHugePathIsRefused(t *testing.T) {
	f := newFixture(t)
	huge := strings.Repeat("a/", 1<<20) + "x.txt"
	for tool, args := range map[string]map[string]any{
		"read":   {"path": huge},
		"write":  {"path": huge, "content": "x"},
		"delete": {"path": huge},
		"ls":     {"path": huge},
	} {
		if res := f.fail(tool, args); !strings.Contains(res.Text, "at most 4096") {
			t.Errorf("%s: %.200s", tool, res.Text)
		}
	}
	long := strings.Repeat("b/", 2000) + "y.txt" // under the limit: still taken
	f.ok("write", map[string]any{"path": long, "content": "y"})
	// A huge pattern that matches nothing is not quoted back whole.
	pattern := strings.Repeat("z", 512<<10)
	for tool, args := range map[string]map[string]any{
		"glob": {"pattern": pattern},
		"grep": {"pattern": pattern},
	} {
		res := f.ok(tool, args)
		if len(res.Text) > 4096 || !strings.Contains(res.Text, "(524288 bytes in all)") {
			t.Errorf("%s: %d bytes: %.300s", tool, len(res.Text), res.Text)
		}
	}
}
