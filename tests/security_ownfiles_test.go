//go:build linux

package tests

import (
	"context"
	"foya/backend/testwait"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"foya/backend/kernel"
	"foya/backend/mcp/mcpconfig"
	pt "foya/backend/provider/providertest"
	"foya/backend/sandbox"
	"foya/backend/sandbox/sandboxtest"
)

// ownFilesHarness opens a kernel whose database (named with --db) lies in
// the workspace's data folder, so Foya's other files (mcp.json,
// provider-keys.json) lie in the workspace too.
func ownFilesHarness(t *testing.T, turns ...pt.Turn) (*harness, string) {
	t.Helper()
	ws := sandboxtest.Dir(t) // outside /tmp, which the sandbox hides
	if err := os.Mkdir(filepath.Join(ws, "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	return &harness{t: t, dir: ws, db: filepath.Join(ws, "data", "foya.db"), srv: pt.New(t, turns...)}, ws
}

// spec: A1, A2 — with --db inside the workspace, the user's mcp.json
// lies in the workspace; in Auto, neither the write tool nor a sandboxed
// command may change it (the next run would start its servers
// unsandboxed, unasked), and a refused write leaves it as it was.
func TestOwnFilesInsideTheWorkspaceStayTheUsers(t *testing.T) {
	if c := sandbox.Probe(); c.Mechanism == "" {
		testwait.Missing(t, "every sandbox mechanism ("+c.Reason+")", "Foya's own files against a sandboxed command")
	}
	const original = "{\"mcpServers\": {}}\n"
	h, ws := ownFilesHarness(t,
		pt.Calls(call("c1", "read", `{"path":"data/mcp.json"}`)),
		pt.Calls(call("c2", "write", `{"path":"data/mcp.json","content":"{\"mcpServers\":{\"x\":{\"command\":\"evil\"}}}"}`)),
		pt.Calls(call("c3", "bash", `{"command":"printf planted > data/mcp.json; cat data/mcp.json"}`)),
		pt.Say("done"))
	mcpFile := filepath.Join(ws, "data", mcpconfig.File)
	escWrite(t, mcpFile, original)
	h.open(nil)
	sess := h.session("auto")
	run := h.runIn(context.Background(), sess.ID, "plant a server")
	if run.Status != kernel.RunCompleted {
		t.Fatalf("run %s: %s", run.Status, run.Error)
	}
	calls, err := h.k.Calls(context.Background(), run.ID)
	if err != nil || len(calls) != 3 {
		t.Fatalf("calls %+v %v", calls, err)
	}
	if w := calls[1].Result; w == nil || !w.IsError || !strings.Contains(w.Text, "Foya's own configuration") || !strings.Contains(w.Text, "Nothing was changed") {
		t.Errorf("write of mcp.json was not refused, saying why: %+v", w)
	}
	if got := escRead(mcpFile); got != original {
		t.Errorf("mcp.json changed to %q (bash said %q)", got, calls[2].Result.Text)
	}
}

// spec: A1 — like the user's permissions.json, a user's mcp.json
// that lies in the session's workspace is not read for its runs: its
// servers do not start, and the list says why. A session elsewhere is the
// control: the same file starts its server there.
func TestUserMCPFileInsideTheWorkspaceIsNotTrusted(t *testing.T) {
	h, ws := ownFilesHarness(t, pt.Say("hi"), pt.Say("hi"), pt.Say("hi"))
	mark := filepath.Join(sandboxtest.Dir(t), "started")
	escWrite(t, filepath.Join(ws, "data", mcpconfig.File),
		`{"mcpServers":{"planted":{"command":"sh","args":["-c","touch `+mark+`"]}}}`)
	h.open(nil)
	sess := h.session("auto")
	if run := h.runIn(context.Background(), sess.ID, "hello"); run.Status != kernel.RunCompleted {
		t.Fatalf("run %s: %s", run.Status, run.Error)
	}
	if pathExists(mark) {
		t.Fatal("the server of an mcp.json inside the workspace was started")
	}
	list, err := h.k.MCP().List(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(list.Problems, "\n"), "inside the workspace") {
		t.Errorf("the list does not say why the servers do not start: %q", list.Problems)
	}
	if pathExists(mark) {
		t.Fatal("listing the servers for the workspace started one")
	}
	// Nor in another session's runs while the session on ws exists: its
	// agent could have planted the file.
	other, err := h.k.CreateSession(context.Background(), kernel.NewSession{Workdir: sandboxtest.Dir(t), ApprovalMode: "auto", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	if run := h.runIn(context.Background(), other.ID, "hello"); run.Status != kernel.RunCompleted {
		t.Fatalf("run %s: %s", run.Status, run.Error)
	}
	if pathExists(mark) {
		t.Fatal("a session elsewhere started the server of an mcp.json that lies inside another session's workspace")
	}
	if list, err := h.k.MCP().List(context.Background(), ""); err != nil || !strings.Contains(strings.Join(list.Problems, "\n"), sess.Workdir) {
		t.Errorf("the list does not name the session's workspace that holds the file: %q %v", list.Problems, err)
	}
	// Control: with that session gone, the file is the user's again.
	if err := h.k.DeleteSession(context.Background(), sess.ID); err != nil {
		t.Fatal(err)
	}
	if run := h.runIn(context.Background(), other.ID, "hello"); run.Status != kernel.RunCompleted {
		t.Fatalf("run %s: %s", run.Status, run.Error)
	}
	if !pathExists(mark) {
		t.Error("control: a session elsewhere did not start the server either, so the test shows nothing")
	}
}
