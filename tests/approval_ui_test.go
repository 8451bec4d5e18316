package tests

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"foya/backend/kernel"
	"foya/backend/llm"
	pt "foya/backend/provider/providertest"
)

// TestServeDenyMessageReachesTheModel answers approval requests as the
// inline approval request does, over foya serve's HTTP with the JSON it sends: a
// real bash call denied with a message, after answers the kernel refuses
// (a scope that does not cover the request, an unknown choice, an unknown
// request, a malformed body). The message is in the tool result the model
// reads next and in the approval.answer the UI shows; the command did not
// run: a denial's reason must reach the model, or it tries the same again.
//
// spec: A1, A2, T4
func TestServeDenyMessageReachesTheModel(t *testing.T) {
	srv := pt.New(t,
		pt.Calls(call("call_b", "bash", `{"command":"echo cleaned >> log.txt"}`)),
		pt.Say("Understood."))
	dir := t.TempDir()
	s := startServe(t, filepath.Join(t.TempDir(), "foya.db"))
	s.call(nil, "AddProvider", map[string]any{"name": "scripted", "baseUrl": srv.URL, "model": "m"})
	var sess kernel.Session
	s.call(&sess, "CreateSession", map[string]any{"workdir": dir, "provider": "scripted", "model": "m", "approvalMode": "manual"})
	var runID string
	s.call(&runID, "Run", sess.ID, "clean up")
	evs := s.events(sess.ID, 0, "approval.request")
	var req kernel.Approval
	if err := json.Unmarshal(evs[len(evs)-1].Data, &req); err != nil {
		t.Fatal(err)
	}
	if req.Request.Action.Command != "echo cleaned >> log.txt" || len(req.Scopes) == 0 || req.Reason == "" {
		t.Fatalf("approval.request = %+v; want the command, a reason and scopes", req)
	}

	refused := []struct {
		name   string
		args   []any
		status int
		want   string
	}{
		{"a scope that does not cover it", []any{req.ID, map[string]any{"choice": "allow_session", "scope": map[string]any{"kind": req.Request.Action.Kind, "prefix": []string{"rm"}}}},
			400, "does not cover this request"},
		{"allow for this session without a scope", []any{req.ID, map[string]any{"choice": "allow_session"}}, 400, "needs a scope"},
		{"an unknown choice", []any{req.ID, map[string]any{"choice": "allow_always"}}, 400, "want allow_once, allow_session or deny"},
		{"an unknown request", []any{"apr_nope", map[string]any{"choice": "deny"}}, 404, "no such approval request"},
		{"a message of the wrong type", []any{req.ID, map[string]any{"choice": "deny", "message": 42}}, 400, ""},
	}
	for _, r := range refused {
		status, body := s.post("Answer", r.args...)
		if status != r.status || !strings.Contains(string(body), r.want) {
			t.Errorf("Answer with %s = %d %s; want %d saying %q", r.name, status, body, r.status, r.want)
		}
	}
	if n := len(evs); evs[n-1].Type != "approval.request" {
		t.Fatalf("last event %s", evs[n-1].Type)
	}

	const msg = "do not touch log.txt; use make clean"
	s.call(nil, "Answer", req.ID, map[string]any{"choice": "deny", "message": msg})
	rest := s.events(sess.ID, evs[len(evs)-1].Seq, "run.end")
	answer := find(rest, "approval.answer")
	if answer == nil || !strings.Contains(string(answer.Data), `"state":"denied"`) || !strings.Contains(string(answer.Data), msg) {
		t.Fatalf("approval.answer = %v; want denied with the message", answer)
	}
	if end := rest[len(rest)-1]; !strings.Contains(string(end.Data), `"completed"`) {
		t.Fatalf("run.end = %s", end.Data)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests; want 2", len(reqs))
	}
	tm := toolMessages(reqs[1])
	if want := "bash: denied by the user: " + msg + "; the command did not run"; len(tm) != 1 || !strings.Contains(tm[0].Content, want) {
		t.Fatalf("the model read %+v; want a tool result saying %q", tm, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "log.txt")); !os.IsNotExist(err) {
		t.Fatalf("log.txt: %v; the denied command must not have run", err)
	}
}

func find(evs []llm.Event, typ string) *llm.Event {
	for i := range evs {
		if evs[i].Type == typ {
			return &evs[i]
		}
	}
	return nil
}
