//go:build linux

package tests

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"foya/backend/kernel"
	pt "foya/backend/provider/providertest"
)

// outsideMarker is the content of every file of the outside folder in the
// symlink tests: a result holding it leaked an outside file to the model.
const outsideMarker = "OUTSIDE-SECRET-7f3a"

// outsideIntact fails unless the folder out holds exactly the files named
// in want, each with outsideMarker as its content.
func outsideIntact(t *testing.T, out string, want []string) {
	t.Helper()
	got := snapshotDir(t, out)
	expect := map[string]string{}
	for _, name := range want {
		expect[name] = "-rw-r--r-- " + outsideMarker
	}
	sameDir(t, "the outside folder", got, expect)
}

// trashHoldsNoOutsideFile fails when a file in the trash holds the outside
// marker, or a .trashinfo names a path in the outside folder.
func trashHoldsNoOutsideFile(t *testing.T, trashDir, out string) int {
	t.Helper()
	n := 0
	filepath.Walk(trashDir, func(p string, fi os.FileInfo, err error) error {
		if err != nil || !fi.Mode().IsRegular() {
			return nil
		}
		b, _ := os.ReadFile(p)
		if strings.Contains(string(b), outsideMarker) || strings.Contains(string(b), out) {
			t.Errorf("the trash holds an outside file: %s: %q", p, b)
		}
		if strings.HasSuffix(p, ".trashinfo") {
			n++
		}
		return nil
	})
	return n
}

// plantCall is a sandboxed bash call of the scripted model.
func plantCall(id, command string) pt.Call {
	return call(id, "bash", jsonArgs(map[string]any{"command": command}))
}

// spec: F1, D1, A2
// Revert must not follow a link planted after the change: after the
// model's changes, a sandboxed command (the
// model's own bash call, in Auto) replaces a folder on the way, or the
// file itself, with a symbolic link; the outside folder holds what the
// change left, so no hash differs. Reverting one change, a run, back to a
// point, or one hunk must report a conflict, not follow the link: the
// outside folder is untouched, nothing is trashed, and force does not get
// through either. The revert's preview (a dry run) meets the same
// conflicts.
func TestRevertRefusesAPlantedLink(t *testing.T) {
	needSandbox(t)
	type request func(changes []kernel.Change, run kernel.Run) kernel.RevertRequest
	last := func(changes []kernel.Change, _ kernel.Run) kernel.RevertRequest {
		return kernel.RevertRequest{ChangeIDs: []string{changes[len(changes)-1].ID}}
	}
	cases := []struct {
		name    string
		files   map[string]string // workspace files before the run
		calls   []pt.Call
		plant   string            // the sandboxed command; OUT is the outside folder
		outside map[string]string // the outside folder's files
		req     request
		force   bool
	}{{
		name: "second write",
		calls: []pt.Call{
			call("w1", "write", `{"path":"sub/x.txt","content":"one\n"}`),
			call("w2", "write", `{"path":"sub/x.txt","content":"two\n"}`)},
		plant:   "mv sub sub.moved && ln -s OUT sub",
		outside: map[string]string{"x.txt": "two\n"},
		req:     last,
	}, {
		name: "second write forced",
		calls: []pt.Call{
			call("w1", "write", `{"path":"sub/x.txt","content":"one\n"}`),
			call("w2", "write", `{"path":"sub/x.txt","content":"two\n"}`)},
		plant:   "mv sub sub.moved && ln -s OUT sub",
		outside: map[string]string{"x.txt": "changed outside\n"},
		req:     last,
		force:   true,
	}, {
		name:    "a run that created a file",
		files:   map[string]string{"sub/keep.txt": "kept\n"},
		calls:   []pt.Call{call("w", "write", `{"path":"sub/new.txt","content":"fresh\n"}`)},
		plant:   "mv sub sub.moved && ln -s OUT sub",
		outside: map[string]string{"new.txt": "fresh\n"},
		req: func(_ []kernel.Change, run kernel.Run) kernel.RevertRequest {
			return kernel.RevertRequest{RunID: run.ID}
		},
	}, {
		name:  "a run that deleted a file",
		files: map[string]string{"sub/old.txt": "old\n"},
		calls: []pt.Call{call("d", "delete", `{"path":"sub/old.txt"}`)},
		plant: "mv sub sub.moved && ln -s OUT sub",
		req: func(_ []kernel.Change, run kernel.Run) kernel.RevertRequest {
			return kernel.RevertRequest{RunID: run.ID}
		},
	}, {
		name:  "back to a point",
		files: map[string]string{"deep/sub/keep.txt": "kept\n"},
		calls: []pt.Call{
			call("a", "write", `{"path":"a.txt","content":"a\n"}`),
			call("w1", "write", `{"path":"deep/sub/x.txt","content":"one\n"}`),
			call("w2", "write", `{"path":"deep/sub/x.txt","content":"two\n"}`)},
		plant:   "mv deep deep.moved && ln -s OUT deep",
		outside: map[string]string{"sub/x.txt": "two\n"},
		req: func(changes []kernel.Change, _ kernel.Run) kernel.RevertRequest {
			return kernel.RevertRequest{ToChangeID: changes[0].ID}
		},
	}, {
		name:  "one hunk",
		files: map[string]string{"sub/h.txt": "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n"},
		calls: []pt.Call{
			call("r", "read", `{"path":"sub/h.txt"}`),
			call("e", "edit", jsonArgs(map[string]any{"path": "sub/h.txt", "edits": []map[string]string{
				{"old_string": "1\n2\n", "new_string": "ONE\n2\n"}, {"old_string": "11\n12\n", "new_string": "11\nTWELVE\n"}}}))},
		plant:   "mv sub sub.moved && ln -s OUT sub",
		outside: map[string]string{"h.txt": "ONE\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\nTWELVE\n"},
		req: func(changes []kernel.Change, _ kernel.Run) kernel.RevertRequest {
			return kernel.RevertRequest{ChangeIDs: []string{changes[len(changes)-1].ID}, Hunks: []int{2}, Force: true}
		},
	}, {
		name: "a link to a folder inside",
		calls: []pt.Call{
			call("w1", "write", `{"path":"sub/x.txt","content":"one\n"}`),
			call("w2", "write", `{"path":"sub/x.txt","content":"two\n"}`)},
		plant: "mv sub sub.moved && mkdir other && printf 'two\\n' > other/x.txt && ln -s other sub",
		req:   last,
		force: true,
	}, {
		name: "the file became a link",
		calls: []pt.Call{
			call("w1", "write", `{"path":"sub/x.txt","content":"one\n"}`),
			call("w2", "write", `{"path":"sub/x.txt","content":"two\n"}`)},
		plant:   "mv sub/x.txt sub/x.old && ln -s OUT/x.txt sub/x.txt",
		outside: map[string]string{"x.txt": "two\n"},
		req:     last,
		force:   true,
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			trashDir := privateTrash(t)
			out := t.TempDir()
			h := newHarness(t, nil, pt.Calls(c.calls...), pt.Calls(plantCall("plant", strings.ReplaceAll(c.plant, "OUT", out))), pt.Say("done"))
			for name, content := range c.files {
				writeFile(t, filepath.Join(h.dir, name), content, 0o644)
			}
			for name, content := range c.outside {
				writeFile(t, filepath.Join(out, name), content, 0o644)
			}
			ans := &answerer{}
			ans.watch(h.k, func(kernel.Approval) kernel.Answer { return kernel.Answer{Choice: kernel.Deny} })
			sess := h.session("auto")
			run := h.runIn(context.Background(), sess.ID, "change, then plant")
			res := h.results(run.ID)
			for id, r := range res {
				if r == nil || r.IsError {
					t.Fatalf("%s: %+v", id, r)
				}
			}
			outBefore := snapshotDir(t, out)
			wsBefore := snapshotDir(t, h.dir)
			changes, err := h.k.Changes(context.Background(), sess.ID)
			if err != nil || len(changes) == 0 {
				t.Fatalf("changes: %v %v", err, changes)
			}
			// The plant's own changes are recorded too (shell commands'
			// changes are captured); the
			// selections are of the file tools' changes.
			changes = slices.DeleteFunc(changes, func(c kernel.Change) bool { return c.Tool == "bash" })
			req := c.req(changes, run)
			req.Force = req.Force || c.force
			// The preview meets the same conflicts and
			// follows the link no more than the revert.
			dry := req
			dry.DryRun = true
			pr, err := h.k.Revert(context.Background(), dry)
			if err != nil || len(pr.Reverted) != 0 || len(pr.Conflicts) == 0 {
				t.Fatalf("preview = %v, reverted %d, conflicts %+v; want conflicts and nothing reverted", err, len(pr.Reverted), pr.Conflicts)
			}
			rr, err := h.k.Revert(context.Background(), req)
			if err != nil || len(rr.Reverted) != 0 || len(rr.Conflicts) == 0 {
				t.Fatalf("revert = %v, reverted %d, conflicts %+v; want conflicts and nothing reverted", err, len(rr.Reverted), rr.Conflicts)
			}
			if len(pr.Conflicts) != len(rr.Conflicts) || pr.Conflicts[0] != rr.Conflicts[0] {
				t.Errorf("preview conflicts %+v; the revert met %+v", pr.Conflicts, rr.Conflicts)
			}
			for _, cf := range rr.Conflicts {
				if cf.Forceable || !strings.Contains(cf.Reason, "link") {
					t.Errorf("conflict %+v; want one about the link, that force cannot settle", cf)
				}
			}
			sameDir(t, "the outside folder", snapshotDir(t, out), outBefore)
			sameDir(t, "the workspace", snapshotDir(t, h.dir), wsBefore)
			want := 0
			if strings.Contains(c.name, "deleted") {
				want = 1 // the model's own delete
			}
			if n := trashHoldsNoOutsideFile(t, trashDir, out); n != want {
				t.Errorf("the trash holds %d items; want %d: the revert trashed something", n, want)
			}
		})
	}
}

// spec: F1, D1
// A planted link, with the real binary: foya revert --run, and foya revert
// of one change with --force, after a link was planted where a folder was
// (here by the test, as the sandboxed command above does), exit 3 with the
// conflict and leave the outside folder and the trash alone.
func TestCLIRevertRefusesAPlantedLink(t *testing.T) {
	bin := foyaBinary(t)
	home := t.TempDir()
	env := []string{"HOME=" + home, "XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"), "FOYA_DB=" + filepath.Join(home, "foya.db")}
	dir, out := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(dir, "sub", "keep.txt"), "kept\n", 0o644)
	srv := pt.New(t, pt.Calls(
		call("c1", "write", `{"path":"sub/x.txt","content":"one\n"}`),
		call("c2", "write", `{"path":"sub/x.txt","content":"two\n"}`),
		call("c3", "write", `{"path":"sub/new.txt","content":"fresh\n"}`)),
		pt.Say("done"))
	res := runFoya(t, bin, env, "exec", "--base-url", srv.URL, "--api-key", "x", "--model", "m", "--workdir", dir, "--approval", "auto", "--json", "write")
	if res.code != 0 {
		t.Fatalf("exec: %d\n%s", res.code, res.stderr)
	}
	writeFile(t, filepath.Join(out, "x.txt"), "two\n", 0o644)
	writeFile(t, filepath.Join(out, "new.txt"), "fresh\n", 0o644)
	if err := os.Rename(filepath.Join(dir, "sub"), filepath.Join(dir, "sub.moved")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(out, filepath.Join(dir, "sub")); err != nil {
		t.Fatal(err)
	}
	res = runFoya(t, bin, env, "changes", "--json")
	var all, changes []kernel.Change
	if err := json.Unmarshal([]byte(res.stdout), &all); err != nil {
		t.Fatalf("changes: %v %s", err, res.stdout)
	}
	for _, c := range all {
		if !c.IsDir {
			changes = append(changes, c)
		}
	}
	if len(changes) != 3 {
		t.Fatalf("changes: %+v", all)
	}
	outBefore := snapshotDir(t, out)
	for _, args := range [][]string{{"revert", "--run", changes[0].RunID}, {"revert", "--force", changes[1].ID}, {"revert", "--to", changes[0].ID, "--force"}} {
		res = runFoya(t, bin, env, args...)
		if res.code != 3 || !strings.Contains(res.stdout+res.stderr, "symbolic link") {
			t.Errorf("foya %v: exit %d\n%s%s; want 3 and the conflict", args, res.code, res.stdout, res.stderr)
		}
		sameDir(t, "the outside folder after foya "+strings.Join(args, " "), snapshotDir(t, out), outBefore)
	}
	if _, err := os.Stat(filepath.Join(home, ".local", "share", "Trash", "files")); err == nil {
		if list, _ := os.ReadDir(filepath.Join(home, ".local", "share", "Trash", "files")); len(list) > 0 {
			t.Errorf("the trash holds %d items", len(list))
		}
	}
}
