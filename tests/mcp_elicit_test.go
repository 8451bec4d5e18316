package tests

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"foya/backend/cli"
	"foya/backend/event"
	"foya/backend/kernel"
	"foya/backend/llm"
	"foya/backend/mcp/mcpconfig"
	"foya/backend/mcp/mcptest"
	pt "foya/backend/provider/providertest"
)

// elicitServer is the elicit test server over stdio (TestMain).
func elicitServer(t *testing.T) mcpconfig.Config {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return mcpconfig.Config{Name: "el", Command: exe, Env: map[string]string{mcptest.Env: mcptest.ElicitMode}}
}

// elicitations watches a kernel's mcp.elicitation notices and answers the
// pending ones with fn (in a goroutine: a notice's subscriber must not
// call back into the kernel).
type elicitations struct {
	mu    sync.Mutex
	seen  []event.MCPElicitationData
	errs  []error
	ended chan event.MCPElicitationData
}

func watchElicit(t *testing.T, k *kernel.Kernel, fn func(d event.MCPElicitationData) []kernel.ElicitAnswer) *elicitations {
	e := &elicitations{ended: make(chan event.MCPElicitationData, 16)}
	t.Cleanup(k.SubscribeNotices(func(ev llm.Event) {
		if ev.Type != event.TypeMCPElicitation {
			return
		}
		var d event.MCPElicitationData
		json.Unmarshal(ev.Data, &d)
		e.mu.Lock()
		e.seen = append(e.seen, d)
		e.mu.Unlock()
		if d.State != event.ElicitPending {
			e.ended <- d
			return
		}
		go func() {
			if len(k.PendingElicitations(d.SessionID)) != 1 {
				t.Errorf("PendingElicitations does not list %s", d.ID)
			}
			for _, a := range fn(d) {
				err := k.AnswerElicitation(d.ID, a)
				e.mu.Lock()
				e.errs = append(e.errs, err)
				e.mu.Unlock()
			}
		}()
	}))
	return e
}

// TestMCPElicitThroughTheKernel: a server's question during a tool call of
// a run is an mcp.elicitation notice of the session, with the form's
// fields; AnswerElicitation refuses values that do not fit (naming the
// fields) and the question still waits; the values that fit, a decline and
// a cancel reach the server, and a second notice says how each ended. A
// form Foya cannot show is declined with a note, the user told.
// spec: M1
func TestMCPElicitThroughTheKernel(t *testing.T) {
	form := `{"type":"object","properties":{"name":{"type":"string","minLength":2},"age":{"type":"integer","maximum":150}},"required":["name"]}`
	args := func(msg, schema string) string {
		b, _ := json.Marshal(map[string]string{"message": msg, "schema": schema})
		return string(b)
	}
	h := newHarness(t, nil,
		pt.Calls(call("c1", "mcp__el__ask", args("accept", form)), call("c2", "mcp__el__ask", args("decline", form)),
			call("c3", "mcp__el__ask", args("cancel", form)), call("c4", "mcp__el__ask", args("nested", `{"type":"object","properties":{"a":{"type":"array"}}}`))),
		pt.Say("done"))
	ctx := context.Background()
	if err := h.k.MCP().Add(ctx, elicitServer(t)); err != nil {
		t.Fatal(err)
	}
	defer (&answerer{}).watch(h.k, func(kernel.Approval) kernel.Answer { return kernel.Answer{Choice: kernel.AllowOnce} })()
	el := watchElicit(t, h.k, func(d event.MCPElicitationData) []kernel.ElicitAnswer {
		switch d.Message {
		case "accept":
			return []kernel.ElicitAnswer{
				{Action: "accept", Content: map[string]any{"name": "A", "age": 1.5, "other": true}},
				{Action: "maybe"},
				{Action: "accept", Content: map[string]any{"name": "Ada", "age": 36}},
				{Action: "decline"}, // too late: answered
			}
		case "decline":
			return []kernel.ElicitAnswer{{Action: "decline"}}
		}
		return []kernel.ElicitAnswer{{Action: "cancel"}}
	})
	run := h.run("ask me")
	if run.Status != "completed" {
		t.Fatalf("run = %+v", run)
	}
	req := h.srv.Requests()[1]
	want := map[string]string{"c1": `{"action":"accept","content":{"age":36,"name":"Ada"}}`, "c2": `{"action":"decline","content":null}`,
		"c3": `{"action":"cancel","content":null}`}
	for id, w := range want {
		if got, _, _ := strings.Cut(toolText(t, req, id), "\n"); got != w {
			t.Errorf("%s: the server got %s; want %s", id, got, w)
		}
	}
	if got := toolText(t, req, "c4"); !strings.Contains(got, `"action":"decline"`) || !strings.Contains(got, "is a list") {
		t.Errorf("c4: the server got %s; want a decline with the note", got)
	}
	el.mu.Lock()
	defer el.mu.Unlock()
	if len(el.errs) != 6 || kernel.Code(el.errs[0]) != "invalid" || !strings.Contains(el.errs[0].Error(), "age must be a whole number") ||
		!strings.Contains(el.errs[0].Error(), "name must be at least 2 characters") || !strings.Contains(el.errs[0].Error(), `no field "other"`) ||
		kernel.Code(el.errs[1]) != "invalid" || el.errs[2] != nil || kernel.Code(el.errs[3]) != "conflict" {
		t.Errorf("the answers' errors: %v", el.errs)
	}
	if err := h.k.AnswerElicitation("eli_nope", kernel.ElicitAnswer{Action: "decline"}); kernel.Code(err) != "not_found" {
		t.Errorf("an unknown question: %v", err)
	}
	states := map[string]string{}
	for _, d := range el.seen {
		if d.SessionID != run.SessionID || d.RunID != run.ID || d.Server != "el" {
			t.Errorf("notice %+v; want the run's session, run and server", d)
		}
		if d.State != event.ElicitPending {
			states[d.CallID] = d.State
		}
	}
	if w := map[string]string{"c1": "accepted", "c2": "declined", "c3": "cancelled", "c4": "declined"}; len(states) != 4 ||
		states["c1"] != w["c1"] || states["c2"] != w["c2"] || states["c3"] != w["c3"] || states["c4"] != w["c4"] {
		t.Errorf("the ends told: %v; want %v", states, w)
	}
	if f := el.seen[0].Fields; len(f) != 2 || f[0].Name != "name" || !f[0].Required || f[1].Type != "integer" {
		t.Errorf("the form's fields: %+v", f)
	}
}

// TestMCPElicitCancelledRun: cancelling the run while a question waits
// ends it (a notice says cancelled), the server's call and the run end;
// nothing waits on.
// spec: M1
func TestMCPElicitCancelledRun(t *testing.T) {
	h := newHarness(t, nil, pt.Calls(call("c1", "mcp__el__ask", `{}`)), pt.Say("done"))
	if err := h.k.MCP().Add(context.Background(), elicitServer(t)); err != nil {
		t.Fatal(err)
	}
	defer (&answerer{}).watch(h.k, func(kernel.Approval) kernel.Answer { return kernel.Answer{Choice: kernel.AllowOnce} })()
	el := watchElicit(t, h.k, func(d event.MCPElicitationData) []kernel.ElicitAnswer {
		if d.Fields[0].Name != "age" || d.Fields[0].Default != 30.0 {
			t.Errorf("the defaults form's first field: %+v", d.Fields[0])
		}
		h.k.Cancel(d.SessionID)
		return nil
	})
	run := h.run("ask me")
	if run.Status != "cancelled" {
		t.Errorf("run = %+v; want cancelled", run)
	}
	if d := <-el.ended; d.State != event.ElicitCancelled || d.Note == "" {
		t.Errorf("the end told: %+v; want cancelled with a note", d)
	}
	if p := h.k.PendingElicitations(""); len(p) != 0 {
		t.Errorf("still pending: %+v", p)
	}
}

// TestMCPCLIElicit: foya mcp call --elicit defaults accepts with the
// form's defaults (a string, an integer, a number, an enum, a boolean),
// decline (and no flag) declines, ask without a terminal and an unknown
// mode are usage errors; over stdio and streamable HTTP. foya exec,
// headless, declines and its JSON lines say so.
// spec: M1
func TestMCPCLIElicit(t *testing.T) {
	bin := foyaBinary(t)
	dir := t.TempDir()
	db := filepath.Join(t.TempDir(), "foya.db")
	env := providerEnv("")
	foya := func(args ...string) execResult {
		t.Helper()
		return runFoya(t, bin, env, append([]string{args[0], args[1], "--db", db, "--workdir", dir}, args[2:]...)...)
	}
	srv := mcptest.NewElicitHTTP()
	t.Cleanup(srv.Close)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if res := foya("mcp", "add", "el", "--env", mcptest.Env+"="+mcptest.ElicitMode, "--", exe); res.code != 0 {
		t.Fatalf("mcp add: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	result := func(res execResult) map[string]any {
		t.Helper()
		var out struct{ Content []struct{ Text string } }
		var r map[string]any
		if err := json.Unmarshal([]byte(res.stdout), &out); err != nil || len(out.Content) != 1 || json.Unmarshal([]byte(out.Content[0].Text), &r) != nil {
			t.Fatalf("mcp call printed %s%s (exit %d)", res.stdout, res.stderr, res.code)
		}
		return r
	}
	for _, who := range [][]string{{"el"}, {"--url", srv.URL}} {
		t.Run(who[0], func(t *testing.T) {
			res := foya(append([]string{"mcp", "call", "--elicit", "defaults"}, append(who, "ask")...)...)
			r := result(res)
			got, _ := json.Marshal(r["content"])
			if r["action"] != "accept" || string(got) != `{"age":30,"name":"John Doe","score":95.5,"status":"active","verified":true}` {
				t.Errorf("--elicit defaults: the server got %v %s", r["action"], got)
			}
			if !strings.Contains(res.stderr, "accepted with the form's defaults") {
				t.Errorf("stderr %q does not say what was answered", res.stderr)
			}
			for _, flags := range [][]string{{"--elicit", "decline"}, {}} {
				r = result(foya(append(append([]string{"mcp", "call"}, flags...), append(who, "ask")...)...))
				if r["action"] != "decline" {
					t.Errorf("%v: the server got %v", flags, r)
				}
			}
		})
	}
	res := foya("mcp", "call", "--elicit", "ask", "el", "ask")
	if res.code != 2 || !strings.Contains(res.stderr, "standard input is not one") {
		t.Errorf("--elicit ask without a terminal: exit %d, %s", res.code, res.stderr)
	}
	res = foya("mcp", "call", "--elicit", "maybe", "el", "ask")
	if res.code != 2 || !strings.Contains(res.stderr, `not "maybe"`) {
		t.Errorf("--elicit maybe: exit %d, %s", res.code, res.stderr)
	}

	// foya exec with no terminal: declined at once, the JSON lines say so
	// and the server gets the decline with the note.
	model := pt.New(t, pt.Calls(call("c1", "mcp__el__ask", `{}`)), pt.Say("done"))
	res = runFoya(t, bin, env, "exec", "--base-url", model.URL, "--api-key", "x", "--model", "m", "--db", db,
		"--workdir", dir, "--approval", "full-access", "--json", "ask me")
	if res.code != 0 {
		t.Fatalf("exec: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	var told *event.MCPElicitationData
	for _, line := range strings.Split(strings.TrimSpace(res.stdout), "\n") {
		var ev llm.Event
		if json.Unmarshal([]byte(line), &ev) == nil && ev.Type == event.TypeMCPElicitation {
			told = new(event.MCPElicitationData)
			json.Unmarshal(ev.Data, told)
		}
	}
	if told == nil || told.State != event.ElicitDeclined || !strings.Contains(told.Note, "without a person to answer") || told.CallID != "c1" {
		t.Errorf("exec --json told %+v; want the question declined, with the note", told)
	}
	if got := toolText(t, model.Requests()[1], "c1"); !strings.Contains(got, `"action":"decline"`) || !strings.Contains(got, "without a person") {
		t.Errorf("the server got %s; want decline with the note", got)
	}

	// foya exec on a terminal asks approvals only: the question is
	// declined at once too, said on standard error; nothing waits.
	model = pt.New(t, pt.Calls(call("c1", "mcp__el__ask", `{}`)), pt.Say("done"))
	var stdout, stderr bytes.Buffer
	code := cli.Run(context.Background(), []string{"exec", "--base-url", model.URL, "--api-key", "x", "--model", "m", "--db", db,
		"--workdir", dir, "--approval", "full-access", "ask me"},
		cli.Env{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr, Interactive: true, Getenv: func(string) string { return "" }})
	if code != cli.ExitOK || !strings.Contains(stderr.String(), "the MCP server el asked: Tell me more — declined: foya exec asks only approvals on the terminal") {
		t.Errorf("exec on a terminal: exit %d\n%s\n%s", code, stdout.String(), stderr.String())
	}
	if got := toolText(t, model.Requests()[1], "c1"); !strings.Contains(got, `"action":"decline"`) || !strings.Contains(got, "asks only approvals") {
		t.Errorf("the server got %s; want decline with the note", got)
	}
}
