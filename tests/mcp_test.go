package tests

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"foya/backend/cli"
	"foya/backend/event"
	"foya/backend/kernel"
	"foya/backend/mcp/mcpconfig"
	"foya/backend/mcp/mcptest"
	pt "foya/backend/provider/providertest"
	"foya/backend/tools"
)

// mcpServer returns a user MCP server entry: this test binary serving
// mcptest over stdio (TestMain).
func mcpServer(t *testing.T, name string) mcpconfig.Config {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return mcpconfig.Config{Name: name, Command: exe, Env: map[string]string{mcptest.Env: "ok"}}
}

// copyExe copies this test binary into dir: a sandboxed server must be
// able to see its program, and the sandbox hides /tmp outside the
// workspace.
func copyExe(t *testing.T, dir string) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst := filepath.Join(dir, "mcp-server")
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, src); err != nil {
		t.Fatal(err)
	}
	out.Close()
	return dst
}

// shownMCP returns a project's server as the list shows it.
func shownMCP(t *testing.T, k *kernel.Kernel, dir, name string) mcpconfig.Server {
	t.Helper()
	list, err := k.MCP().List(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range list.Servers {
		if s.Scope == "project" && s.Name == name {
			return s
		}
	}
	t.Fatalf("no project server %s in %+v", name, list)
	return mcpconfig.Server{}
}

// approveShown approves a project's server with the fingerprint the list
// shows (a.Fingerprint, when set, wins), as Settings and foya mcp approve
// do.
func approveShown(t *testing.T, k *kernel.Kernel, dir, name string, a mcpconfig.Approval) (mcpconfig.Server, error) {
	t.Helper()
	if a.Fingerprint == "" {
		a.Fingerprint = shownMCP(t, k, dir, name).Fingerprint
	}
	return k.MCP().Approve(context.Background(), dir, name, a)
}

func toolText(t *testing.T, req pt.Request, id string) string {
	t.Helper()
	for _, m := range toolMessages(req) {
		if m.ToolCallID == id {
			return m.Content
		}
	}
	t.Fatalf("no tool message for %s", id)
	return ""
}

// TestMCPToolsThroughTheKernel: a user's stdio MCP server's tools are in
// the same registry and request as the built-in ones, every call goes
// through the approval gateway (a read-only annotated tool is allowed in
// Auto, the others are asked about and a denial reaches the model), images
// become artifacts, progress becomes tool.update.
// spec: M1, M2, R1, K5, I1
func TestMCPToolsThroughTheKernel(t *testing.T) {
	h := newHarness(t, nil,
		pt.Calls(call("c1", "mcp__local__look", `{}`), call("c2", "mcp__local__echo", `{"text":"hi"}`),
			call("c3", "mcp__local__picture", `{}`), call("c4", "mcp__local__progress", `{}`)),
		pt.Say("done"))
	ctx := context.Background()
	if err := h.k.MCP().Add(ctx, mcpServer(t, "local")); err != nil {
		t.Fatal(err)
	}
	ans := &answerer{}
	defer ans.watch(h.k, func(p kernel.Approval) kernel.Answer {
		if p.Request.Action.Tool == "mcp__local__echo" {
			// The approval names the server and its own name for the
			// tool, not only Foya's mcp__ name.
			if a := p.Request.Action; a.MCPServer != "local" || a.MCPTool != "echo" {
				t.Errorf("echo's approval names server %q, tool %q; want local, echo", a.MCPServer, a.MCPTool)
			}
			return kernel.Answer{Choice: kernel.Deny, Message: "no echo today"}
		}
		return kernel.Answer{Choice: kernel.AllowOnce}
	})()
	run := h.run("use the tools")
	if run.Status != "completed" {
		t.Fatalf("run = %+v", run)
	}
	reqs := h.srv.Requests()
	if !slices.Contains(reqs[0].Tools, "mcp__local__echo") || !slices.Contains(reqs[0].Tools, "read") {
		t.Fatalf("first request's tools = %v; want MCP and built-in tools together", reqs[0].Tools)
	}
	if got := toolText(t, reqs[1], "c1"); !strings.HasPrefix(got, "looked") {
		t.Errorf("look = %q", got)
	}
	if got := toolText(t, reqs[1], "c2"); !strings.Contains(got, "no echo today") {
		t.Errorf("denied echo = %q; want the user's message", got)
	}
	if got := toolText(t, reqs[1], "c4"); !strings.HasPrefix(got, "progressed") {
		t.Errorf("progress = %q", got)
	}
	ans.mu.Lock()
	asked := slices.Clone(ans.asked)
	ans.mu.Unlock()
	if len(asked) != 3 || asked[0] != "mcp" {
		t.Errorf("asked about %v; want echo, picture and progress (mcp), not the read-only look", asked)
	}
	var artifacts []string
	progress := 0
	for _, ev := range h.eventList() {
		switch ev.Type {
		case event.TypeToolEnd:
			var d event.ToolEndData
			json.Unmarshal(ev.Data, &d)
			if d.ID == "c3" {
				artifacts = d.Artifacts
			}
		case event.TypeToolUpdate:
			var d event.ToolUpdateData
			json.Unmarshal(ev.Data, &d)
			if d.ID == "c4" && d.Progress != nil && d.Progress.Total != nil && *d.Progress.Total == 3 {
				progress++
			}
		}
	}
	if len(artifacts) != 2 {
		t.Fatalf("picture artifacts = %v; want the image and the audio stored", artifacts)
	}
	// The audio is kept in the artifact store with its bytes; the model
	// reads that it was kept, not the sound.
	sound, err := h.k.Artifact(ctx, run.SessionID, artifacts[1])
	if err != nil || sound.MIME != "audio/wav" || string(sound.Data) != "RIFF...." {
		t.Errorf("audio artifact = %+v, %v; want audio/wav RIFF....", sound, err)
	}
	if got := toolText(t, reqs[1], "c3"); !strings.Contains(got, "audio (audio/wav, 8 bytes) kept as artifact "+artifacts[1]) {
		t.Errorf("picture text = %q; want the note of the kept audio", got)
	}
	if progress == 0 {
		t.Error("no tool.update with the server's progress")
	}
	// Resources and prompts through their own API (spec M3).
	res, err := h.k.MCP().ReadResource(ctx, "", "local", "file:///notes.txt")
	if err != nil || len(res) != 1 || res[0].Text != "remember the milk" {
		t.Errorf("ReadMCPResource = %+v, %v", res, err)
	}
	msgs, err := h.k.MCP().GetPrompt(ctx, "", "local", "greet", map[string]string{"name": "Ada"})
	if err != nil || len(msgs) != 1 || msgs[0].Text != "Say hello to Ada" {
		t.Errorf("GetMCPPrompt = %+v, %v", msgs, err)
	}
	if _, err := h.k.MCP().Resources(ctx, "", "nobody"); kernel.Code(err) != "invalid" {
		t.Errorf("MCPResources of an unknown server: %v (%s)", err, kernel.Code(err))
	}
}

// TestMCPProjectServerNeedsApproval: opening a project starts none of its
// programs; an approved project server runs in the sandbox (it cannot
// write outside the workspace); a changed entry is unapproved again; a
// malformed file is reported by name and place while the other loads.
// spec: M2, K5, M3
func TestMCPProjectServerNeedsApproval(t *testing.T) {
	h := newHarness(t, nil)
	ctx := context.Background()
	exe := copyExe(t, h.dir)
	mark := filepath.Join(h.dir, "started")
	cfg := func(arg string) []byte {
		b, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"proj": map[string]any{
			"command": exe, "args": []string{arg}, "env": map[string]string{mcptest.Env: "ok", mcptest.MarkEnv: mark}}}})
		return b
	}
	os.WriteFile(filepath.Join(h.dir, ".mcp.json"), cfg("-a"), 0o644)
	os.MkdirAll(filepath.Join(h.dir, ".foya"), 0o755)
	os.WriteFile(filepath.Join(h.dir, ".foya", "mcp.json"), []byte("{\"mcpServers\": {\n  \"x\": [}\n}"), 0o644)
	list, err := h.k.MCP().List(ctx, h.dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Servers) != 1 || list.Servers[0].State != mcpconfig.Unapproved {
		t.Fatalf("servers = %+v; want proj unapproved", list.Servers)
	}
	if len(list.Problems) != 1 || !strings.Contains(list.Problems[0], filepath.Join(".foya", "mcp.json")+": line 2, column") {
		t.Errorf("problems = %v; want the malformed file by name and line", list.Problems)
	}
	if _, _, ok := h.k.Registry().Lookup("mcp__proj__echo"); ok {
		t.Fatal("an unapproved project server's tools are registered")
	}
	s, err := approveShown(t, h.k, h.dir, "proj", mcpconfig.Approval{})
	if err != nil {
		t.Fatal(err)
	}
	if s.State != "ready" || !s.Sandbox || s.Tools == 0 {
		t.Fatalf("approved server = %+v; want ready in the sandbox", s)
	}
	tool, _, ok := h.k.Registry().Lookup("mcp__proj__write")
	if !ok {
		t.Fatal("the approved server's tools are missing")
	}
	outside := filepath.Join(t.TempDir(), "outside.txt")
	for path, wantOK := range map[string]bool{filepath.Join(h.dir, "inside.txt"): true, outside: false} {
		res, err := tool.Run(ctx, nil, toolsCall("w", `{"path":"`+path+`"}`))
		if err != nil || res.IsError == wantOK {
			t.Errorf("write %s = %+v, %v; want allowed %v", path, res, err, wantOK)
		}
	}
	if _, err := os.Stat(outside); err == nil {
		t.Error("the sandboxed server wrote outside the workspace")
	}
	os.WriteFile(filepath.Join(h.dir, ".mcp.json"), cfg("-b"), 0o644)
	if list, _ := h.k.MCP().List(ctx, h.dir); list.Servers[0].State != mcpconfig.Unapproved {
		t.Errorf("after the entry changed: %+v; want unapproved again", list.Servers[0])
	}
}

// TestMCPDeferredThroughToolSearch: past mcp.deferShare of the context,
// MCP tools are deferred; tool_search activates one for the next step.
// spec: E1, E2, M1
func TestMCPDeferredThroughToolSearch(t *testing.T) {
	h := newHarness(t, nil,
		pt.Calls(call("s1", "tool_search", `{"query":"echo the text"}`)),
		pt.Calls(call("c1", "mcp__local__echo", `{"text":"found"}`)),
		pt.Say("done"))
	ctx := context.Background()
	if err := h.k.SetSetting(ctx, kernel.SettingMCPDeferShare, "0.0001"); err != nil {
		t.Fatal(err)
	}
	if err := h.k.SetSetting(ctx, kernel.SettingMCPDeferShare, "2"); kernel.Code(err) != "invalid" {
		t.Errorf("share 2: %v", err)
	}
	if err := h.k.MCP().Add(ctx, mcpServer(t, "local")); err != nil {
		t.Fatal(err)
	}
	ans := &answerer{}
	defer ans.watch(h.k, func(kernel.Approval) kernel.Answer { return kernel.Answer{Choice: kernel.AllowOnce} })()
	h.run("echo something")
	reqs := h.srv.Requests()
	if slices.Contains(reqs[0].Tools, "mcp__local__echo") || !slices.Contains(reqs[0].Tools, "tool_search") {
		t.Fatalf("first request's tools = %v; want MCP tools deferred behind tool_search", reqs[0].Tools)
	}
	if !slices.Contains(reqs[1].Tools, "mcp__local__echo") {
		t.Fatalf("after tool_search: %v", reqs[1].Tools)
	}
	if got := toolText(t, reqs[2], "c1"); !strings.HasPrefix(got, "echo: found") {
		t.Errorf("echo = %q", got)
	}
}

// TestMCPAttachResource: a user message attaches MCP resources by server
// and URI: their text goes into the user message after the prompt (the
// run's prompt stays the user's words), an image resource goes as an
// image part kept in the artifact store, binary data is named, not sent;
// all is stored with the message. Unknown servers and resources, too many
// attachments and empty references fail before a run starts; a huge
// resource is cut.
// spec: M3, I1
func TestMCPAttachResource(t *testing.T) {
	h := newHarness(t, nil, pt.Say("noted"), pt.Say("long read"))
	ctx := context.Background()
	if err := h.k.MCP().Add(ctx, mcpServer(t, "local")); err != nil {
		t.Fatal(err)
	}
	sess := h.session("auto")
	run, err := h.k.Run(ctx, kernel.RunOptions{SessionID: sess.ID, Prompt: "what do my notes say?", Model: h.model(),
		Resources: []kernel.ResourceRef{{Server: "local", URI: "file:///notes.txt"}, {Server: "local", URI: "file:///dot.png"},
			{Server: "local", URI: "file:///data.bin"}}})
	if err != nil || run.Status != "completed" {
		t.Fatalf("run = %+v, %v", run, err)
	}
	if run.Prompt != "what do my notes say?" {
		t.Errorf("run prompt = %q; want the user's words only", run.Prompt)
	}
	// run.start names what was attached.
	starts := 0
	for _, ev := range h.eventList() {
		if ev.Type != event.TypeRunStart || ev.RunID != run.ID {
			continue
		}
		starts++
		var d event.RunStartData
		json.Unmarshal(ev.Data, &d)
		if len(d.Resources) != 3 || d.Resources[0] != (event.ResourceRef{Server: "local", URI: "file:///notes.txt"}) {
			t.Errorf("run.start resources = %+v; want the three attached", d.Resources)
		}
	}
	if starts != 1 {
		t.Errorf("%d run.start events of the run; want 1", starts)
	}
	reqs := h.srv.Requests()
	var user pt.Message
	for _, m := range reqs[0].Messages {
		if m.Role == "user" {
			user = m
		}
	}
	for _, want := range []string{"what do my notes say?", "[resource <file:///notes.txt> from the MCP server local (text/plain), attached by the user]\nremember the milk",
		"[resource <file:///dot.png> from the MCP server local (image/png), attached by the user]",
		"<file:///data.bin>", "4 bytes of binary data, not attached"} {
		if !strings.Contains(user.Content, want) {
			t.Errorf("user message to the model = %q; lacks %q", user.Content, want)
		}
	}
	if len(user.Images) != 1 || !strings.HasPrefix(user.Images[0], "data:image/png;base64,") {
		t.Errorf("user message images = %v; want the attached PNG", user.Images)
	}
	msgs, err := h.k.Messages(ctx, sess.ID)
	if err != nil || len(msgs) == 0 {
		t.Fatal(msgs, err)
	}
	stored := msgs[0].Message
	if stored.Role != kernel.RoleUser || !strings.Contains(stored.Content, "remember the milk") || len(stored.Parts) != 1 {
		t.Fatalf("stored user message = %+v; want the text and one image part", stored)
	}
	art, err := h.k.Artifact(ctx, sess.ID, stored.Parts[0].ArtifactID)
	if err != nil || art.MIME != "image/png" || string(art.Data) != string(mcptest.PNG()) {
		t.Errorf("attached image artifact = %+v, %v", art, err)
	}

	// A huge resource is cut to the bound, and says so.
	run, err = h.k.Run(ctx, kernel.RunOptions{SessionID: sess.ID, Prompt: "read it", Model: h.model(),
		Resources: []kernel.ResourceRef{{Server: "local", URI: "file:///big.txt"}}})
	if err != nil || run.Status != "completed" {
		t.Fatalf("big run = %+v, %v", run, err)
	}
	msgs, _ = h.k.Messages(ctx, sess.ID)
	var big string
	for _, m := range msgs {
		if m.RunID == run.ID && m.Message.Role == kernel.RoleUser {
			big = m.Message.Content
		}
	}
	if len(big) > mcpconfig.MaxAttachedText+1024 || !strings.Contains(big, "the attached resources were cut") {
		t.Errorf("big attachment: %d bytes, ends %q", len(big), big[max(0, len(big)-200):])
	}

	// Bad references start nothing.
	runs, _ := h.k.Runs(ctx, sess.ID)
	for _, c := range []struct {
		name string
		refs []kernel.ResourceRef
		want string
	}{
		{"unknown server", []kernel.ResourceRef{{Server: "nobody", URI: "file:///notes.txt"}}, "no MCP server"},
		{"unknown resource", []kernel.ResourceRef{{Server: "local", URI: "file:///missing.txt"}}, "file:///missing.txt"},
		{"empty uri", []kernel.ResourceRef{{Server: "local"}}, "needs a server and a uri"},
		{"too many", slices.Repeat([]kernel.ResourceRef{{Server: "local", URI: "file:///notes.txt"}}, mcpconfig.MaxAttached+1), "at most"},
	} {
		_, err := h.k.Run(ctx, kernel.RunOptions{SessionID: sess.ID, Prompt: "x", Model: h.model(), Resources: c.refs})
		if kernel.Code(err) != "invalid" || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v (%s); want invalid naming %q", c.name, err, kernel.Code(err), c.want)
		}
	}
	if after, _ := h.k.Runs(ctx, sess.ID); len(after) != len(runs) {
		t.Errorf("bad attachments started runs: %d, were %d", len(after), len(runs))
	}
}

// TestMCPSettingsCalls: what the settings view needs besides add and
// remove: restart a server at once (a failed one too), "always load" per
// server (kept in the user's file, and the tools stay direct when the
// others are deferred), and where a server comes from (imported ones
// name their file). Unknown names are not found.
// spec: M1, K5, E2
func TestMCPSettingsCalls(t *testing.T) {
	h := newHarness(t, nil)
	ctx := context.Background()
	if err := h.k.MCP().Add(ctx, mcpServer(t, "local")); err != nil {
		t.Fatal(err)
	}
	s, err := h.k.MCP().Restart(ctx, "", "local")
	if err != nil || s.State != "ready" || s.Restarts != 0 || s.Scope != "user" || s.Tools < 10 {
		t.Fatalf("restart = %+v, %v; want ready again", s, err)
	}
	if _, err := h.k.MCP().Restart(ctx, "", "nobody"); kernel.Code(err) != "not_found" {
		t.Errorf("restart of an unknown server: %v (%s)", err, kernel.Code(err))
	}

	// always load: with everything deferred, its tools stay direct.
	if err := h.k.SetSetting(ctx, kernel.SettingMCPDeferShare, "0.0001"); err != nil {
		t.Fatal(err)
	}
	if err := h.k.MCP().SetAlwaysLoad(ctx, "local", true); err != nil {
		t.Fatal(err)
	}
	list, err := h.k.MCP().List(ctx, "")
	if err != nil || len(list.Servers) != 1 || !list.Servers[0].AlwaysLoad || list.Servers[0].Deferred {
		t.Fatalf("after always load = %+v, %v; want alwaysLoad, not deferred", list, err)
	}
	if err := h.k.MCP().SetAlwaysLoad(ctx, "local", false); err != nil {
		t.Fatal(err)
	}
	list, _ = h.k.MCP().List(ctx, "")
	if list.Servers[0].AlwaysLoad || !list.Servers[0].Deferred {
		t.Errorf("after always load off = %+v; want deferred", list.Servers[0])
	}
	if err := h.k.MCP().SetAlwaysLoad(ctx, "nobody", true); kernel.Code(err) != "not_found" {
		t.Errorf("always load of an unknown server: %v (%s)", err, kernel.Code(err))
	}

	// An imported server names the file it came from; one added by hand
	// names none.
	exe, _ := os.Executable()
	cursor := filepath.Join(t.TempDir(), "mcp.json")
	os.WriteFile(cursor, []byte(`{"mcpServers":{"fromcursor":{"command":"`+exe+`","env":{"`+mcptest.Env+`":"ok"}}}}`), 0o644)
	if _, err := h.k.MCP().Import(ctx, cursor); err != nil {
		t.Fatal(err)
	}
	list, _ = h.k.MCP().List(ctx, "")
	from := map[string]string{}
	for _, s := range list.Servers {
		from[s.Name] = s.ImportedFrom
	}
	if from["fromcursor"] != cursor || from["local"] != "" {
		t.Errorf("importedFrom = %v; want fromcursor from %s, local from none", from, cursor)
	}
}

// TestMCPCommandLine: foya mcp add (stdio and URL), list --json (state,
// tools, stderr tail), import of a Claude Desktop file with a broken
// entry, approve of a project server, remove.
// spec: M1, M2, K5
func TestMCPCommandLine(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(t.TempDir(), "foya.db")
	exe, _ := os.Executable()
	foya := func(args ...string) (string, string, int) {
		var out, errb bytes.Buffer
		code := cli.Run(context.Background(), append(args[:1:1], append([]string{"--db", db}, args[1:]...)...),
			cli.Env{Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }})
		return out.String(), errb.String(), code
	}
	mcp := func(args ...string) (string, string, int) { return foya(append([]string{"mcp"}, args...)...) }
	if out, errs, code := mcp("add", "local", "--env", mcptest.Env+"=ok", "--", exe, "-test.run=none"); code != 0 || !strings.Contains(out, "ready") {
		t.Fatalf("add = %d %q %q", code, out, errs)
	}
	if _, errs, code := mcp("add", "bad"); code != cli.ExitUsage || !strings.Contains(errs, "COMMAND") {
		t.Errorf("add without command = %d %q", code, errs)
	}
	out, _, code := mcp("list", "--json", "--workdir", dir)
	var list mcpconfig.List
	if err := json.Unmarshal([]byte(out), &list); code != 0 || err != nil || len(list.Servers) != 1 ||
		list.Servers[0].State != "ready" || list.Servers[0].Tools < 10 || !strings.Contains(list.Servers[0].CommandLine, "-test.run=none") {
		t.Fatalf("list = %d %s", code, out)
	}
	claude := filepath.Join(dir, "claude_desktop_config.json")
	os.WriteFile(claude, []byte(`{"mcpServers":{"other":{"command":"`+exe+`","env":{"`+mcptest.Env+`":"exit"}},"local":{"command":"x"},"broken":{"args":"no"}}}`), 0o644)
	out, errs, code := mcp("import", claude)
	if code != 0 || !strings.Contains(out, "Imported 1 MCP server(s): other") || !strings.Contains(out, "Kept your own of the same name: local") ||
		!strings.Contains(errs, "mcpServers.broken") {
		t.Errorf("import = %d %q %q", code, out, errs)
	}
	out, _, _ = mcp("list", "--workdir", dir)
	if !strings.Contains(out, "other (user, stdio) failed") || !strings.Contains(out, "permission denied") ||
		!strings.Contains(out, "imported from "+claude) {
		t.Errorf("list after import = %q; want other failed with its stderr, and the file it was imported from", out)
	}
	os.WriteFile(filepath.Join(dir, ".mcp.json"), []byte(`{"mcpServers":{"web":{"type":"http","url":"http://127.0.0.1:9/mcp"}}}`), 0o644)
	out, _, _ = mcp("list", "--workdir", dir)
	if !strings.Contains(out, "web (project, http) unapproved") || !strings.Contains(out, "foya mcp approve web") {
		t.Errorf("list with a project server = %q", out)
	}
	// approve shows what it approves, and with
	// --fingerprint approves only what the user saw.
	if out, errs, code := mcp("approve", "web", "--workdir", dir, "--fingerprint", "0123abcd"); code == 0 ||
		!strings.Contains(errs, "changed since it was shown") || strings.Contains(out, "failed") {
		t.Errorf("approve with a stale fingerprint = %d %q %q; want refused, nothing started", code, out, errs)
	}
	if out, errs, code := mcp("approve", "web", "--workdir", dir); code != 0 || !strings.Contains(out, "url:       http://127.0.0.1:9/mcp") ||
		!strings.Contains(out, "fingerprint: ") || !strings.Contains(out, "failed") {
		t.Errorf("approve = %d %q %q; want the URL and fingerprint shown, then failed (nothing listens)", code, out, errs)
	}
	if out, _, code := mcp("remove", "other"); code != 0 || !strings.Contains(out, "Removed") {
		t.Errorf("remove = %d %q", code, out)
	}
	if _, errs, code := mcp("remove", "other"); code == 0 || !strings.Contains(errs, `no MCP server "other"`) {
		t.Errorf("remove twice = %d %q", code, errs)
	}
}

func toolsCall(id, args string) tools.Call {
	return tools.Call{ID: id, Arguments: json.RawMessage(args)}
}
