package files

import (
	"os"
	"strings"
	"testing"
	"time"

	"foya/backend/tools"
)

// spec: F1, F2
// write and edit return a text result for the model and a File Change
// with everything revert needs, the modes before and after included; the
// diff stays out of the text.
func TestWriteAndEditRecordFileChanges(t *testing.T) {
	f := newFixture(t)
	res := f.ok("write", map[string]any{"path": "src/new.go", "content": "package x\n\nfunc A() {}\n"})
	if len(res.FileChanges) != 2 {
		t.Fatalf("want the folder and the file recorded, got %d changes", len(res.FileChanges))
	}
	dir, fc := res.FileChanges[0], res.FileChanges[1]
	if !dir.IsDir || dir.Op != "create" || dir.Path != f.path("src") || dir.ModeBefore != 0 || dir.ModeAfter&modeTypeMask != modeDir {
		t.Fatalf("folder change: %+v", dir.FileChange)
	}
	if fc.Op != "create" || fc.ExistedBefore || !fc.ExistsAfter || fc.Path != f.path("src/new.go") ||
		fc.ModeBefore != 0 || fc.ModeAfter != modeRegular|0o644 || fc.SHAAfter != digest(fc.After) || fc.Before != nil || fc.Added != 3 {
		t.Fatalf("create change: %+v", fc.FileChange)
	}
	if strings.Contains(res.Text, "@@") || strings.Contains(res.Text, "+package") {
		t.Fatalf("spec F2: the diff leaked into the text: %s", res.Text)
	}
	if res.DisplayDiff != fc.Diff || !strings.HasPrefix(fc.Diff, "--- /dev/null\n+++ b/src/new.go\n") {
		t.Fatalf("diff: %q", fc.Diff)
	}

	f.put("conf.ini", "a=1\nb=2\n", 0o600)
	f.ok("read", map[string]any{"path": "conf.ini"})
	res = f.ok("edit", map[string]any{"path": "conf.ini", "old_string": "b=2", "new_string": "b=3"})
	fc = res.FileChanges[0]
	if fc.Op != "edit" || !fc.ExistedBefore || fc.ModeBefore != modeRegular|0o600 || fc.ModeAfter != modeRegular|0o600 ||
		string(fc.Before) != "a=1\nb=2\n" || string(fc.After) != "a=1\nb=3\n" || fc.SHABefore != digest(fc.Before) || fc.Added != 1 || fc.Removed != 1 {
		t.Fatalf("edit change: %+v", fc.FileChange)
	}
	if got := f.get("conf.ini"); got != "a=1\nb=3\n" {
		t.Fatalf("file = %q", got)
	}
	if fi, _ := os.Stat(f.path("conf.ini")); fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v not kept", fi.Mode())
	}
	if got := string(applyPatch(t, fc.Before, fc.Diff)); got != string(fc.After) {
		t.Fatalf("patch gives %q", got)
	}
}

// The stale-read guard: an existing file must have been read in this
// session, and be unchanged since, before write or edit may change it.
func TestStaleReadGuard(t *testing.T) {
	f := newFixture(t)
	f.put("a.txt", "one\n", 0o644)
	res := f.fail("write", map[string]any{"path": "a.txt", "content": "two\n"})
	if !strings.Contains(res.Text, "have not read") || f.get("a.txt") != "one\n" {
		t.Fatalf("unread overwrite: %s", res.Text)
	}
	f.fail("edit", map[string]any{"path": "a.txt", "old_string": "one", "new_string": "two"})

	// Read, then someone else changes it: refused, with a message to read again.
	f.ok("read", map[string]any{"path": "a.txt"})
	f.put("a.txt", "one, changed outside\n", 0o644)
	res = f.fail("edit", map[string]any{"path": "a.txt", "old_string": "one", "new_string": "two"})
	if !strings.Contains(res.Text, "changed since you last read it") || !strings.Contains(res.Text, "read it again") {
		t.Fatalf("stale edit: %s", res.Text)
	}
	f.fail("write", map[string]any{"path": "a.txt", "content": "x"})
	if f.get("a.txt") != "one, changed outside\n" {
		t.Fatal("stale write changed the file")
	}

	// Same size and time but other bytes: the digest tells.
	f.ok("read", map[string]any{"path": "a.txt"})
	fi, _ := os.Stat(f.path("a.txt"))
	os.WriteFile(f.path("a.txt"), []byte("ONE, CHANGED OUTSIDE\n"), 0o644)
	os.Chtimes(f.path("a.txt"), fi.ModTime(), fi.ModTime())
	f.fail("write", map[string]any{"path": "a.txt", "content": "x"})

	// After reading again, and after its own writes, the session may go on.
	f.ok("read", map[string]any{"path": "a.txt"})
	f.ok("write", map[string]any{"path": "a.txt", "content": "mine\n"})
	f.ok("edit", map[string]any{"path": "a.txt", "old_string": "mine", "new_string": "still mine"})

	// A partial read of a big file records size and time: a touch with
	// other content is caught, an unchanged file passes.
	f.put("big.txt", numbered(1, 3000), 0o644)
	f.ok("read", map[string]any{"path": "big.txt", "limit": 10})
	f.ok("edit", map[string]any{"path": "big.txt", "old_string": "line 2999\n", "new_string": "line 2999!\n"})
	f.ok("read", map[string]any{"path": "big.txt", "limit": 10})
	time.Sleep(10 * time.Millisecond) // a distinct modification time; no assertion on time
	os.WriteFile(f.path("big.txt"), []byte(numbered(1, 3001)), 0o644)
	f.fail("edit", map[string]any{"path": "big.txt", "old_string": "line 3001\n", "new_string": "x\n"})

	// A file that vanished after the read: refused once, then write creates it.
	f.put("gone.txt", "g\n", 0o644)
	f.ok("read", map[string]any{"path": "gone.txt"})
	os.Remove(f.path("gone.txt"))
	res = f.fail("write", map[string]any{"path": "gone.txt", "content": "again\n"})
	if !strings.Contains(res.Text, "no longer exists") {
		t.Fatalf("vanished: %s", res.Text)
	}
	f.ok("write", map[string]any{"path": "gone.txt", "content": "again\n"})
	f.fail("edit", map[string]any{"path": "nothere.txt", "old_string": "a", "new_string": "b"})

	// Sessions do not share reads.
	f.put("s.txt", "s\n", 0o644)
	f.ok("read", map[string]any{"path": "s.txt"})
	f.rc.SessionID = "ses_other"
	f.fail("write", map[string]any{"path": "s.txt", "content": "t\n"})
}

// edit: exact-once matches, replace_all, several edits all or none, CRLF
// files, and a failed match that names the closest lines.
func TestEditMatching(t *testing.T) {
	f := newFixture(t)
	f.put("m.go", "func a() {\n\treturn 1\n}\n\nfunc b() {\n\treturn 1\n}\n", 0o644)
	f.ok("read", map[string]any{"path": "m.go"})
	res := f.fail("edit", map[string]any{"path": "m.go", "old_string": "return 1", "new_string": "return 2"})
	if !strings.Contains(res.Text, "occurs 2 times (at lines 2, 6)") {
		t.Fatalf("ambiguous: %s", res.Text)
	}
	res = f.fail("edit", map[string]any{"path": "m.go", "old_string": "func c() {", "new_string": "x"})
	if !strings.Contains(res.Text, "closest") || !strings.Contains(res.Text, "\n1:func a() {") {
		t.Fatalf("not found: %s", res.Text)
	}
	res = f.fail("edit", map[string]any{"path": "m.go", "old_string": "func a() {\n    return 1", "new_string": "x"})
	if !strings.Contains(res.Text, "different whitespace") {
		t.Fatalf("whitespace hint: %s", res.Text)
	}
	// Several edits: the second fails, so none applies.
	res = f.fail("edit", map[string]any{"path": "m.go", "edits": []map[string]any{
		{"old_string": "func a", "new_string": "func A"}, {"old_string": "nope", "new_string": "x"}}})
	if !strings.Contains(res.Text, "edit 2 of 2; no edit was applied") || !strings.HasPrefix(f.get("m.go"), "func a()") {
		t.Fatalf("atomic edits: %s", res.Text)
	}
	res = f.ok("edit", map[string]any{"path": "m.go", "edits": []map[string]any{
		{"old_string": "func a", "new_string": "func A"}, {"old_string": "return 1", "new_string": "return 9", "replace_all": true}}})
	if f.get("m.go") != "func A() {\n\treturn 9\n}\n\nfunc b() {\n\treturn 9\n}\n" || !strings.Contains(res.Text, "3 replacements") {
		t.Fatalf("edits: %q %s", f.get("m.go"), res.Text)
	}
	// CRLF: old_string with LF matches, and the file keeps CRLF.
	f.put("w.txt", "one\r\ntwo\r\nthree\r\n", 0o644)
	f.ok("read", map[string]any{"path": "w.txt"})
	f.ok("edit", map[string]any{"path": "w.txt", "old_string": "one\ntwo\n", "new_string": "1\n2\n"})
	if got := f.get("w.txt"); got != "1\r\n2\r\nthree\r\n" {
		t.Fatalf("crlf edit = %q", got)
	}
	// Binary files are not edited.
	f.put("b.bin", "a\x00b", 0o644)
	f.ok("read", map[string]any{"path": "b.bin"})
	f.fail("edit", map[string]any{"path": "b.bin", "old_string": "a", "new_string": "c"})
}

// spec: K1
// Every tool checks its own arguments, whatever the engine's schema check
// let through.
func TestToolsValidateTheirInput(t *testing.T) {
	f := newFixture(t)
	f.put("x.txt", "x\n", 0o644)
	bad := []struct{ tool, args, want string }{
		{"read", `{}`, "path is empty"},
		{"read", `{"path":"x.txt","offset":0}`, "offset must be 1 or more"},
		{"read", `{"path":"x.txt","limit":-3}`, "limit must be 1 or more"},
		{"read", `{"path":"x.txt","offset":"2"}`, `"offset" must be an integer`},
		{"read", `{"path":"x.txt","bogus":1}`, `unknown argument "bogus"`},
		{"read", `[1,2]`, "not a valid JSON object"},
		{"read", `{"path":"x.txt"} {"path":"y"}`, "more than one JSON value"},
		{"read", `{"path":"x\u0000.txt"}`, "NUL byte"},
		{"ls", `{"path":7}`, `"path" must be a string`},
		{"glob", `{"pattern":""}`, "pattern is empty"},
		{"glob", `{"pattern":"[a"}`, "not a valid glob"},
		{"grep", `{"pattern":"("}`, "not a valid regular expression"},
		{"grep", `{"pattern":"a","context":11}`, "context must be from 0 to 10"},
		{"grep", `{"pattern":"a\nb"}`, "line break"},
		{"grep", `{"pattern":"a","glob":"[x"}`, "not a valid glob"},
		{"write", `{"path":"y.txt"}`, "content is missing"},
		{"write", `{"path":"","content":"x"}`, "path is empty"},
		{"write", `{"path":"sub/","content":"x"}`, "ends with a slash"},
		{"edit", `{"path":"x.txt","old_string":"x"}`, "give old_string and new_string"},
		{"edit", `{"path":"x.txt","old_string":"","new_string":"y"}`, "old_string is empty"},
		{"edit", `{"path":"x.txt","old_string":"x","new_string":"x"}`, "are the same"},
		{"edit", `{"path":"x.txt","edits":[]}`, "edits is empty"},
		{"edit", `{"path":"x.txt","old_string":"x","new_string":"y","edits":[{"old_string":"a","new_string":"b"}]}`, "not both"},
		{"delete", `{"path":"nothere"}`, "does not exist"},
		{"delete", `{"path":5}`, `"path" must be a string`},
	}
	for _, c := range bad {
		res := f.fail(c.tool, c.args)
		if !strings.Contains(res.Text, c.want) {
			t.Errorf("%s %s = %q; want it to say %q", c.tool, c.args, res.Text, c.want)
		}
		if len(res.FileChanges) > 0 {
			t.Errorf("%s %s recorded changes", c.tool, c.args)
		}
	}
	if got := f.get("x.txt"); got != "x\n" {
		t.Fatalf("x.txt changed: %q", got)
	}
}

// spec: P1, P5, K2
// read, ls, glob and grep declare themselves parallel-safe; write, edit and
// delete never do.
func TestParallelSafety(t *testing.T) {
	f := newFixture(t)
	for name, want := range map[string]bool{"read": true, "ls": true, "glob": true, "grep": true, "write": false, "edit": false, "delete": false} {
		got := false
		if pt, ok := f.tools[name].(tools.Parallel); ok {
			got = pt.ParallelSafe(tools.Call{ID: "c", Name: name, Arguments: []byte(`{}`)})
		}
		if got != want {
			t.Errorf("%s parallel-safe = %v; want %v", name, got, want)
		}
		if spec := f.tools[name].Spec(); spec.ReadOnly != want {
			t.Errorf("%s ReadOnly = %v; want %v", name, spec.ReadOnly, want)
		}
	}
}
