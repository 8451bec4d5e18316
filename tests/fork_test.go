package tests

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"foya/backend/engine"
	"foya/backend/event"
	"foya/backend/kernel"
	pt "foya/backend/provider/providertest"
)

// Issue 29, item 2: fork a session from any prompt.

// forkScript is three prompts: the first writes a.txt, the second b.txt,
// the third only answers.
func forkScript() []pt.Turn {
	return []pt.Turn{
		pt.Calls(call("w1", "write", `{"path":"a.txt","content":"one\n"}`)), pt.Say("wrote a"),
		pt.Calls(call("w2", "write", `{"path":"b.txt","content":"two\n"}`)), pt.Say("wrote b"),
		pt.Say("third answer"),
		pt.Say("forked answer"),
	}
}

// forkState is what a session holds, to compare before and after a fork.
type forkState struct {
	messages []kernel.Message
	events   []string
	changes  []string
	runs     []string
}

func stateOf(t *testing.T, h *harness, id string) forkState {
	t.Helper()
	ctx := context.Background()
	msgs, err := h.k.Messages(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	evs, err := h.k.Events(ctx, id, 0)
	if err != nil {
		t.Fatal(err)
	}
	chs, err := h.k.Changes(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	runs, err := h.k.Runs(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	var st forkState
	st.messages = msgs
	for _, ev := range evs {
		st.events = append(st.events, ev.Type+" "+ev.RunID)
	}
	for _, c := range chs {
		st.changes = append(st.changes, c.ID+" "+c.Path)
	}
	for _, r := range runs {
		st.runs = append(st.runs, r.ID+" "+r.Prompt)
	}
	return st
}

// A fork from the second prompt holds everything the session stored
// before that prompt (its messages at the same positions, its events
// with their seq, its first run and that run's file change, under new
// IDs), records its parent and the prompt, gives the prompt's text back
// as the draft, and leaves the parent as it was. Continued, the fork's
// model sees the first turn and not the second.
func TestForkFromTheMiddle(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t, nil, forkScript()...)
	ses := h.session("auto")
	for _, p := range []string{"write a", "write b", "say something"} {
		if r := h.runIn(ctx, ses.ID, p); r.Status != kernel.RunCompleted {
			t.Fatalf("run %q: %s %s", p, r.Status, r.Error)
		}
	}
	before := stateOf(t, h, ses.ID)

	f, err := h.k.ForkSession(ctx, ses.ID, 2)
	if err != nil {
		t.Fatal(err)
	}
	if f.Draft != "write b" {
		t.Errorf("draft = %q; want the second prompt", f.Draft)
	}
	fs := f.Session
	if fs.ForkedFrom != ses.ID || fs.ForkedAt != 2 || fs.Title != "test (fork)" || fs.Workdir != ses.Workdir || fs.ID == ses.ID {
		t.Errorf("fork = %+v; want forked from %s at 2, titled %q, in %s", fs, ses.ID, "test (fork)", ses.Workdir)
	}
	if got, err := h.k.Session(ctx, fs.ID); err != nil || got.ForkedFrom != ses.ID || got.ForkedAt != 2 || got.Runs != 1 {
		t.Errorf("stored fork = %+v, %v; want its parent, prompt 2 and one run", got, err)
	}
	if after := stateOf(t, h, ses.ID); !slices.Equal(after.events, before.events) || !slices.Equal(after.changes, before.changes) ||
		!slices.Equal(after.runs, before.runs) || len(after.messages) != len(before.messages) {
		t.Errorf("the parent changed with the fork:\nbefore %v\nafter  %v", before, after)
	}

	got := stateOf(t, h, fs.ID)
	firstOfSecond := slices.IndexFunc(before.messages, func(m kernel.Message) bool { return m.RunID == strings.Fields(before.runs[1])[0] })
	if firstOfSecond < 1 || len(got.messages) != firstOfSecond {
		t.Fatalf("fork has %d messages; want the %d before the second prompt", len(got.messages), firstOfSecond)
	}
	for i, m := range got.messages {
		a, _ := json.Marshal(m.Message)
		b, _ := json.Marshal(before.messages[i].Message)
		if string(a) != string(b) {
			t.Errorf("fork message %d = %s; want %s", i+1, a, b)
		}
	}
	if len(got.runs) != 1 || strings.Fields(got.runs[0])[0] == strings.Fields(before.runs[0])[0] || !strings.HasSuffix(got.runs[0], " write a") {
		t.Errorf("fork runs = %v; want a copy of the first run under a new ID", got.runs)
	}
	forkRun := strings.Fields(got.runs[0])[0]
	for i, ev := range got.events {
		typ, run, _ := strings.Cut(ev, " ")
		if want, _, _ := strings.Cut(before.events[i], " "); typ != want || (run != "" && run != forkRun) {
			t.Errorf("fork event %d = %q; want type %s of the fork's own run %s", i+1, ev, want, forkRun)
		}
	}
	if n := len(got.events); n == 0 || !strings.HasPrefix(got.events[n-1], event.TypeRunEnd) {
		t.Errorf("fork events end with %v; want the first run's run.end", got.events)
	}
	if len(got.changes) != 1 || !strings.HasSuffix(got.changes[0], "a.txt") || got.changes[0] == before.changes[0] {
		t.Errorf("fork changes = %v; want a.txt's change under a new ID (parent: %v)", got.changes, before.changes)
	}
	evs, _ := h.k.Events(ctx, fs.ID, 0)
	for _, ev := range evs {
		if strings.Contains(string(ev.Data), strings.Fields(before.changes[0])[0]) || strings.Contains(string(ev.Data), strings.Fields(before.runs[0])[0]) {
			t.Errorf("fork event %s still names the parent's change or run: %s", ev.Type, ev.Data)
		}
	}
	if fs.LastSeq != int64(len(got.events)) {
		t.Errorf("fork lastSeq = %d; want %d (its events are numbered as the parent's were)", fs.LastSeq, len(got.events))
	}

	// Continued with its draft, the fork's model sees the first turn only;
	// its new events follow the copied ones with no gap.
	n := len(h.srv.Requests())
	if r := h.runIn(ctx, fs.ID, f.Draft+" differently"); r.Status != kernel.RunCompleted {
		t.Fatalf("fork run: %s %s", r.Status, r.Error)
	}
	req := h.srv.Requests()[n]
	var texts []string
	for _, m := range req.Messages {
		texts = append(texts, m.Content)
	}
	all := strings.Join(texts, "\n")
	if !strings.Contains(all, "write a") || !strings.Contains(all, "wrote a") || strings.Contains(all, "wrote b") || !strings.Contains(all, "write b differently") {
		t.Errorf("the fork's request holds %q; want the first turn and the new prompt, not the second turn", all)
	}
	// The copied events are history: not published as news (a session
	// list counting changes from events would count them twice).
	for _, ev := range h.eventList() {
		if ev.SessionID == fs.ID && ev.Seq <= fs.LastSeq {
			t.Errorf("the fork's copied event %d (%s) was published", ev.Seq, ev.Type)
		}
	}
	evs, _ = h.k.Events(ctx, fs.ID, 0)
	for i, ev := range evs {
		if ev.Seq != int64(i+1) {
			t.Fatalf("fork event %d has seq %d; want no gap", i+1, ev.Seq)
		}
	}

	// A fork of the fork records the fork as its parent.
	ff, err := h.k.ForkSession(ctx, fs.ID, 2)
	if err != nil {
		t.Fatal(err)
	}
	if ff.Session.ForkedFrom != fs.ID || ff.Session.ForkedAt != 2 || ff.Draft != "write b differently" || ff.Session.Title != "test (fork)" {
		t.Errorf("fork of the fork = %+v, draft %q; want forked from %s at 2 with the fork's second prompt", ff.Session, ff.Draft, fs.ID)
	}
	if st := stateOf(t, h, ff.Session.ID); len(st.runs) != 1 || len(st.changes) != 1 {
		t.Errorf("fork of the fork = %v; want the first run and its change", st)
	}

	// The whole session (0) has every run; the parent deleted, the forks stay.
	whole, err := h.k.ForkSession(ctx, ses.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	if st := stateOf(t, h, whole.Session.ID); len(st.runs) != 3 || len(st.changes) != 2 || whole.Draft != "" || len(st.events) != len(before.events) {
		t.Errorf("whole fork = %v, draft %q; want the three runs, two changes, every event and no draft", st, whole.Draft)
	}
	if err := h.k.DeleteSession(ctx, ses.ID); err != nil {
		t.Fatal(err)
	}
	if got, err := h.k.Session(ctx, fs.ID); err != nil || got.ForkedFrom != ses.ID {
		t.Errorf("fork after its parent was deleted = %+v, %v; want it kept, naming its parent", got, err)
	}
	if st := stateOf(t, h, fs.ID); len(st.changes) != 1 {
		t.Errorf("fork's changes after its parent was deleted = %v", st.changes)
	}
	if data, err := os.ReadFile(filepath.Join(h.dir, "a.txt")); err != nil || string(data) != "one\n" {
		t.Errorf("a.txt = %q, %v; the fork works in the parent's folder", data, err)
	}
}

// Bad forks are refused with what to give instead, and store nothing.
func TestForkBadInput(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t, nil, pt.Say("one"), pt.Say("two"))
	empty := h.session("auto")
	ses := h.session("auto")
	h.runIn(ctx, ses.ID, "first")
	h.runIn(ctx, ses.ID, "second")
	list := func() int {
		l, err := h.k.Sessions(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return len(l)
	}
	n := list()
	for _, c := range []struct {
		id   string
		at   int
		want error
		says string
	}{
		{ses.ID, 3, kernel.ErrInvalid, "has 2 prompts; give 1 to 2"},
		{ses.ID, -1, kernel.ErrInvalid, "give a prompt number from 1"},
		{empty.ID, 1, kernel.ErrInvalid, "has no prompts yet"},
		{"ses_nope", 1, kernel.ErrNotFound, "ses_nope"},
	} {
		_, err := h.k.ForkSession(ctx, c.id, c.at)
		if !errors.Is(err, c.want) || err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("ForkSession(%s, %d) = %v; want %v saying %q", c.id, c.at, err, c.want, c.says)
		}
	}
	if list() != n {
		t.Errorf("a refused fork stored a session")
	}
	// An empty session forks whole.
	if f, err := h.k.ForkSession(ctx, empty.ID, 0); err != nil || f.Session.ForkedFrom != empty.ID {
		t.Errorf("fork of an empty session = %+v, %v", f, err)
	}
}

// A compaction recorded before the fork point stays in force in the fork,
// for the same messages: the fork's next request sends its note; one
// made after the fork point is not in the fork.
// spec: R2
func TestForkKeepsCompaction(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t, nil, pt.Say("one"), pt.Say("two"), pt.Say("three"), pt.Say("fork reply"))
	h.srv.Route(pt.IsCompact, summaryTurns(2)...)
	ses := h.session("auto")
	h.runIn(ctx, ses.ID, "first")
	h.runIn(ctx, ses.ID, "second")
	d, err := h.k.Compact(ctx, kernel.CompactOptions{SessionID: ses.ID, Model: h.model(), Window: engine.Window{Tokens: 32768, Known: true, About: "the test's"}})
	if err != nil {
		t.Fatal(err)
	}
	h.runIn(ctx, ses.ID, "third")

	early, err := h.k.ForkSession(ctx, ses.ID, 2)
	if err != nil {
		t.Fatal(err)
	}
	if got := payloads[event.ContextCompactedData](t, h, early.Session.ID, event.TypeContextCompacted); len(got) != 0 {
		t.Errorf("a fork before the compaction has %d compactions; want none", len(got))
	}
	late, err := h.k.ForkSession(ctx, ses.ID, 3)
	if err != nil {
		t.Fatal(err)
	}
	got := payloads[event.ContextCompactedData](t, h, late.Session.ID, event.TypeContextCompacted)
	if len(got) != 1 || got[0].Upto != d.Upto || got[0].Note != d.Note {
		t.Fatalf("fork after the compaction has %+v; want the parent's compaction %s of r1 to r%d", got, d.ID, d.Upto)
	}
	msgs, err := h.k.Messages(ctx, late.Session.ID)
	if err != nil || len(msgs) < d.Upto {
		t.Fatalf("fork messages: %d, %v; want at least the %d the note stands for", len(msgs), err, d.Upto)
	}
	n := len(h.srv.Requests())
	h.runIn(ctx, late.Session.ID, "third again")
	req := h.srv.Requests()[n]
	var sent []string
	for _, m := range req.Messages {
		sent = append(sent, m.Content)
	}
	all := strings.Join(sent, "\n")
	if !strings.Contains(all, d.Note) || !strings.Contains(all, "third again") {
		t.Errorf("the fork's request = %q; want the compaction's note and the new prompt", all)
	}
}

// A fork from the middle of a session gets, in a copy of the session's
// files, the files as they were before that prompt, from the recorded
// changes (what an isolated session's fork is to hold); a file of the
// copy changed since the session's last change of it is reported before
// forking, and nothing is written.
// spec: F1
func TestForkFilesAsTheyWere(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t, nil,
		pt.Calls(call("w1", "write", `{"path":"a.txt","content":"one\n"}`)), pt.Say("wrote a"),
		pt.Calls(call("r", "read", `{"path":"a.txt"}`)), pt.Calls(call("e", "edit", `{"path":"a.txt","old_string":"one","new_string":"two"}`),
			call("w2", "write", `{"path":"src/b.txt","content":"b\n"}`)), pt.Say("changed a, wrote b"),
		pt.Calls(call("w3", "write", `{"path":"c.txt","content":"c\n"}`)), pt.Say("wrote c"))
	writeFile(t, filepath.Join(h.dir, "keep.txt"), "kept\n", 0o644)
	ses := h.session("auto")
	for _, p := range []string{"write a", "change a, write b", "write c"} {
		if r := h.runIn(ctx, ses.ID, p); r.Status != kernel.RunCompleted {
			t.Fatalf("run %q: %s %s", p, r.Status, r.Error)
		}
	}
	if got := readFile(t, filepath.Join(h.dir, "a.txt")); got != "two\n" {
		t.Fatalf("a.txt = %q after the session", got)
	}
	cp := t.TempDir()
	copyTree(t, h.dir, cp)
	if bad, err := h.k.CheckForkFiles(ctx, ses.ID, 2, cp); err != nil || len(bad) != 0 {
		t.Fatalf("CheckForkFiles = %+v, %v; want every file restorable", bad, err)
	}
	if bad, err := h.k.RestoreForkFiles(ctx, ses.ID, 2, cp); err != nil || len(bad) != 0 {
		t.Fatalf("RestoreForkFiles = %+v, %v", bad, err)
	}
	for name, want := range map[string]string{"a.txt": "one\n", "keep.txt": "kept\n"} {
		if got := readFile(t, filepath.Join(cp, name)); got != want {
			t.Errorf("copy's %s = %q; want %q as before prompt 2", name, got, want)
		}
	}
	for _, gone := range []string{"src/b.txt", "src", "c.txt"} {
		if _, err := os.Lstat(filepath.Join(cp, gone)); !os.IsNotExist(err) {
			t.Errorf("copy's %s is there (%v); want it gone, as before prompt 2", gone, err)
		}
	}
	if got := readFile(t, filepath.Join(h.dir, "a.txt")); got != "two\n" {
		t.Errorf("the session's own a.txt = %q; want it untouched", got)
	}

	// The check before forking names what cannot come back.
	cp2 := t.TempDir()
	copyTree(t, h.dir, cp2)
	writeFile(t, filepath.Join(cp2, "a.txt"), "someone else's\n", 0o644)
	bad, err := h.k.CheckForkFiles(ctx, ses.ID, 1, cp2)
	if err != nil || len(bad) != 1 || !strings.HasSuffix(bad[0].Path, "a.txt") || !strings.Contains(bad[0].Reason, "not what the session's last change") {
		t.Fatalf("CheckForkFiles = %+v, %v; want a.txt reported", bad, err)
	}
	if again, err := h.k.RestoreForkFiles(ctx, ses.ID, 1, cp2); err != nil || len(again) != 1 {
		t.Errorf("RestoreForkFiles = %+v, %v; want the same refusal", again, err)
	}
	if got := readFile(t, filepath.Join(cp2, "c.txt")); got != "c\n" {
		t.Errorf("a refused restore changed c.txt to %q", got)
	}
	if bad, err := h.k.CheckForkFiles(ctx, ses.ID, 0, cp2); err != nil || len(bad) != 0 {
		t.Errorf("CheckForkFiles of the whole session = %+v, %v; want nothing to restore", bad, err)
	}
	if _, err := h.k.CheckForkFiles(ctx, ses.ID, 9, cp2); !errors.Is(err, kernel.ErrInvalid) {
		t.Errorf("CheckForkFiles at prompt 9 = %v; want invalid", err)
	}
}

// A fork gets its parent's approval mode as it is now; when its copied
// history does not end in that mode (a switch made after the fork point),
// the fork records the switch, so a fork in Full Access has it on record
// from its start, as every session in Full Access does. The record is
// published; the copied history is not.
func TestForkRecordsItsMode(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t, nil, pt.Say("one"), pt.Say("two"))
	ses := h.session("manual")
	h.runIn(ctx, ses.ID, "first")
	if err := h.k.SetMode(ctx, ses.ID, "auto"); err != nil {
		t.Fatal(err)
	}
	h.runIn(ctx, ses.ID, "second")
	if err := h.k.SetMode(ctx, ses.ID, "full_access"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		at   int
		want []event.SessionModeData
	}{
		{1, []event.SessionModeData{{From: "", To: "full_access"}}},
		{2, []event.SessionModeData{{From: "manual", To: "auto"}, {From: "auto", To: "full_access"}}},
		{0, []event.SessionModeData{{From: "manual", To: "auto"}, {From: "auto", To: "full_access"}}},
	} {
		f, err := h.k.ForkSession(ctx, ses.ID, c.at)
		if err != nil {
			t.Fatal(err)
		}
		if f.Session.ApprovalMode != "full_access" {
			t.Errorf("fork at %d is in %s; want its parent's full_access", c.at, f.Session.ApprovalMode)
		}
		got := payloads[event.SessionModeData](t, h, f.Session.ID, event.TypeSessionMode)
		if !slices.Equal(got, c.want) {
			t.Errorf("fork at %d records modes %+v; want %+v", c.at, got, c.want)
		}
		evs, _ := h.k.Events(ctx, f.Session.ID, 0)
		last := evs[len(evs)-1]
		published := 0
		for _, ev := range h.eventList() {
			if ev.SessionID == f.Session.ID {
				published++
				if c.at == 0 || ev.Seq != last.Seq || ev.Type != event.TypeSessionMode {
					t.Errorf("fork at %d published %s %d; want only its own mode record", c.at, ev.Type, ev.Seq)
				}
			}
		}
		if c.at != 0 && published != 1 {
			t.Errorf("fork at %d published %d events; want its mode record", c.at, published)
		}
	}
}

// A fork's images are its own: an image pasted in a prompt before the
// fork point is an artifact of the fork, under a new ID that its run.start
// and its history name, readable by the fork and sent to the fork's model
// again from the artifact store; the parent's stays its own.
// spec: I1, I3
func TestForkKeepsImages(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t, nil, pt.Say("a red dot"), pt.Say("more"), pt.Say("still a red dot"))
	ses := h.session("auto")
	data := dotPNG(t, 40, 20)
	p, err := h.k.AddImage(ctx, ses.ID, "dot.png", data)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.k.Run(ctx, kernel.RunOptions{SessionID: ses.ID, Prompt: "what is this?", Model: h.model(), Images: []kernel.PastedImage{p}}); err != nil {
		t.Fatal(err)
	}
	h.runIn(ctx, ses.ID, "and then?")
	f, err := h.k.ForkSession(ctx, ses.ID, 2)
	if err != nil {
		t.Fatal(err)
	}
	refs := payloads[event.RunStartData](t, h, f.Session.ID, event.TypeRunStart)
	if len(refs) != 1 || len(refs[0].Images) != 1 {
		t.Fatalf("fork's run.start = %+v; want the first prompt with its image", refs)
	}
	ref := refs[0].Images[0]
	if ref.ArtifactID == p.ID || ref.ThumbID == p.ThumbID {
		t.Errorf("the fork's image keeps the parent's artifact IDs %s, %s", ref.ArtifactID, ref.ThumbID)
	}
	for _, id := range []string{ref.ArtifactID, ref.ThumbID} {
		if a, err := h.k.Artifact(ctx, f.Session.ID, id); err != nil || len(a.Data) == 0 {
			t.Errorf("fork's artifact %s: %v", id, err)
		}
	}
	if a, err := h.k.Artifact(ctx, f.Session.ID, ref.ArtifactID); err == nil && !bytes.Equal(a.Data, data) {
		t.Errorf("the fork's image holds %d bytes; want the pasted %d", len(a.Data), len(data))
	}
	if _, err := h.k.Artifact(ctx, ses.ID, p.ID); err != nil {
		t.Errorf("the parent's image: %v", err)
	}
	n := len(h.srv.Requests())
	h.runIn(ctx, f.Session.ID, "look again")
	want := "data:image/png;base64," + base64.StdEncoding.EncodeToString(data)
	var sent []string
	for _, m := range h.srv.Requests()[n].Messages {
		sent = append(sent, m.Images...)
	}
	if !slices.Contains(sent, want) {
		t.Errorf("the fork's request sends %d images; want the pasted one again", len(sent))
	}
}

// A fork holds its history's sub-agents: the child run, linked to the
// fork's copy of the parent run (run.start's parentRunId too), its events
// nested under the task call, and its own history.
// spec: R1
func TestForkKeepsSubAgents(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t, nil)
	h.srv.Route(pt.FirstUser("count the go files"), pt.Calls(call("k1", "glob", `{"pattern":"*.go"}`)), pt.Say("there are 2 go files"))
	h.srv.Route(pt.FirstUser("survey the tree"),
		pt.Calls(call("t1", "task", taskArgs(t, "count go files", "count the go files in the workspace"))), pt.Say("the sub-agent counted 2"))
	h.srv.Route(pt.FirstUser("and then"), pt.Say("nothing more"))
	for _, f := range []string{"a.go", "b.go"} {
		writeFile(t, filepath.Join(h.dir, f), "package a\n", 0o644)
	}
	ses := h.session("auto")
	if r := h.runIn(ctx, ses.ID, "survey the tree"); r.Status != kernel.RunCompleted {
		t.Fatalf("run: %s %s", r.Status, r.Error)
	}
	h.runIn(ctx, ses.ID, "and then")
	f, err := h.k.ForkSession(ctx, ses.ID, 2)
	if err != nil {
		t.Fatal(err)
	}
	runs, err := h.k.Runs(ctx, f.Session.ID)
	if err != nil {
		t.Fatal(err)
	}
	var top, child kernel.Run
	for _, r := range runs {
		if r.ParentCallID == "" {
			top = r
		} else {
			child = r
		}
	}
	if len(runs) != 2 || child.ParentRunID != top.ID || child.ParentCallID != "t1" || f.Session.Runs != 1 {
		t.Fatalf("fork runs = %+v (session counts %d); want its prompt's run and the sub-agent linked to it", runs, f.Session.Runs)
	}
	evs, _ := h.k.Events(ctx, f.Session.ID, 0)
	kids := childEvents(evs, "t1")
	if len(kids) == 0 || kids[0].RunID != child.ID {
		t.Fatalf("fork's nested events = %v; want the sub-agent's, of run %s", types(kids), child.ID)
	}
	var start event.RunStartData
	json.Unmarshal(kids[0].Data, &start)
	if start.ParentRunID != top.ID {
		t.Errorf("the sub-agent's run.start names parent run %s; want the fork's %s", start.ParentRunID, top.ID)
	}
	if end := endOf(t, evs, "t1"); !strings.Contains(end.Text, "2 go files") {
		t.Errorf("the task call's result in the fork = %q", end.Text)
	}
}
