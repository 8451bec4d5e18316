package files

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"foya/backend/llm"
)

// copyTree copies dir's files, folders and modes into a new temp folder,
// as an isolated session's copy holds them.
func copyTree(t *testing.T, dir string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		if fi.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), fi.Mode().Perm())
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, fi.Mode().Perm())
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// forkFixture is a workspace with a fork point: the tree as it was there,
// and the File Changes made after it.
func forkFixture(t *testing.T) (f *fixture, h *history, at map[string]treeEntry, after []llm.FileChange) {
	f = newFixture(t)
	h = newHistory()
	f.put("keep.txt", "untouched\n", 0o644)
	f.put("old.txt", "old\n", 0o644)
	h.keep(f.ok("write", map[string]any{"path": "a.txt", "content": "a at the fork\n"}).FileChanges...)
	h.keep(f.ok("write", map[string]any{"path": "run.sh", "content": "echo hi\n"}).FileChanges...)
	if err := os.Chmod(f.path("run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	at = tree(t, f.dir)
	n := len(h.changes)
	f.call("read", map[string]any{"path": "a.txt"})
	h.keep(f.ok("edit", map[string]any{"path": "a.txt", "old_string": "at the fork", "new_string": "after the fork"}).FileChanges...)
	h.keep(f.ok("write", map[string]any{"path": "a.txt", "content": "a twice after\n"}).FileChanges...)
	h.keep(f.ok("write", map[string]any{"path": "new/deep/b.txt", "content": "made after\n"}).FileChanges...)
	f.call("read", map[string]any{"path": "old.txt"})
	h.keep(f.ok("delete", map[string]any{"path": "old.txt"}).FileChanges...)
	f.call("read", map[string]any{"path": "run.sh"})
	h.keep(f.ok("write", map[string]any{"path": "run.sh", "content": "echo changed\n"}).FileChanges...)
	return f, h, at, h.changes[n:]
}

// A copy of a session's files, taken back through the changes made after
// a fork point (newest first, by content hash), holds the files as they
// were there: edited files' old content and mode, created files gone,
// deleted files back. The session's own folder is not touched.
// spec: F1
func TestRestoreFilesToTheForkPoint(t *testing.T) {
	ctx := context.Background()
	f, h, at, after := forkFixture(t)
	now := tree(t, f.dir)
	cp := copyTree(t, f.dir)
	if bad, err := CheckRestore(ctx, h, cp, f.dir, after); err != nil || len(bad) != 0 {
		t.Fatalf("CheckRestore = %v, %v; want every file restorable", bad, err)
	}
	if bad, err := RestoreFiles(ctx, h, cp, f.dir, after); err != nil || len(bad) != 0 {
		t.Fatalf("RestoreFiles = %v, %v", bad, err)
	}
	sameTree(t, "the copy restored to the fork point", tree(t, cp), at)
	sameTree(t, "the session's folder", tree(t, f.dir), now)
	// Restored again, nothing is what the last changes left: refused.
	if bad, _ := CheckRestore(ctx, h, cp, f.dir, after); len(bad) == 0 {
		t.Errorf("a copy restored already passes the check again; want its files reported as changed")
	}
}

// What cannot be restored is said before anything is written, and
// nothing is: a file changed in the copy since the session's last change
// of it, one the session's records do not know is gone, a blob that is no
// longer stored, a change whose before content was never kept, a path
// outside the session's folder.
func TestRestoreFilesRefuses(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name   string
		spoil  func(t *testing.T, cp string, h *history, after []llm.FileChange) []llm.FileChange
		path   string
		reason string
	}{
		{"changed in the copy", func(t *testing.T, cp string, h *history, after []llm.FileChange) []llm.FileChange {
			writeTestFile(t, filepath.Join(cp, "a.txt"), "someone else's\n")
			return after
		}, "a.txt", "its content is not what the session's last change of it left"},
		{"removed from the copy", func(t *testing.T, cp string, h *history, after []llm.FileChange) []llm.FileChange {
			os.Remove(filepath.Join(cp, "new", "deep", "b.txt"))
			return after
		}, "b.txt", "it is gone"},
		{"put back in the copy", func(t *testing.T, cp string, h *history, after []llm.FileChange) []llm.FileChange {
			writeTestFile(t, filepath.Join(cp, "old.txt"), "back\n")
			return after
		}, "old.txt", "something is there now"},
		{"blob gone", func(t *testing.T, cp string, h *history, after []llm.FileChange) []llm.FileChange {
			delete(h.blobs, after[0].SHABefore)
			return after
		}, "a.txt", "no longer stored"},
		{"never kept", func(t *testing.T, cp string, h *history, after []llm.FileChange) []llm.FileChange {
			out := append([]llm.FileChange(nil), after...)
			out[len(out)-1].NotRestorable = "the file was too large to keep"
			return out
		}, "run.sh", "not kept: the file was too large to keep"},
		{"outside the folder", func(t *testing.T, cp string, h *history, after []llm.FileChange) []llm.FileChange {
			out := append([]llm.FileChange(nil), after...)
			out[0].Path = "/elsewhere/a.txt"
			return out
		}, "/elsewhere/a.txt", "outside the session's folder"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, h, _, after := forkFixture(t)
			cp := copyTree(t, f.dir)
			after = c.spoil(t, cp, h, after)
			before := tree(t, cp)
			bad, err := CheckRestore(ctx, h, cp, f.dir, after)
			if err != nil || len(bad) != 1 || !strings.HasSuffix(bad[0].Path, c.path) || !strings.Contains(bad[0].Reason, c.reason) || bad[0].ChangeID == "" {
				t.Fatalf("CheckRestore = %+v, %v; want %s reported: %q", bad, err, c.path, c.reason)
			}
			again, err := RestoreFiles(ctx, h, cp, f.dir, after)
			if err != nil || len(again) != 1 || again[0] != bad[0] {
				t.Errorf("RestoreFiles = %+v, %v; want the check's answer %+v", again, err, bad)
			}
			sameTree(t, "a copy that could not be restored", tree(t, cp), before)
		})
	}
}

func writeTestFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A folder deleted whole after the fork point took its files to the OS
// trash, not to Foya's records: said before forking.
func TestRestoreFilesDeletedFolder(t *testing.T) {
	ctx := context.Background()
	f, h := newFixture(t), newHistory()
	f.put("lib/x.txt", "x\n", 0o644)
	after := h.keep(f.ok("delete", map[string]any{"path": "lib"}).FileChanges...)
	cp := copyTree(t, f.dir)
	bad, err := CheckRestore(ctx, h, cp, f.dir, after)
	if err != nil || len(bad) != 1 || !strings.HasSuffix(bad[0].Path, "lib") || !strings.Contains(bad[0].Reason, "went to the trash") {
		t.Fatalf("CheckRestore = %+v, %v; want lib reported as deleted whole", bad, err)
	}
}
