package files

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"foya/backend/approval"
)

// inTrash reports whether the fixture's trash holds an item from path.
func (f *fixture) inTrash(path string) bool {
	items, err := f.trash.List()
	if err != nil {
		f.t.Fatal(err)
	}
	for _, it := range items {
		if it.OriginalPath == path {
			return true
		}
	}
	return false
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// spec: D1, D2, D3, D4
// delete in every mode: inside paths go to the trash (asked in Manual);
// the workspace root, .git, .agents, .foya, outside paths (by `..` or by a
// link) are refused in Manual and Auto and go to the trash in Full Access;
// the filesystem root never goes. The person in Manual says yes here, so
// only the policy's refusals stop a call.
func TestDeleteInEveryMode(t *testing.T) {
	type want struct{ manual, auto, full bool } // moved to the trash?
	cases := []struct {
		name  string
		setup func(f *fixture) (arg, path string)
		kind  approval.Kind
		want  want
	}{
		{"file inside", func(f *fixture) (string, string) {
			f.put("a.txt", "a", 0o644)
			return "a.txt", f.path("a.txt")
		}, approval.DeleteInside, want{true, true, true}},
		{"folder inside", func(f *fixture) (string, string) {
			f.put("dir/x/y.txt", "y", 0o644)
			return "dir", f.path("dir")
		}, approval.DeleteInside, want{true, true, true}},
		{"workspace root", func(f *fixture) (string, string) { return ".", f.dir }, approval.DeleteProtected, want{false, false, true}},
		{".git", func(f *fixture) (string, string) {
			f.put(".git/HEAD", "ref", 0o644)
			return ".git", f.path(".git")
		}, approval.DeleteProtected, want{false, false, true}},
		{"inside .agents", func(f *fixture) (string, string) {
			f.put(".agents/rules.md", "r", 0o644)
			return ".agents/rules.md", f.path(".agents/rules.md")
		}, approval.DeleteProtected, want{false, false, true}},
		{".foya", func(f *fixture) (string, string) {
			f.put(".foya/permissions.json", "{}", 0o644)
			return ".foya", f.path(".foya")
		}, approval.DeleteProtected, want{false, false, true}},
		{"outside by ..", func(f *fixture) (string, string) {
			out := filepath.Join(filepath.Dir(f.dir), filepath.Base(f.dir)+"-sibling.txt")
			os.WriteFile(out, []byte("o"), 0o644)
			f.t.Cleanup(func() { os.Remove(out) })
			return "../" + filepath.Base(out), out
		}, approval.DeleteProtected, want{false, false, true}},
		{"outside through a link", func(f *fixture) (string, string) {
			outside, _ := filepath.EvalSymlinks(f.t.TempDir())
			os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("s"), 0o644)
			os.Symlink(outside, f.path("out"))
			return "out/secret.txt", filepath.Join(outside, "secret.txt")
		}, approval.DeleteProtected, want{false, false, true}},
		{"absolute outside", func(f *fixture) (string, string) {
			outside, _ := filepath.EvalSymlinks(f.t.TempDir())
			p := filepath.Join(outside, "o.txt")
			os.WriteFile(p, []byte("o"), 0o644)
			return p, p
		}, approval.DeleteProtected, want{false, false, true}},
		{"filesystem root", func(f *fixture) (string, string) { return "/", "/" }, approval.DeleteRoot, want{false, false, false}},
		{"filesystem root by ..", func(f *fixture) (string, string) {
			return strings.Repeat("../", strings.Count(f.dir, "/")+2), "/"
		}, approval.DeleteRoot, want{false, false, false}},
	}
	for _, c := range cases {
		for _, m := range approval.Modes {
			t.Run(c.name+"/"+string(m), func(t *testing.T) {
				f := newFixture(t)
				arg, path := c.setup(f)
				f.mode(m, true)
				res := f.call("delete", map[string]any{"path": arg})
				moved := map[approval.Mode]bool{approval.Manual: c.want.manual, approval.Auto: c.want.auto, approval.FullAccess: c.want.full}[m]
				if len(f.asked) == 0 || f.asked[len(f.asked)-1].Action.Kind != c.kind {
					t.Fatalf("asked %+v; want a %s request", f.asked, c.kind)
				}
				if req := f.asked[len(f.asked)-1]; req.Action.Tool != "delete" || len(req.Action.Paths) != 1 || req.Action.Paths[0] != path || req.CallID != "call_1" {
					t.Fatalf("request %+v; want tool delete, path %s", req, path)
				}
				if res.IsError == moved {
					t.Fatalf("delete %s in %s: is_error %v (%s); want moved %v", arg, m, res.IsError, res.Text, moved)
				}
				if path == "/" {
					if !strings.Contains(res.Text, "filesystem root") || !strings.Contains(res.Text, "nothing was") {
						t.Fatalf("root: %s", res.Text)
					}
					return
				}
				if exists(path) == moved {
					t.Fatalf("%s still there = %v; want moved %v", path, exists(path), moved)
				}
				if moved != f.inTrash(path) {
					t.Fatalf("spec D1: in trash = %v; want %v", !moved, moved)
				}
				if moved {
					fc := res.FileChanges[0]
					if fc.Op != "delete" || fc.ExistsAfter || !fc.ExistedBefore || fc.TrashPath == "" || fc.TrashInfo == "" || fc.Path != path {
						t.Fatalf("change %+v", fc.FileChange)
					}
				} else if len(res.FileChanges) > 0 {
					t.Fatal("a refused delete recorded a change")
				}
			})
		}
	}
}

// spec: D4
// The filesystem root is refused even when the gateway allows everything.
func TestDeleteRootRefusedEvenIfApproved(t *testing.T) {
	f := newFixture(t) // its gateway allows every request
	for _, p := range []string{"/", "//", "/.", "/../.."} {
		res := f.fail("delete", map[string]any{"path": p})
		if !strings.Contains(res.Text, "never deleted, in any mode") {
			t.Fatalf("delete %s: %s", p, res.Text)
		}
	}
	if !exists("/bin") && !exists("/etc") {
		t.Fatal("the root lost its folders")
	}
}

// spec: A1, D2
// Writes, edits and reads name the right action: protected folders and
// outside paths (by .., by absolute path, through a link) are asked about
// as such, and a denial changes nothing.
func TestActionsForPaths(t *testing.T) {
	f := newFixture(t)
	outside, _ := filepath.EvalSymlinks(t.TempDir())
	os.WriteFile(filepath.Join(outside, "o.txt"), []byte("outside\n"), 0o644)
	os.Symlink(outside, f.path("link"))
	os.Symlink(filepath.Join(outside, "o.txt"), f.path("olink.txt"))
	f.put(".git/config", "[core]\n", 0o644)
	f.put("in.txt", "in\n", 0o644)
	f.mode(approval.Auto, false) // asks are denied
	cases := []struct {
		tool string
		args map[string]any
		kind approval.Kind
		ok   bool
	}{
		{"read", map[string]any{"path": "in.txt"}, approval.ReadInside, true},
		{"read", map[string]any{"path": ".git/config"}, approval.ReadInside, true},
		{"read", map[string]any{"path": "link/o.txt"}, approval.ReadOutside, false},
		{"read", map[string]any{"path": "olink.txt"}, approval.ReadOutside, false},
		{"read", map[string]any{"path": filepath.Join(outside, "o.txt")}, approval.ReadOutside, false},
		{"read", map[string]any{"path": "sub/../../" + filepath.Base(f.dir) + "/in.txt"}, approval.ReadInside, true},
		{"ls", map[string]any{"path": ".."}, approval.ReadOutside, false},
		{"grep", map[string]any{"pattern": "x", "path": "link"}, approval.ReadOutside, false},
		{"glob", map[string]any{"pattern": "*", "path": outside}, approval.ReadOutside, false},
		{"write", map[string]any{"path": "new.txt", "content": "n"}, approval.WriteInside, true},
		{"write", map[string]any{"path": ".foya/x.json", "content": "{}"}, approval.WriteProtected, false},
		{"write", map[string]any{"path": "link/new.txt", "content": "n"}, approval.WriteProtected, false},
		{"write", map[string]any{"path": "../escape.txt", "content": "n"}, approval.WriteProtected, false},
	}
	for _, c := range cases {
		f.asked = nil
		res := f.call(c.tool, c.args)
		if len(f.asked) != 1 || f.asked[0].Action.Kind != c.kind {
			t.Errorf("%s %v asked %+v; want one %s request", c.tool, c.args, f.asked, c.kind)
			continue
		}
		if res.IsError == c.ok {
			t.Errorf("%s %v: is_error %v (%s); want ok %v", c.tool, c.args, res.IsError, res.Text, c.ok)
		}
		if !c.ok && !strings.Contains(res.Text, "nothing was changed") {
			t.Errorf("%s %v: denial says %q", c.tool, c.args, res.Text)
		}
	}
	if exists(filepath.Join(outside, "new.txt")) || exists(filepath.Join(filepath.Dir(f.dir), "escape.txt")) || exists(f.path(".foya/x.json")) {
		t.Fatal("a denied write happened")
	}
}

// spec: D5
// Successful changes carry their file-change record and a display diff;
// the text stays short and never repeats the content written.
func TestChangeResultsCarryTheArtifact(t *testing.T) {
	f := newFixture(t)
	content := strings.Repeat("a long line of content\n", 200)
	res := f.ok("write", map[string]any{"path": "long.txt", "content": content})
	if len(res.FileChanges) != 1 || res.DisplayDiff == "" || len(res.Text) > 200 || strings.Contains(res.Text, "a long line") {
		t.Fatalf("write result: %q, %d changes", res.Text, len(res.FileChanges))
	}
	res = f.ok("delete", map[string]any{"path": "long.txt"})
	if len(res.FileChanges) != 1 || len(res.Text) > 300 {
		t.Fatalf("delete result: %q", res.Text)
	}
	// A failed call has no artifact: its error text is what the user sees.
	res = f.fail("delete", map[string]any{"path": "long.txt"})
	if len(res.FileChanges) != 0 || res.DisplayDiff != "" {
		t.Fatalf("failed delete carries an artifact: %+v", res)
	}
}
