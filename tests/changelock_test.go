//go:build unix

package tests

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"foya/backend/event"
	"foya/backend/kernel"
	"foya/backend/llm"
	pt "foya/backend/provider/providertest"
	"foya/backend/testwait"
	"foya/backend/tools"
)

// heldWrite appends a line to a file as Foya's file tools change files
// (under the session's change lock), then waits for resume before it
// returns its File Change: a file tool whose change is on disk and whose
// record is not stored yet.
type heldWrite struct {
	path            string
	changed, resume chan struct{}
}

func (heldWrite) Spec() tools.Spec {
	return tools.Spec{Name: "held_write", Description: "appends a line to a.txt", Schema: tools.SchemaOf[struct{}](), Exposure: tools.Direct}
}

func (w heldWrite) Run(ctx context.Context, rc *tools.RunContext, call tools.Call) (tools.Result, error) {
	if _, err := rc.LockChanges(ctx); err != nil {
		return tools.Errorf("held_write: %v", err), nil
	}
	before, err := os.ReadFile(w.path)
	if err != nil {
		return tools.Result{}, err
	}
	after := append(slices.Clip(before), "by the tool\n"...)
	if err := os.WriteFile(w.path, after, 0o640); err != nil {
		return tools.Result{}, err
	}
	close(w.changed)
	<-w.resume
	sum := func(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }
	fc := llm.FileChange{Path: w.path, Op: event.OpWrite, ExistedBefore: true, ExistsAfter: true,
		SHABefore: sum(before), SHAAfter: sum(after), ModeBefore: 0o100640, ModeAfter: 0o100640}
	return tools.Result{Text: "appended", FileChanges: []tools.FileChange{{FileChange: fc, Before: before, After: after}}}, nil
}

// spec: F1, B1
// Found by the crash harness ("sub/c.txt … is not what its last change
// (delete by s2c0, bg) left"): a background command's capture at
// its end waits for the session's change lock, which a file tool holds
// from before its change until its File Change is stored. Without the
// lock the capture looked while the tool's change was on disk and not yet
// recorded, took it for the command's own (a confirmed change that the
// tool's record then repeated, so the path's records no longer followed
// one another), and committed before the tool's record. Here the tool
// changes a.txt and holds; the background command then appends to b.txt
// and ends; its capture must wait (LockWait says so), and once the tool's
// record is stored it records b.txt only.
func TestBackgroundCaptureWaitsForAFileToolsRecord(t *testing.T) {
	privateTrash(t)
	h := &harness{t: t, dir: t.TempDir()}
	h.db = filepath.Join(t.TempDir(), "foya.db")
	marker := filepath.Join(t.TempDir(), "go")
	tool := heldWrite{path: filepath.Join(h.dir, "a.txt"), changed: make(chan struct{}), resume: make(chan struct{})}
	h.srv = pt.New(t,
		pt.Calls(call("bg", "bash", jsonArgs(map[string]any{
			"command":           "while [ ! -e " + marker + " ]; do sleep 0.01; done; echo bg >> b.txt",
			"run_in_background": true}))),
		pt.Calls(call("w", "held_write", `{}`)),
		pt.Say("done"))
	waiting := make(chan string, 16)
	k, err := kernel.Open(context.Background(), kernel.Options{DBPath: h.db, Tools: []tools.Tool{tool}, TextFlush: time.Millisecond,
		ChangeLockWait: func(sessionID string) {
			select {
			case waiting <- sessionID:
			default:
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	h.k = k
	t.Cleanup(func() { k.Close() })
	captured := make(chan struct{})
	k.Subscribe(func(ev llm.Event) {
		h.mu.Lock()
		h.events = append(h.events, ev)
		h.mu.Unlock()
		if ev.Type == event.TypeFileCaptured {
			var d event.FileCapturedData
			json.Unmarshal(ev.Data, &d)
			if d.CallID == "bg" {
				close(captured)
			}
		}
	})
	shellcapFiles(t, h.dir)
	ctx := context.Background()
	sess := h.session("full_access")
	ran := make(chan error, 1)
	go func() {
		_, err := k.Run(ctx, kernel.RunOptions{SessionID: sess.ID, Prompt: "race", Model: h.model()})
		ran <- err
	}()
	testwait.Receive(t, tool.changed, "the tool's change")
	if err := os.WriteFile(marker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	// The capture either waits for the lock (the fix) or, without it,
	// looks and records at once.
	waited := false
	select {
	case <-waiting:
		waited = true
	case <-captured:
	case <-time.After(time.Minute):
		t.Fatal("the background command's capture neither waited for the change lock nor recorded anything")
	}
	close(tool.resume)
	if err := testwait.Receive(t, ran, "the run's end"); err != nil {
		t.Fatal(err)
	}
	testwait.Receive(t, captured, "the background command's capture")
	fcs := toolChanges(h, "bg")
	if got := opsOf(realDir(t, h.dir), fcs); !slices.Equal(got, []string{"write b.txt"}) {
		t.Errorf("the background command's changes: %q; want only its own, write b.txt", got)
	}
	if !waited {
		t.Errorf("the capture did not wait for the file tool's record to be stored")
	}
	// Every path's records follow one another, and the newest matches the disk.
	list, err := k.Changes(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	last := map[string]kernel.Change{}
	for _, fc := range list {
		if prev, ok := last[fc.Path]; ok && prev.SHAAfter != fc.SHABefore {
			t.Errorf("change %s (%s by %s) of %s does not start where %s (%s by %s) left it",
				fc.ID, fc.Op, fc.CallID, fc.Path, prev.ID, prev.Op, prev.CallID)
		}
		last[fc.Path] = fc
	}
	for p, fc := range last {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if s := sha256.Sum256(b); hex.EncodeToString(s[:]) != fc.SHAAfter {
			t.Errorf("%s on disk is not what its last change %s (%s by %s) left", p, fc.ID, fc.Op, fc.CallID)
		}
	}
}

// spec: F1, B1
// Found by the crash harness ("change (delete by s5c0) of sub/deep/d.txt
// does not start where (create by s3c3) left it"): a live
// background command appends to a file the model wrote, nothing looks at
// that change, then the model's delete moves the file to the trash. The
// delete's record started from the appended content, and the command's
// capture at its end found the path gone as that record says and recorded
// nothing: the path's records had a hole. Now a file tool that takes the
// change lock while a background command lives first looks at its path and
// records what changed there as the command's. The command waits on a
// fifo the test controls, so it is alive throughout.
func TestFileToolRecordsALiveBackgroundCommandsChangeFirst(t *testing.T) {
	privateTrash(t)
	h := &harness{t: t, dir: t.TempDir()}
	h.db = filepath.Join(t.TempDir(), "foya.db")
	fifos := t.TempDir()
	appended, resume := filepath.Join(fifos, "appended"), filepath.Join(fifos, "resume")
	for _, p := range []string{appended, resume} {
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	hold := make(chan struct{})
	h.srv = pt.New(t,
		pt.Calls(call("w", "write", jsonArgs(map[string]any{"path": "d.txt", "content": "delta\n"}))),
		pt.Calls(call("bg", "bash", jsonArgs(map[string]any{
			"command":           "echo bg >> d.txt; echo >" + appended + "; cat " + resume + " >/dev/null",
			"run_in_background": true}))),
		pt.Turn{Calls: []pt.Call{call("del", "delete", `{"path":"d.txt"}`)}, Hold: hold},
		pt.Say("done"))
	k, err := kernel.Open(context.Background(), kernel.Options{DBPath: h.db, TextFlush: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	h.k = k
	t.Cleanup(func() { k.Close() })
	k.Subscribe(func(ev llm.Event) {
		h.mu.Lock()
		h.events = append(h.events, ev)
		h.mu.Unlock()
	})
	ctx := context.Background()
	sess := h.session("full_access")
	ran := make(chan error, 1)
	go func() {
		_, err := k.Run(ctx, kernel.RunOptions{SessionID: sess.ID, Prompt: "race", Model: h.model()})
		ran <- err
	}()
	// Opening the fifo waits for the command to open it: it has appended.
	read := make(chan error, 1)
	go func() { _, err := os.ReadFile(appended); read <- err }()
	if err := testwait.Receive(t, read, "the background command's append"); err != nil {
		t.Fatal(err)
	}
	close(hold)
	if err := testwait.Receive(t, ran, "the run's end"); err != nil {
		t.Fatal(err)
	}
	// The command is still alive (it waits on resume): its change of
	// d.txt was recorded before the delete's.
	dir := realDir(t, h.dir)
	if got := opsOf(dir, toolChanges(h, "bg")); !slices.Equal(got, []string{"write d.txt"}) {
		t.Errorf("the background command's changes: %q; want write d.txt, recorded before the delete", got)
	}
	list, err := k.Changes(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	var ops []string
	last := map[string]kernel.Change{}
	for _, fc := range list {
		ops = append(ops, fc.Op+" by "+fc.CallID)
		if prev, ok := last[fc.Path]; ok && prev.SHAAfter != fc.SHABefore {
			t.Errorf("change %s (%s by %s) of %s does not start where %s (%s by %s) left it",
				fc.ID, fc.Op, fc.CallID, fc.Path, prev.ID, prev.Op, prev.CallID)
		}
		last[fc.Path] = fc
	}
	if want := []string{"create by w", "write by bg", "delete by del"}; !slices.Equal(ops, want) {
		t.Errorf("the session's changes: %q; want %q", ops, want)
	}
	if err := os.WriteFile(resume, nil, 0o600); err != nil {
		t.Fatal(err)
	}
}
