package tests

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"foya/backend/approval"
	"foya/backend/event"
	"foya/backend/kernel"
	"foya/backend/llm"
	pt "foya/backend/provider/providertest"
	"foya/backend/testwait"
)

// privateTrash points the user's trash at a temporary folder for this test
// (and the kernels it opens), so no test touches the real one.
func privateTrash(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_DATA_HOME", filepath.Join(home, ".local", "share"))
	return filepath.Join(home, ".local", "share", "Trash")
}

// jsonArgs marshals tool arguments.
func jsonArgs(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func writeFile(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// spec: F1, F2, D1, D5, P1, P5
// A turn that reads, searches, writes, edits and deletes through the real
// file tools: the workspace changes as asked, every change is stored with
// its blobs and diff in the result's transaction, tool.end carries the
// file changes, and the model reads text only.
func TestFileToolsThroughTheKernel(t *testing.T) {
	trashDir := privateTrash(t)
	h := newHarness(t, nil,
		pt.Calls(
			call("r1", "read", `{"path":"app.py"}`),
			call("g1", "grep", `{"pattern":"def \\w+","glob":"*.py"}`),
			call("l1", "glob", `{"pattern":"**/*.py"}`),
			call("s1", "ls", `{}`),
		),
		pt.Calls(
			call("e1", "edit", jsonArgs(map[string]any{"path": "app.py", "old_string": "return 1", "new_string": "return 2"})),
			call("w1", "write", jsonArgs(map[string]any{"path": "docs/notes.md", "content": "# Notes\n\nwritten by the agent\n"})),
			call("d1", "delete", `{"path":"old.log"}`),
		),
		pt.Say("done"))
	writeFile(t, filepath.Join(h.dir, "app.py"), "def main():\n    return 1\n", 0o755)
	writeFile(t, filepath.Join(h.dir, "old.log"), "old\n", 0o644)
	sess := h.session("auto")
	run := h.runIn(context.Background(), sess.ID, "change things")
	if run.Status != kernel.RunCompleted {
		t.Fatalf("run %s: %s", run.Status, run.Error)
	}
	reqs := h.srv.Requests()
	reads := toolMessages(reqs[1])
	if !strings.Contains(reads[0].Content, "\n2:    return 1") || !strings.Contains(reads[1].Content, "app.py:1:def main():") ||
		reads[2].Content != "app.py\n" || !strings.Contains(reads[3].Content, "old.log  (4 bytes)") {
		t.Fatalf("read-only results: %+v", reads)
	}
	for _, m := range toolMessages(reqs[2]) {
		if strings.Contains(m.Content, "@@") || strings.Contains(m.Content, "written by the agent") {
			t.Fatalf("spec F2: the model got %q", m.Content)
		}
	}
	for id, r := range h.results(run.ID) {
		if r.IsError {
			t.Fatalf("%s failed: %s", id, r.Text)
		}
	}
	if got := readFile(t, filepath.Join(h.dir, "app.py")); got != "def main():\n    return 2\n" {
		t.Fatalf("app.py = %q", got)
	}
	if fi, _ := os.Stat(filepath.Join(h.dir, "app.py")); fi.Mode().Perm() != 0o755 {
		t.Fatalf("app.py lost its mode: %v", fi.Mode())
	}
	if _, err := os.Stat(filepath.Join(h.dir, "old.log")); !os.IsNotExist(err) {
		t.Fatal("old.log still there")
	}
	if entries, _ := os.ReadDir(filepath.Join(trashDir, "files")); len(entries) != 1 || entries[0].Name() != "old.log" {
		t.Fatalf("spec D1: trash holds %v", entries)
	}

	changes, err := h.k.Changes(context.Background(), sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	var ops []string
	for _, c := range changes {
		ops = append(ops, c.Op+" "+strings.TrimPrefix(c.Path, h.dir+"/"))
		if c.SessionID != sess.ID || c.RunID != run.ID || c.CallID == "" || c.Tool == "" {
			t.Errorf("change %s lacks its place: %+v", c.ID, c)
		}
	}
	if strings.Join(ops, ", ") != "edit app.py, create docs, create docs/notes.md, delete old.log" {
		t.Fatalf("changes: %s", strings.Join(ops, ", "))
	}
	// spec F1: each change records the mode before and the mode after
	// (type and permission bits; 0 where there was no file). Recording
	// the mode before as the mode after passed this test before.
	const regular, folder = 0o100000, 0o040000
	for i, w := range []struct{ before, after uint32 }{
		{regular | 0o755, regular | 0o755}, // the edit keeps app.py's mode
		{0, folder},                        // docs did not exist; a folder's permissions follow the umask
		{0, regular | 0o644},               // a new file gets 0644
		{regular | 0o644, 0},               // old.log is gone from the workspace
	} {
		c := changes[i]
		after := c.ModeAfter
		if w.after == folder {
			after &^= 0o777
		}
		if c.ModeBefore != w.before || after != w.after {
			t.Errorf("spec F1: %s %s: mode before %o, after %o; want %o, %o", c.Op, c.Path, c.ModeBefore, c.ModeAfter, w.before, w.after)
		}
	}
	edit := changes[0]
	if d, _ := h.k.Diff(context.Background(), edit.ID); !strings.Contains(d, "--- a/app.py\n+++ b/app.py\n@@ -1,2 +1,2 @@\n def main():\n-    return 1\n+    return 2\n") {
		t.Fatalf("diff: %q", d)
	}
	// The tool.end events carry the changes for the UI (spec D5).
	ends := 0
	for _, ev := range h.eventList() {
		if ev.Type == event.TypeToolEnd && field(ev, "fileChanges") != nil {
			ends++
		}
	}
	if ends != 3 {
		t.Fatalf("%d tool.end events with file changes; want 3", ends)
	}
}

// spec: I1
// read returns an image that becomes an artifact, sent to the model as an
// image part.
func TestReadImageBecomesArtifact(t *testing.T) {
	h := newHarness(t, nil, pt.Calls(call("r", "read", `{"path":"dot.png"}`)), pt.Say("a red dot"))
	img := image.NewRGBA(image.Rect(0, 0, 2, 2))
	img.Set(0, 0, color.RGBA{255, 0, 0, 255})
	var buf bytes.Buffer
	png.Encode(&buf, img)
	writeFile(t, filepath.Join(h.dir, "dot.png"), buf.String(), 0o644)
	sess := h.session("auto")
	h.runIn(context.Background(), sess.ID, "look")
	var images []string
	for _, m := range h.srv.Requests()[1].Messages {
		images = append(images, m.Images...)
	}
	if len(images) != 1 || !strings.HasPrefix(images[0], "data:image/png;base64,") {
		t.Fatalf("the next request carries images %v", images)
	}
	calls, _ := h.k.Calls(context.Background(), h.mustRun(sess.ID).ID)
	if len(calls[0].Result.Artifacts) != 1 {
		t.Fatalf("no artifact: %+v", calls[0].Result)
	}
	a, err := h.k.Artifact(context.Background(), sess.ID, calls[0].Result.Artifacts[0])
	if err != nil || !bytes.Equal(a.Data, buf.Bytes()) {
		t.Fatalf("artifact: %v", err)
	}
}

// results returns the stored results of a run's calls by call ID.
func (h *harness) results(runID string) map[string]*kernel.ToolResult {
	h.t.Helper()
	calls, err := h.k.Calls(context.Background(), runID)
	if err != nil {
		h.t.Fatal(err)
	}
	out := map[string]*kernel.ToolResult{}
	for _, c := range calls {
		out[c.ID] = c.Result
	}
	return out
}

func (h *harness) mustRun(sessionID string) kernel.Run {
	runs, err := h.k.Runs(context.Background(), sessionID)
	if err != nil || len(runs) == 0 {
		h.t.Fatalf("runs: %v", err)
	}
	return runs[len(runs)-1]
}

// The stale-read guard survives a restart: a session continued by a new
// kernel still refuses to overwrite a file that changed since it was read,
// and still refuses one it never read.
func TestStaleReadGuardSurvivesRestart(t *testing.T) {
	h := newHarness(t, nil,
		pt.Calls(call("r", "read", `{"path":"a.txt"}`)), pt.Say("read it"),
		pt.Calls(call("w", "write", `{"path":"a.txt","content":"mine\n"}`), call("w2", "write", `{"path":"b.txt","content":"mine\n"}`)), pt.Say("tried"))
	writeFile(t, filepath.Join(h.dir, "a.txt"), "theirs\n", 0o644)
	writeFile(t, filepath.Join(h.dir, "b.txt"), "never read\n", 0o644)
	sess := h.session("auto")
	h.runIn(context.Background(), sess.ID, "read a")
	h.k.Close()
	writeFile(t, filepath.Join(h.dir, "a.txt"), "theirs, edited in an editor\n", 0o644)
	h.open(nil)
	res := h.results(h.runIn(context.Background(), sess.ID, "write a").ID)
	if !res["w"].IsError || !strings.Contains(res["w"].Text, "changed since you last read it") {
		t.Fatalf("a.txt: %+v", res["w"])
	}
	if !res["w2"].IsError || !strings.Contains(res["w2"].Text, "have not read") {
		t.Fatalf("b.txt: %+v", res["w2"])
	}
	if readFile(t, filepath.Join(h.dir, "a.txt")) != "theirs, edited in an editor\n" || readFile(t, filepath.Join(h.dir, "b.txt")) != "never read\n" {
		t.Fatal("a refused write changed a file")
	}
}

// spec: D1, D2, D3, D4
// delete through the engine and the approval gateway in every mode: a
// workspace file (asked in Manual, where the person allows it), .git and
// an outside file (refused in Manual and Auto, trashed in Full Access),
// and the filesystem root (refused in every mode). What is gone from its
// place is in the trash, its .trashinfo naming where it was (checking only
// that it was gone let a permanent delete pass).
func TestDeleteModesThroughTheEngine(t *testing.T) {
	for _, mode := range []approval.Mode{approval.Manual, approval.Auto, approval.FullAccess} {
		t.Run(string(mode), func(t *testing.T) {
			trashDir := privateTrash(t)
			outside := filepath.Join(t.TempDir(), "outside.txt")
			h := newHarness(t, nil, pt.Calls(
				call("in", "delete", `{"path":"in.txt"}`),
				call("git", "delete", `{"path":".git"}`),
				call("out", "delete", jsonArgs(map[string]string{"path": outside})),
				call("root", "delete", `{"path":"/"}`),
			), pt.Say("ok"))
			writeFile(t, filepath.Join(h.dir, "in.txt"), "in", 0o644)
			writeFile(t, filepath.Join(h.dir, ".git", "HEAD"), "ref", 0o644)
			writeFile(t, outside, "out", 0o644)
			ans := &answerer{}
			ans.watch(h.k, func(kernel.Approval) kernel.Answer { return kernel.Answer{Choice: kernel.AllowOnce} })
			res := h.results(h.runIn(context.Background(), h.session(string(mode)).ID, "delete").ID)
			gone := func(p string) bool { _, err := os.Lstat(p); return os.IsNotExist(err) }
			full := mode == approval.FullAccess
			for _, c := range []struct {
				id, path string
				want     bool
			}{{"in", filepath.Join(h.dir, "in.txt"), true}, {"git", filepath.Join(h.dir, ".git"), full}, {"out", outside, full}, {"root", "/", false}} {
				if gone(c.path) != c.want || res[c.id].IsError == c.want {
					t.Errorf("%s: gone %v, result %q; want gone %v", c.path, gone(c.path), res[c.id].Text, c.want)
				}
			}
			held := trashed(t, trashDir)
			for _, c := range []struct {
				path, file string // file: a file inside it and its content
				want       bool
			}{{filepath.Join(h.dir, "in.txt"), "", true}, {filepath.Join(h.dir, ".git"), "HEAD", full}, {outside, "", full}} {
				item, ok := held[c.path]
				if ok != c.want {
					t.Errorf("spec D1: the trash holds %s: %v; want %v (trash: %v)", c.path, ok, c.want, held)
					continue
				}
				if !ok {
					continue
				}
				want := map[string]string{"in.txt": "in", "outside.txt": "out", ".git": "ref"}[filepath.Base(c.path)]
				if got := readFile(t, filepath.Join(item, c.file)); got != want {
					t.Errorf("spec D1: the trashed %s holds %q; want %q", c.path, got, want)
				}
			}
			if len(held) != map[bool]int{true: 3, false: 1}[full] {
				t.Errorf("spec D1: the trash holds %d items; want what was deleted: %v", len(held), held)
			}
			if !strings.Contains(res["root"].Text, "filesystem root") {
				t.Errorf("root: %q", res["root"].Text)
			}
			if asked := strings.Join(ans.asked, ","); (mode == approval.Manual) != (asked == "delete") {
				t.Errorf("asked %q in %s", asked, mode)
			}
		})
	}
}

// trashed reads the trash folder at dir as the freedesktop.org trash
// specification lays it out, without Foya's trash package: each
// info/NAME.trashinfo's Path (percent-encoded) mapped to files/NAME, which
// must exist.
func trashed(t *testing.T, dir string) map[string]string {
	t.Helper()
	infos, _ := filepath.Glob(filepath.Join(dir, "info", "*.trashinfo"))
	out := map[string]string{}
	for _, info := range infos {
		var orig string
		for _, line := range strings.Split(readFile(t, info), "\n") {
			if v, ok := strings.CutPrefix(line, "Path="); ok {
				p, err := url.PathUnescape(v)
				if err != nil {
					t.Fatalf("%s: Path %q: %v", info, v, err)
				}
				orig = p
			}
		}
		item := filepath.Join(dir, "files", strings.TrimSuffix(filepath.Base(info), ".trashinfo"))
		if _, err := os.Lstat(item); err != nil || orig == "" {
			t.Fatalf("%s: Path %q, its item: %v", info, orig, err)
		}
		out[orig] = item
	}
	return out
}

// The watcher reports a file the session read that an editor changed, and
// the stale-read guard then refuses to write it.
func TestWatchReportsOutsideChanges(t *testing.T) {
	h := newHarness(t, nil, pt.Calls(call("r", "read", `{"path":"w.txt"}`)), pt.Say("read"))
	writeFile(t, filepath.Join(h.dir, "w.txt"), "before\n", 0o644)
	sess := h.session("auto")
	h.runIn(context.Background(), sess.ID, "read")
	got := make(chan llm.Event, 4)
	unsub := h.k.Subscribe(func(ev llm.Event) {
		if ev.Type == event.TypeFileChangedOutside {
			got <- ev
		}
	})
	defer unsub()
	stop, err := h.k.WatchSession(context.Background(), sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	writeFile(t, filepath.Join(h.dir, "w.txt"), "after, from an editor\n", 0o644)
	ev := testwait.Receive(t, got, "the watcher's file.changed_outside event")
	if ev.SessionID != sess.ID || ev.Seq == 0 || field(ev, "path") != filepath.Join(h.dir, "w.txt") || field(ev, "exists") != true {
		t.Fatalf("event %+v %s", ev, ev.Data)
	}
	stored, _ := h.k.Events(context.Background(), sess.ID, ev.Seq-1)
	if len(stored) == 0 || stored[0].Type != event.TypeFileChangedOutside {
		t.Fatalf("event not stored: %+v", stored)
	}
	if _, err := h.k.WatchSession(context.Background(), "ses_nope"); !kernel.IsNotFound(err) {
		t.Fatalf("watching an unknown session: %v", err)
	}
}
