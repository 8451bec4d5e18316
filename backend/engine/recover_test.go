package engine

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"foya/backend/llm"
	"foya/backend/tools"
)

// crashedStore is the store as a killed process left it: one run
// running, with a call of a tool that changes files running, a call of
// one that does not running, and a call never started; it keeps the
// commits recovery applies.
type crashedStore struct {
	calls   []llm.CallRecord
	changes []llm.FileChange
	blobs   map[string][]byte
	applied []llm.Commit
}

var crashedRun = llm.Run{ID: "run_1", SessionID: "ses_1", Status: llm.RunRunning, Owner: "gone"}

func (s *crashedStore) Apply(ctx context.Context, c llm.Commit) ([]llm.Event, error) {
	s.applied = append(s.applied, c)
	return c.Events, nil
}
func (s *crashedStore) Messages(ctx context.Context, sessionID string) ([]llm.StoredMessage, error) {
	var tcs []llm.ToolCall
	for _, c := range s.calls {
		tcs = append(tcs, llm.ToolCall{ID: c.ID, Name: c.Name, Arguments: c.Arguments})
	}
	return []llm.StoredMessage{{SessionID: "ses_1", RunID: "run_1", Message: llm.Message{Role: llm.RoleAssistant, ToolCalls: tcs}}}, nil
}
func (s *crashedStore) Artifact(ctx context.Context, sessionID, id string) (llm.Artifact, error) {
	return llm.Artifact{}, nil
}
func (s *crashedStore) RunningRuns(ctx context.Context) ([]llm.Run, error) {
	if len(s.applied) > 0 {
		return nil, nil
	}
	return []llm.Run{crashedRun}, nil
}
func (s *crashedStore) Calls(ctx context.Context, runID string) ([]llm.CallRecord, error) {
	return append([]llm.CallRecord(nil), s.calls...), nil
}
func (s *crashedStore) Session(ctx context.Context, id string) (llm.Session, error) {
	return llm.Session{ID: id, Workdir: "/work/space", ApprovalMode: "auto"}, nil
}
func (s *crashedStore) Grants(ctx context.Context, sessionID string) ([]json.RawMessage, error) {
	return nil, nil
}
func (s *crashedStore) EventsOfType(ctx context.Context, sessionID, typ string) ([]llm.Event, error) {
	return nil, nil
}
func (s *crashedStore) FileChanges(ctx context.Context, sessionID string) ([]llm.FileChange, error) {
	return s.changes, nil
}
func (s *crashedStore) Blob(ctx context.Context, sha string) ([]byte, error) {
	return s.blobs[sha], nil
}

// scribe is a tool whose interrupted calls report a change of the path in
// their arguments, and what Prior told it.
type scribe struct{ asked *[]string }

func (scribe) Spec() tools.Spec { return tools.Spec{Name: "scribe", Description: "Writes."} }
func (scribe) Run(ctx context.Context, rc *tools.RunContext, c tools.Call) (tools.Result, error) {
	return tools.Text("wrote"), nil
}
func (s scribe) Recover(ctx context.Context, rc *tools.RunContext, c tools.Call, prior tools.Prior) ([]tools.FileChange, error) {
	var a struct{ Path string }
	json.Unmarshal(c.Arguments, &a)
	fc, data, ok, err := prior(ctx, a.Path)
	*s.asked = append(*s.asked, c.ID+" in "+rc.Workdir+": prior "+fc.ID+" "+string(data))
	if err != nil || !ok {
		return nil, err
	}
	ch := tools.FileChange{FileChange: llm.FileChange{Path: a.Path, Op: "write", ExistedBefore: true, ExistsAfter: true,
		SHABefore: fc.SHAAfter, SHAAfter: "new", Diff: "-old\n+new\n"}, Before: data, After: []byte("new")}
	return []tools.FileChange{ch}, nil
}

// Recovery asks the tool of each call that was running, and only those,
// what the call left (tools.Recoverable), giving it the session's workdir
// and the newest File Change of the path with its content; it stores what
// the tool found as unconfirmed File Changes of that call, with their
// contents, in the call's interrupted result and tool.end event, and runs
// nothing: no change on disk is left without a File Change that records
// it.
//
// spec: X2, F1
func TestRecoverRecordsUnconfirmedChanges(t *testing.T) {
	var asked []string
	reg := tools.NewRegistry()
	reg.Add(scribe{&asked}, tools.Search{})
	st := &crashedStore{
		calls: []llm.CallRecord{
			{SessionID: "ses_1", RunID: "run_1", ID: "c1", Name: "scribe", Arguments: `{"path":"/work/space/a"}`, State: llm.CallDone, Result: &llm.ToolResult{Text: "wrote"}},
			{SessionID: "ses_1", RunID: "run_1", ID: "c2", Name: "scribe", Arguments: `{"path":"/work/space/a"}`, State: llm.CallRunning},
			{SessionID: "ses_1", RunID: "run_1", ID: "c3", Name: "tool_search", Arguments: `{"query":"x"}`, State: llm.CallRunning},
			{SessionID: "ses_1", RunID: "run_1", ID: "c4", Name: "scribe", Arguments: `{"path":"/work/space/a"}`, State: llm.CallQueued},
		},
		changes: []llm.FileChange{
			{ID: "chg_old", SessionID: "ses_1", Path: "/work/space/a", ExistsAfter: true, SHAAfter: "aaa"},
			{ID: "chg_b", SessionID: "ses_1", Path: "/work/space/b", ExistsAfter: true, SHAAfter: "bbb"},
			{ID: "chg_1", SessionID: "ses_1", Path: "/work/space/a", ExistedBefore: true, ExistsAfter: true, SHAAfter: "old"},
		},
		blobs: map[string][]byte{"old": []byte("old")},
	}
	e := New(Config{Store: st, Tools: reg})
	marked, err := e.Recover(context.Background(), func(string) (func(bool), bool) { return func(bool) {}, true })
	if err != nil || len(marked) != 1 {
		t.Fatalf("Recover = %v, %v; want the run", marked, err)
	}
	if want := []string{"c2 in /work/space: prior chg_1 old"}; strings.Join(asked, "|") != strings.Join(want, "|") {
		t.Fatalf("the tool was asked %q; want %q (only the running call of a Recoverable tool, with the newest change)", asked, want)
	}
	if len(st.applied) != 1 {
		t.Fatalf("%d commits; want 1", len(st.applied))
	}
	c := st.applied[0]
	if len(c.FileChanges) != 1 {
		t.Fatalf("stored changes %+v; want one", c.FileChanges)
	}
	fc := c.FileChanges[0]
	if !fc.Unconfirmed || fc.CallID != "c2" || fc.RunID != "run_1" || fc.SessionID != "ses_1" || fc.Tool != "scribe" || fc.ID == "" || fc.SHABefore != "old" {
		t.Errorf("stored change %+v; want it unconfirmed, of call c2 in run_1, from the newest change's after side", fc)
	}
	if len(c.Blobs) != 2 || string(c.Blobs[0]) != "old" || string(c.Blobs[1]) != "new" {
		t.Errorf("stored blobs %q; want the contents before and after", c.Blobs)
	}
	states := map[string]llm.CallRecord{}
	for _, cr := range c.Calls {
		states[cr.ID] = cr
	}
	if _, ok := states["c1"]; ok {
		t.Errorf("the finished call c1 was written again: %+v", states["c1"])
	}
	c2 := states["c2"]
	if c2.State != llm.CallInterrupted || c2.Result == nil || len(c2.Result.FileChanges) != 1 || c2.Result.FileChanges[0].ID != fc.ID ||
		!strings.Contains(c2.Result.Text, "interrupted, not replayed") || !strings.Contains(c2.Result.Text, "unconfirmed") {
		t.Errorf("call c2 after recovery: %+v; want interrupted, saying so, with the unconfirmed change", c2)
	}
	for _, id := range []string{"c3", "c4"} {
		if r := states[id].Result; r == nil || len(r.FileChanges) != 0 || strings.Contains(r.Text, "unconfirmed") {
			t.Errorf("call %s after recovery: %+v; want interrupted with no change", id, r)
		}
	}
	var ends int
	for _, ev := range c.Events {
		if ev.Type == llm.EventToolEnd && strings.Contains(string(ev.Data), `"unconfirmed":true`) {
			ends++
		}
	}
	if ends != 1 {
		t.Errorf("%d tool.end events carry the unconfirmed change; want 1", ends)
	}
}

// Two calls recovered in one commit that report a change of one path
// chain: the second is given the first's change, not yet stored, as the
// path's newest, with its content, so its change starts where the first
// left the path, not where the stored record left it (a running write's
// change and a background command's, recovered together).
//
// spec: X2, F1
func TestRecoverChainsChangesOfOneCommit(t *testing.T) {
	var asked []string
	reg := tools.NewRegistry()
	reg.Add(scribe{&asked})
	st := &crashedStore{
		calls: []llm.CallRecord{
			{SessionID: "ses_1", RunID: "run_1", ID: "c1", Name: "scribe", Arguments: `{"path":"/work/space/a"}`, State: llm.CallRunning},
			{SessionID: "ses_1", RunID: "run_1", ID: "c2", Name: "scribe", Arguments: `{"path":"/work/space/a"}`, State: llm.CallRunning},
		},
		changes: []llm.FileChange{
			{ID: "chg_1", SessionID: "ses_1", Path: "/work/space/a", ExistedBefore: true, ExistsAfter: true, SHAAfter: "old"},
		},
		blobs: map[string][]byte{"old": []byte("old")},
	}
	e := New(Config{Store: st, Tools: reg})
	if _, err := e.Recover(context.Background(), func(string) (func(bool), bool) { return func(bool) {}, true }); err != nil {
		t.Fatal(err)
	}
	if len(st.applied) != 1 || len(st.applied[0].FileChanges) != 2 {
		t.Fatalf("commits %+v; want one with two changes", st.applied)
	}
	first, second := st.applied[0].FileChanges[0], st.applied[0].FileChanges[1]
	if want := []string{"c1 in /work/space: prior chg_1 old", "c2 in /work/space: prior " + first.ID + " new"}; !slices.Equal(asked, want) {
		t.Errorf("the tool was asked %q; want %q", asked, want)
	}
	if second.SHABefore != first.SHAAfter {
		t.Errorf("the second change starts at %q; want where the first left the path, %q", second.SHABefore, first.SHAAfter)
	}
}
