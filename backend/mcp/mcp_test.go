package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"foya/backend/approval"
	"foya/backend/event"
	"foya/backend/mcp"
	"foya/backend/mcp/mcptest"
	"foya/backend/tools"
)

func TestMain(m *testing.M) {
	mcptest.Main()
	os.Exit(m.Run())
}

// stdioEntry is the test binary serving mcptest over stdio.
func stdioEntry(t *testing.T, name, mode string) mcp.Entry {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return mcp.Entry{Name: name, Command: exe, Env: map[string]string{mcptest.Env: mode}}
}

func newManager(t *testing.T, o mcp.Options) (*mcp.Manager, *tools.Registry) {
	t.Helper()
	reg := tools.NewRegistry()
	reg.Add(tools.Search{})
	o.Registry = reg
	if o.Backoff == 0 {
		o.Backoff = 50 * time.Millisecond
	}
	if o.InitTimeout == 0 {
		o.InitTimeout = 10 * time.Second
	}
	m := mcp.NewManager(o)
	t.Cleanup(m.Close)
	return m, reg
}

// waitFor polls cond until it holds, and fails the test after about 30
// seconds of polls (a hang guard, not a claim about speed).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for i := 0; ; i++ {
		if cond() {
			return
		}
		if i > 3000 {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func status(m *mcp.Manager, name string) mcp.Status {
	for _, s := range m.Statuses() {
		if s.Name == name {
			return s
		}
	}
	return mcp.Status{}
}

func call(t *testing.T, reg *tools.Registry, rc *tools.RunContext, name, args string) tools.Result {
	t.Helper()
	tool, _, ok := reg.Lookup(name)
	if !ok {
		t.Fatalf("tool %s is not registered", name)
	}
	if rc == nil {
		rc = &tools.RunContext{}
	}
	res, err := tool.Run(context.Background(), rc, tools.Call{ID: "call_1", Name: name, Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

// TestStdioAndHTTPTools calls a real mcp-go server over stdio (a separate
// process) and over streamable HTTP: text, images, audio, links, embedded
// resources, structuredContent, isError, a 10 MB result, progress, odd
// tool names. Issue 13 item 1.
// spec: M1, T3, I1, O1
func TestStdioAndHTTPTools(t *testing.T) {
	srv := mcptest.NewHTTP()
	t.Cleanup(srv.Close) // after the client closes: its listening stream stays open until then
	for _, e := range []mcp.Entry{stdioEntry(t, "local", "ok"), {Name: "remote", URL: srv.URL}} {
		t.Run(e.Transport(), func(t *testing.T) {
			m, reg := newManager(t, mcp.Options{})
			m.Set("", []mcp.Entry{e})
			m.Wait(context.Background(), "")
			if s := status(m, e.Name); s.State != mcp.Ready {
				t.Fatalf("status = %+v; want ready", s)
			}
			p := "mcp__" + e.Name + "__"
			if r := call(t, reg, nil, p+"echo", `{"text":"hi"}`); r.Text != "echo: hi" || r.IsError {
				t.Errorf("echo = %+v", r)
			}
			r := call(t, reg, nil, p+"picture", `{}`)
			if len(r.Images) != 1 || r.Images[0].MIME != "image/png" || string(r.Images[0].Data) != string(mcptest.PNG()) {
				t.Errorf("picture images = %+v", r.Images)
			}
			if len(r.Audio) != 1 || r.Audio[0].MIME != "audio/wav" || string(r.Audio[0].Data) != "RIFF...." {
				t.Errorf("picture audio = %+v; want the server's audio bytes for the artifact store", r.Audio)
			}
			for _, want := range []string{"a red dot", "resource link: notes <file:///notes.txt>", "[resource <file:///inline.txt> (text/plain)]\ninline text"} {
				if !strings.Contains(r.Text, want) {
					t.Errorf("picture text %q lacks %q", r.Text, want)
				}
			}
			if r := call(t, reg, nil, p+"structured", `{}`); r.Text != `{"answer":42}` {
				t.Errorf("structured = %q", r.Text)
			}
			if r := call(t, reg, nil, p+"fail", `{}`); !r.IsError || r.Text != "the widget is broken" {
				t.Errorf("fail = %+v; want is_error", r)
			}
			big := call(t, reg, nil, p+"big", `{}`)
			if len(big.Text) > tools.DocumentLimits.Bytes+512 || !strings.Contains(big.Text, "left out after this") {
				t.Errorf("big result: %d bytes, ends %q", len(big.Text), big.Text[max(0, len(big.Text)-200):])
			}
			var mu sync.Mutex
			var updates []event.Progress
			rc := &tools.RunContext{Update: func(p event.Progress) { mu.Lock(); updates = append(updates, p); mu.Unlock() }}
			if r := call(t, reg, rc, p+"progress", `{}`); r.Text != "progressed" {
				t.Errorf("progress = %q", r.Text)
			}
			mu.Lock()
			if len(updates) == 0 || updates[len(updates)-1].Message != "step 3" || *updates[len(updates)-1].Total != 3 {
				t.Errorf("progress updates = %+v; want 3 steps of 3", updates)
			}
			mu.Unlock()
			if r := call(t, reg, nil, p+"has_spaces_in_it", `{}`); r.Text != "spaces ok" {
				t.Errorf("tool with spaces = %q", r.Text)
			}
			var long string
			for _, n := range reg.Visible(tools.Filter{}) {
				if strings.HasPrefix(n, p+"longlong") {
					long = n
				}
			}
			if len(long) != 64 {
				t.Fatalf("200-character tool registered as %q (%d); want 64 characters", long, len(long))
			}
			if r := call(t, reg, nil, long, `{}`); r.Text != "long ok" {
				t.Errorf("long tool = %q", r.Text)
			}
		})
	}
}

// TestResourcesAndPrompts reads resources and fills prompts through the
// manager's own methods; they are never registered as tools. Issue 13
// item 1.
// spec: M3
func TestResourcesAndPrompts(t *testing.T) {
	srv := mcptest.NewHTTP()
	t.Cleanup(srv.Close) // after the client closes: its listening stream stays open until then
	m, reg := newManager(t, mcp.Options{})
	m.Set("", []mcp.Entry{{Name: "remote", URL: srv.URL}})
	m.Wait(context.Background(), "")
	ctx := context.Background()
	res, err := m.Resources(ctx, "", "remote")
	if err != nil || len(res) != 4 || !slices.ContainsFunc(res, func(r mcp.Resource) bool { return r.URI == "file:///notes.txt" }) {
		t.Fatalf("Resources = %+v, %v", res, err)
	}
	c, err := m.ReadResource(ctx, "", "remote", "file:///notes.txt")
	if err != nil || len(c) != 1 || c[0].Text != "remember the milk" {
		t.Fatalf("ReadResource = %+v, %v", c, err)
	}
	ps, err := m.Prompts(ctx, "", "remote")
	if err != nil || len(ps) != 1 || ps[0].Name != "greet" || !ps[0].Arguments[0].Required {
		t.Fatalf("Prompts = %+v, %v", ps, err)
	}
	msgs, err := m.GetPrompt(ctx, "", "remote", "greet", map[string]string{"name": "Ada"})
	if err != nil || len(msgs) != 1 || msgs[0].Text != "Say hello to Ada" || msgs[0].Role != "user" {
		t.Fatalf("GetPrompt = %+v, %v", msgs, err)
	}
	for _, n := range reg.Visible(tools.Filter{}) {
		if strings.Contains(n, "notes") || strings.Contains(n, "greet") {
			t.Errorf("resource or prompt registered as the tool %s", n)
		}
	}
	if _, err := m.Resources(ctx, "", "nobody"); err == nil {
		t.Error("Resources of an unknown server: no error")
	}
}

// TestCrashHangAndRestart: a server that dies mid-call and one that never
// answers give is_error results and are restarted with backoff.
// spec: K5, T4
func TestCrashHangAndRestart(t *testing.T) {
	e := stdioEntry(t, "local", "ok")
	e.Timeout = "300ms"
	m, reg := newManager(t, mcp.Options{})
	m.Set("", []mcp.Entry{e})
	m.Wait(context.Background(), "")
	r := call(t, reg, nil, "mcp__local__crash", `{}`)
	if !r.IsError || !strings.Contains(r.Text, "stopped during the call") || !strings.Contains(r.Text, "crashing on purpose") {
		t.Fatalf("crash = %+v; want is_error naming the stop and the stderr tail", r)
	}
	waitFor(t, "a restart after the crash", func() bool { s := status(m, "local"); return s.State == mcp.Ready && s.Restarts >= 1 })
	if r := call(t, reg, nil, "mcp__local__echo", `{"text":"back"}`); r.Text != "echo: back" {
		t.Fatalf("echo after restart = %+v", r)
	}
	r = call(t, reg, nil, "mcp__local__hang", `{}`)
	if !r.IsError || !strings.Contains(r.Text, "sent nothing for 300ms") {
		t.Fatalf("hang = %+v; want is_error", r)
	}
	waitFor(t, "a restart after the hang", func() bool { s := status(m, "local"); return s.State == mcp.Ready && s.Restarts >= 2 })
	if r := call(t, reg, nil, "mcp__local__echo", `{"text":"again"}`); r.Text != "echo: again" {
		t.Fatalf("echo after hang = %+v", r)
	}
}

// TestCancelSendsCancelled: cancelling a call sends notifications/cancelled,
// which cancels the handler in the server process. Issue 13 item 1.
// spec: K5
func TestCancelSendsCancelled(t *testing.T) {
	mark := filepath.Join(t.TempDir(), "mark")
	e := stdioEntry(t, "local", "ok")
	e.Env[mcptest.MarkEnv] = mark
	m, reg := newManager(t, mcp.Options{})
	m.Set("", []mcp.Entry{e})
	m.Wait(context.Background(), "")
	tool, _, _ := reg.Lookup("mcp__local__wait")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan tools.Result)
	go func() {
		r, _ := tool.Run(ctx, &tools.RunContext{}, tools.Call{ID: "c1", Arguments: json.RawMessage(`{}`)})
		done <- r
	}()
	// The request has reached the server's handler: a wait on that, not
	// a sleep.
	waitFor(t, "the wait call to reach the server", func() bool {
		b, _ := os.ReadFile(mark)
		return strings.Contains(string(b), "started")
	})
	cancel()
	var r tools.Result
	select {
	case r = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the cancelled MCP call did not return")
	}
	if !r.IsError || !strings.Contains(r.Text, "cancelled") {
		t.Errorf("cancelled call = %+v", r)
	}
	waitFor(t, "the server to see the cancellation", func() bool {
		b, _ := os.ReadFile(mark)
		return strings.Contains(string(b), "cancelled")
	})
	if s := status(m, "local"); s.State != mcp.Ready || s.Restarts != 0 {
		t.Errorf("status after a cancel = %+v; want ready, not restarted", s)
	}
}

// TestFailedShowsStderrAndRestarts: a server that crashed stays failed
// (the backoff here is an hour) with the end of its standard error in its
// status, for the settings view; Restart starts it again at once, without
// waiting for the backoff, and an unknown name is an error. Issue 13
// item 1 (server status for the UI).
// spec: K5
func TestFailedShowsStderrAndRestarts(t *testing.T) {
	m, reg := newManager(t, mcp.Options{Backoff: time.Hour})
	m.Set("", []mcp.Entry{stdioEntry(t, "local", "ok")})
	m.Wait(context.Background(), "")
	call(t, reg, nil, "mcp__local__crash", `{}`)
	// The state can turn failed a moment before the stderr tail is read
	// to its end (the error already quotes it): wait for both.
	waitFor(t, "the server to be failed, with its stderr tail", func() bool {
		s := status(m, "local")
		return s.State == mcp.Failed && strings.Contains(s.Stderr, "crashing on purpose")
	})
	if s := status(m, "local"); !strings.Contains(s.Error, "crashing on purpose") {
		t.Errorf("failed status = %+v; want the error to quote the stderr tail", s)
	}
	scope, err := m.Restart("", "local")
	if err != nil || scope != "" {
		t.Fatalf("Restart = %q, %v", scope, err)
	}
	m.Wait(context.Background(), "")
	if s := status(m, "local"); s.State != mcp.Ready || s.Restarts != 0 {
		t.Fatalf("after Restart = %+v; want ready at once", s)
	}
	if r := call(t, reg, nil, "mcp__local__echo", `{"text":"back"}`); r.Text != "echo: back" {
		t.Errorf("echo after Restart = %+v", r)
	}
	if _, err := m.Restart("", "nobody"); err == nil {
		t.Error("Restart of an unknown server: no error")
	}
}

// TestCancelOverHTTPSendsCancelled: cancelling a call to a streamable
// HTTP or an SSE server sends it notifications/cancelled naming the
// call's request, which mcp-go's client alone does not do over HTTP; the
// server stays ready. Issue 13 item 1.
// spec: K5
func TestCancelOverHTTPSendsCancelled(t *testing.T) {
	for _, transport := range []string{mcp.HTTP, mcp.SSE} {
		t.Run(transport, func(t *testing.T) {
			var mu sync.Mutex
			var bodies []string
			var mcpSrv http.Handler = server.NewStreamableHTTPServer(mcptest.New())
			path := ""
			if transport == mcp.SSE {
				mcpSrv, path = server.NewSSEServer(mcptest.New()), "/sse"
			}
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method == http.MethodPost {
					data, _ := io.ReadAll(r.Body)
					mu.Lock()
					bodies = append(bodies, string(data))
					mu.Unlock()
					r.Body = io.NopCloser(bytes.NewReader(data))
				}
				mcpSrv.ServeHTTP(w, r)
			}))
			t.Cleanup(srv.Close) // after the manager's Close: an SSE stream stays open until then
			seen := func(method string) (ids []string) {
				mu.Lock()
				defer mu.Unlock()
				for _, b := range bodies {
					var msg struct {
						Method string          `json:"method"`
						ID     json.RawMessage `json:"id"`
						Params struct {
							Name      string          `json:"name"`
							RequestID json.RawMessage `json:"requestId"`
						} `json:"params"`
					}
					if json.Unmarshal([]byte(b), &msg) != nil || msg.Method != method {
						continue
					}
					switch {
					case method == "tools/call" && msg.Params.Name == "wait":
						ids = append(ids, string(msg.ID))
					case method == "notifications/cancelled":
						ids = append(ids, string(msg.Params.RequestID))
					}
				}
				return ids
			}
			m, reg := newManager(t, mcp.Options{})
			m.Set("", []mcp.Entry{{Name: "remote", Type: transport, URL: srv.URL + path}})
			m.Wait(context.Background(), "")
			tool, _, ok := reg.Lookup("mcp__remote__wait")
			if !ok {
				t.Fatalf("wait is not registered; status %+v", status(m, "remote"))
			}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan tools.Result)
			go func() {
				r, _ := tool.Run(ctx, &tools.RunContext{}, tools.Call{ID: "c1", Arguments: json.RawMessage(`{}`)})
				done <- r
			}()
			waitFor(t, "the call to reach the server", func() bool { return len(seen("tools/call")) == 1 })
			cancel()
			if r := <-done; !r.IsError || !strings.Contains(r.Text, "cancelled") {
				t.Errorf("cancelled call = %+v", r)
			}
			waitFor(t, "the server to get notifications/cancelled", func() bool { return len(seen("notifications/cancelled")) > 0 })
			if got, want := seen("notifications/cancelled"), seen("tools/call"); got[0] != want[0] {
				t.Errorf("notifications/cancelled names request %s; want the call's %s", got[0], want[0])
			}
			if r := call(t, reg, nil, "mcp__remote__echo", `{"text":"after"}`); r.Text != "echo: after" {
				t.Errorf("echo after a cancel = %+v", r)
			}
			if s := status(m, "remote"); s.State != mcp.Ready || s.Restarts != 0 {
				t.Errorf("status after a cancel = %+v; want ready, not restarted", s)
			}
		})
	}
}

// TestListChanged: tools/list_changed refreshes the registry. Issue 13
// item 1.
// spec: M1, R1
func TestListChanged(t *testing.T) {
	m, reg := newManager(t, mcp.Options{})
	m.Set("", []mcp.Entry{stdioEntry(t, "local", "ok")})
	m.Wait(context.Background(), "")
	if _, _, ok := reg.Lookup("mcp__local__late"); ok {
		t.Fatal("late is registered before it exists")
	}
	call(t, reg, nil, "mcp__local__grow", `{}`)
	waitFor(t, "the late tool", func() bool { _, _, ok := reg.Lookup("mcp__local__late"); return ok })
	if r := call(t, reg, nil, "mcp__local__late", `{}`); r.Text != "late tool ran" {
		t.Errorf("late = %q", r.Text)
	}
}

// TestBadServers: a program that does not exist, one that speaks garbage,
// one that never answers and one that exits at once all end failed with a
// clear error, and the good server beside them still loads. Issue 13
// "Bad input".
// spec: K5
func TestBadServers(t *testing.T) {
	m, reg := newManager(t, mcp.Options{InitTimeout: 700 * time.Millisecond, Backoff: time.Hour})
	m.Set("", []mcp.Entry{
		{Name: "missing", Command: "/no/such/program"},
		{Name: "nocwd", Command: "/bin/sh", Cwd: "/no/such/folder"},
		stdioEntry(t, "garbage", "garbage"),
		stdioEntry(t, "silent", "silent"),
		stdioEntry(t, "exit", "exit"),
		stdioEntry(t, "good", "ok"),
	})
	m.Wait(context.Background(), "")
	want := map[string]string{
		"missing": "no such file",
		"nocwd":   "its folder /no/such/folder is not there",
		"garbage": "did not complete the MCP handshake",
		"silent":  "did not complete the MCP handshake",
		"exit":    "permission denied",
	}
	for name, w := range want {
		s := status(m, name)
		if s.State != mcp.Failed || !strings.Contains(s.Error, w) {
			t.Errorf("%s: %+v; want failed with %q", name, s, w)
		}
	}
	if s := status(m, "good"); s.State != mcp.Ready {
		t.Errorf("good: %+v", s)
	}
	if _, _, ok := reg.Lookup("mcp__good__echo"); !ok {
		t.Error("the good server's tools are missing")
	}
}

// TestDeferredExposure: past the configured size, MCP tools are deferred
// and tool_search activates them; an alwaysLoad server stays direct.
// Issue 13 item 1.
// spec: E1, E2, M1
func TestDeferredExposure(t *testing.T) {
	srv := mcptest.NewHTTP()
	t.Cleanup(srv.Close) // after the client closes: its listening stream stays open until then
	m, reg := newManager(t, mcp.Options{DeferTokens: func() int { return 100 }})
	m.Set("", []mcp.Entry{stdioEntry(t, "local", "ok"), {Name: "remote", URL: srv.URL, AlwaysLoad: true}})
	m.Wait(context.Background(), "")
	vis := reg.Visible(tools.Filter{State: tools.State{Deferred: 1}})
	if contains(vis, "mcp__local__echo") || !contains(vis, "mcp__remote__echo") || !contains(vis, tools.SearchName) {
		t.Fatalf("visible = %v; want local deferred, remote direct, tool_search offered", vis)
	}
	if s := status(m, "local"); !s.Deferred {
		t.Errorf("status of local = %+v; want deferred", s)
	}
	act := &activator{reg: reg, active: map[string]bool{}}
	res, _ := tools.Search{}.Run(context.Background(), &tools.RunContext{Activator: act}, tools.Call{Arguments: json.RawMessage(`{"query":"echo text"}`)})
	if !act.active["mcp__local__echo"] {
		t.Fatalf("tool_search activated %v (%s); want mcp__local__echo", act.active, res.Text)
	}
	if vis := reg.Visible(tools.Filter{Active: act.active}); !contains(vis, "mcp__local__echo") {
		t.Errorf("after tool_search, visible = %v", vis)
	}
}

type activator struct {
	reg    *tools.Registry
	active map[string]bool
}

func (a *activator) Candidates() []tools.Spec {
	return a.reg.Candidates(tools.Filter{Active: a.active})
}
func (a *activator) Activate(names ...string) {
	for _, n := range names {
		a.active[n] = true
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestApprovalGateway: every call asks the gateway with an MCP action; a
// denial is an is_error result and the server never sees the call; the
// read-only annotation travels as a hint. Issue 13 item 1.
// spec: M2, K5
func TestApprovalGateway(t *testing.T) {
	mark := filepath.Join(t.TempDir(), "mark")
	e := stdioEntry(t, "local", "ok")
	e.Env[mcptest.MarkEnv] = mark
	m, reg := newManager(t, mcp.Options{})
	m.Set("", []mcp.Entry{e})
	m.Wait(context.Background(), "")
	var asked []approval.Action
	rc := &tools.RunContext{Approval: func(ctx context.Context, req approval.Request) (approval.Outcome, error) {
		asked = append(asked, req.Action)
		return approval.Outcome{Message: "approval denied by you: the call was not made"}, nil
	}}
	if r := call(t, reg, rc, "mcp__local__echo", `{"text":"x"}`); !r.IsError || !strings.Contains(r.Text, "denied") {
		t.Errorf("denied echo = %+v", r)
	}
	call(t, reg, rc, "mcp__local__look", `{}`)
	if len(asked) != 2 || asked[0].Kind != approval.MCP || asked[0].ReadOnly || !asked[1].ReadOnly {
		t.Errorf("asked = %+v; want two MCP actions, the second read-only", asked)
	}
}

// TestParse reads the formats users have and reports a malformed file by
// name and place while the other servers load. Issue 13 "Bad input".
// spec: M1
func TestParse(t *testing.T) {
	if _, p := mcp.Parse("a.json", []byte("{\n  \"mcpServers\": {\n    \"x\": {\"command\": \"y\",}\n  }\n}")); len(p) != 1 ||
		!strings.Contains(p[0].Error(), "a.json: line 3, column") {
		t.Errorf("trailing comma: %v", p)
	}
	es, p := mcp.Parse("b.json", []byte(`{"mcpServers":{"ok":{"command":"srv","args":["-v"]},"bad":{"command":7},"none":{}}}`))
	if len(es) != 1 || es[0].Name != "ok" || len(p) != 2 || !strings.Contains(p[0].Error(), "b.json: mcpServers.bad") {
		t.Errorf("entries %+v, problems %v", es, p)
	}
	vs, p := mcp.Parse(".vscode/mcp.json", []byte(`{"inputs":[],"servers":{"web":{"type":"http","url":"http://127.0.0.1:1/mcp","headers":{"A":"b"}},"cli":{"type":"stdio","command":"x"}}}`))
	if len(p) != 0 || len(vs) != 2 || vs[1].Transport() != mcp.HTTP || vs[0].Transport() != mcp.Stdio {
		t.Errorf("VS Code: %+v %v", vs, p)
	}
	cd, p := mcp.Parse("claude_desktop_config.json", []byte(`{"mcpServers":{"fs":{"command":"npx","args":["-y","@modelcontextprotocol/server-filesystem","/tmp x"]}}}`))
	if len(p) != 0 || cd[0].CommandLine() != "npx -y @modelcontextprotocol/server-filesystem '/tmp x'" {
		t.Errorf("Claude Desktop: %+v %v", cd, p)
	}
	if _, p := mcp.Parse("c.json", []byte(`{"mcpServers":{"s":{"type":"sse","url":"ftp://x"}}}`)); len(p) != 1 {
		t.Errorf("ftp url: %v", p)
	}
	if n := mcp.ToolName("a b", strings.Repeat("z", 200), nil); len(n) != 64 || !strings.HasPrefix(n, "mcp__a_b__zzz") {
		t.Errorf("ToolName = %q", n)
	}
	taken := func(s string) bool { return s == "mcp__s__a_b" }
	if n := mcp.ToolName("s", "a.b", taken); n == "mcp__s__a_b" || !strings.HasPrefix(n, "mcp__s__a_b_") {
		t.Errorf("colliding ToolName = %q", n)
	}
}
