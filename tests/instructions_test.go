//go:build unix

package tests

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"foya/backend/engine"
	"foya/backend/event"
	"foya/backend/kernel"
	"foya/backend/llm"
	pt "foya/backend/provider/providertest"
	"foya/backend/testwait"
	"foya/backend/tools"
)

// systemOf returns the system message of a request as the server received
// it, byte for byte, and its decoded text.
func systemOf(t *testing.T, req pt.Request) (raw []byte, text string) {
	t.Helper()
	var body struct {
		Messages []json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(req.Raw, &body); err != nil || len(body.Messages) == 0 {
		t.Fatalf("request body: %v", err)
	}
	if req.Messages[0].Role != "system" {
		t.Fatalf("the first message is %s, not the system prompt", req.Messages[0].Role)
	}
	return body.Messages[0], req.Messages[0].Content
}

// runStartInstructions returns the instructions field of a run's run.start
// event.
func runStartInstructions(t *testing.T, h *harness, runID string) llm.Instructions {
	t.Helper()
	for _, ev := range h.eventList() {
		if ev.Type == event.TypeRunStart && ev.RunID == runID {
			var d struct {
				Instructions *llm.Instructions `json:"instructions"`
			}
			json.Unmarshal(ev.Data, &d)
			if d.Instructions == nil {
				t.Fatalf("run.start has no instructions field: %s", ev.Data)
			}
			return *d.Instructions
		}
	}
	t.Fatalf("no run.start for %s", runID)
	return llm.Instructions{}
}

// spec: R2 — the project's AGENTS.md (else CLAUDE.md) at
// the root of the working directory goes into the system prompt, bounded at
// 32 KiB with a notice, and run.start says which file was used or why one
// was skipped. What is not a plain file in the project (a folder, a FIFO, a
// device, a symlink leading out of the working directory) is never read,
// and nothing hangs.
func TestProjectInstructions(t *testing.T) {
	outside := t.TempDir()
	secret := filepath.Join(outside, "id_rsa")
	writeFile(t, secret, "SECRET-KEY-MATERIAL\n", 0o600)
	big := bytes.Repeat([]byte("Run go test before you say you are done.\n"), (50<<20)/41+1) // 50 MB of text

	for _, c := range []struct {
		name  string
		setup func(t *testing.T, dir string)
		// want is the instructions' status and file; in the system prompt
		// there must be each of has and none of hasNot.
		status, file string
		has, hasNot  []string
		why          string // in the skip reason
	}{
		{name: "found", status: llm.InstructionsUsed, file: "AGENTS.md",
			setup: func(t *testing.T, dir string) {
				writeFile(t, filepath.Join(dir, "AGENTS.md"), "Indent with tabs.\n", 0o644)
			},
			has: []string{"Project instructions from AGENTS.md", "Indent with tabs."}},
		{name: "absent", status: llm.InstructionsNone,
			setup:  func(t *testing.T, dir string) {},
			hasNot: []string{"<project_instructions>"}},
		{name: "CLAUDE.md fallback", status: llm.InstructionsUsed, file: "CLAUDE.md",
			setup: func(t *testing.T, dir string) {
				writeFile(t, filepath.Join(dir, "CLAUDE.md"), "Claude rules.\n", 0o644)
			},
			has: []string{"Project instructions from CLAUDE.md", "Claude rules."}},
		{name: "AGENTS.md before CLAUDE.md", status: llm.InstructionsUsed, file: "AGENTS.md",
			setup: func(t *testing.T, dir string) {
				writeFile(t, filepath.Join(dir, "AGENTS.md"), "Agents rules.\n", 0o644)
				writeFile(t, filepath.Join(dir, "CLAUDE.md"), "Claude rules.\n", 0o644)
			},
			has: []string{"Agents rules."}, hasNot: []string{"Claude rules."}},
		{name: "too big", status: llm.InstructionsUsed, file: "AGENTS.md",
			setup: func(t *testing.T, dir string) {
				if err := os.WriteFile(filepath.Join(dir, "AGENTS.md"), big, 0o644); err != nil {
					t.Fatal(err)
				}
			},
			has: []string{"Run go test before you say you are done.", fmt.Sprintf("[AGENTS.md is %d bytes; only its first", len(big)), "Read the file for the rest."}},
		{name: "folder", status: llm.InstructionsSkipped, file: "AGENTS.md", why: "is a folder",
			setup: func(t *testing.T, dir string) {
				os.Mkdir(filepath.Join(dir, "AGENTS.md"), 0o755)
				writeFile(t, filepath.Join(dir, "CLAUDE.md"), "Claude rules.\n", 0o644)
			},
			hasNot: []string{"<project_instructions>"}},
		{name: "FIFO", status: llm.InstructionsSkipped, file: "AGENTS.md", why: "FIFO",
			setup: func(t *testing.T, dir string) {
				if err := syscall.Mkfifo(filepath.Join(dir, "AGENTS.md"), 0o644); err != nil {
					testwait.Missing(t, "mkfifo ("+err.Error()+")", "a FIFO named AGENTS.md")
				}
			},
			hasNot: []string{"<project_instructions>"}},
		{name: "device", status: llm.InstructionsSkipped, file: "AGENTS.md", why: "is a device",
			setup: func(t *testing.T, dir string) {
				// /dev/zero's numbers: read, it would never end.
				if err := syscall.Mknod(filepath.Join(dir, "AGENTS.md"), syscall.S_IFCHR|0o644, 1<<8|5); err != nil {
					testwait.Missing(t, "CAP_MKNOD ("+err.Error()+")", "a device named AGENTS.md")
				}
			},
			hasNot: []string{"<project_instructions>"}},
		{name: "symlink outside", status: llm.InstructionsSkipped, file: "AGENTS.md", why: "outside the working directory",
			setup: func(t *testing.T, dir string) {
				if err := os.Symlink(secret, filepath.Join(dir, "AGENTS.md")); err != nil {
					t.Fatal(err)
				}
			},
			hasNot: []string{"SECRET-KEY-MATERIAL"}},
		{name: "relative symlink outside", status: llm.InstructionsSkipped, file: "AGENTS.md", why: "outside the working directory",
			setup: func(t *testing.T, dir string) {
				rel, _ := filepath.Rel(dir, secret)
				if err := os.Symlink(rel, filepath.Join(dir, "AGENTS.md")); err != nil {
					t.Fatal(err)
				}
			},
			hasNot: []string{"SECRET-KEY-MATERIAL"}},
		{name: "symlink inside", status: llm.InstructionsUsed, file: "CLAUDE.md",
			setup: func(t *testing.T, dir string) {
				os.Mkdir(filepath.Join(dir, "docs"), 0o755)
				writeFile(t, filepath.Join(dir, "docs", "agents.md"), "Shared rules.\n", 0o644)
				if err := os.Symlink("docs/agents.md", filepath.Join(dir, "CLAUDE.md")); err != nil {
					t.Fatal(err)
				}
			},
			has: []string{"Shared rules."}},
		{name: "dangling symlink", status: llm.InstructionsSkipped, file: "AGENTS.md", why: "does not exist",
			setup: func(t *testing.T, dir string) { os.Symlink("nowhere.md", filepath.Join(dir, "AGENTS.md")) }},
		{name: "invalid UTF-8", status: llm.InstructionsUsed, file: "AGENTS.md",
			setup: func(t *testing.T, dir string) {
				writeFile(t, filepath.Join(dir, "AGENTS.md"), "Caf\xe9 rules: keep them.\n", 0o644)
			},
			has: []string{"Caf\uFFFD rules: keep them."}},
		{name: "binary", status: llm.InstructionsSkipped, file: "AGENTS.md", why: "NUL bytes",
			setup: func(t *testing.T, dir string) {
				writeFile(t, filepath.Join(dir, "AGENTS.md"), "\x1f\x8b\x08\x00\x00\x00", 0o644)
			}},
		{name: "empty", status: llm.InstructionsSkipped, file: "AGENTS.md", why: "is empty",
			setup: func(t *testing.T, dir string) { writeFile(t, filepath.Join(dir, "AGENTS.md"), "\n\n", 0o644) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, nil, pt.Say("ok"))
			c.setup(t, h.dir)
			run := h.runIn(context.Background(), h.session("auto").ID, "hi")
			if run.Status != kernel.RunCompleted {
				t.Fatalf("run %s: %s", run.Status, run.Error)
			}
			_, sys := systemOf(t, h.srv.Requests()[0])
			for _, s := range c.has {
				if !strings.Contains(sys, s) {
					t.Errorf("the system prompt lacks %q:\n%.600s", s, sys)
				}
			}
			for _, s := range c.hasNot {
				if strings.Contains(sys, s) {
					t.Errorf("the system prompt holds %q", s)
				}
			}
			in := runStartInstructions(t, h, run.ID)
			t.Logf("run.start instructions: %+v", in)
			if in.Status != c.status || in.File != c.file || !strings.Contains(in.Skipped, c.why) || (c.why == "") != (in.Skipped == "") {
				t.Errorf("run.start instructions = %+v; want status %s, file %q, skipped for %q", in, c.status, c.file, c.why)
			}
			switch c.name {
			case "too big":
				if !in.Truncated || in.Size != int64(len(big)) || in.Bytes > engine.InstructionsLimit || in.Bytes < engine.InstructionsLimit-100 {
					t.Errorf("instructions = %+v; want truncated at about %d of %d bytes", in, engine.InstructionsLimit, len(big))
				}
				if len(sys) > engine.InstructionsLimit+4096 {
					t.Errorf("the system prompt is %d bytes; the instructions' bound is %d", len(sys), engine.InstructionsLimit)
				}
			case "invalid UTF-8":
				if !in.InvalidUTF8 {
					t.Errorf("instructions = %+v; want invalidUtf8", in)
				}
			}
		})
	}
}

// rewriter overwrites a file of the working directory.
type rewriter struct{}

func (rewriter) Spec() tools.Spec {
	return tools.Spec{Name: "rewrite", Description: "Rewrites a file.", Schema: json.RawMessage(
		`{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}},"required":["path","content"]}`)}
}
func (rewriter) Run(ctx context.Context, rc *tools.RunContext, c tools.Call) (tools.Result, error) {
	var a struct{ Path, Content string }
	json.Unmarshal(c.Arguments, &a)
	if err := os.WriteFile(filepath.Join(rc.Workdir, a.Path), []byte(a.Content), 0o644); err != nil {
		return tools.Errorf("%v", err), nil
	}
	return tools.Text("rewritten"), nil
}

// spec: R2 — the system prompt is the same bytes at every
// step of a turn, so prompt caches hold, even when the turn rewrites
// AGENTS.md; the next turn reads the file again.
func TestProjectInstructionsStableWithinATurn(t *testing.T) {
	h := newHarness(t, []tools.Tool{rewriter{}},
		pt.Calls(call("1", "rewrite", `{"path":"AGENTS.md","content":"Version two.\n"}`)),
		pt.Calls(call("2", "rewrite", `{"path":"AGENTS.md","content":"Version three.\n"}`)),
		pt.Say("done"),
		pt.Say("again"))
	writeFile(t, filepath.Join(h.dir, "AGENTS.md"), "Version one.\n", 0o644)
	sess := h.session("auto")
	if run := h.runIn(context.Background(), sess.ID, "change the rules"); run.Status != kernel.RunCompleted {
		t.Fatalf("run %s: %s", run.Status, run.Error)
	}
	reqs := h.srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests in the turn; want 3", len(reqs))
	}
	first, text := systemOf(t, reqs[0])
	if !strings.Contains(text, "Version one.") {
		t.Fatalf("the first step's system prompt lacks the instructions:\n%s", text)
	}
	for i, r := range reqs[1:] {
		if raw, _ := systemOf(t, r); !bytes.Equal(raw, first) {
			t.Errorf("step %d's system prompt differs from step 1's:\n%s\n%s", i+2, raw, first)
		}
	}
	run := h.runIn(context.Background(), sess.ID, "and now")
	_, text = systemOf(t, h.srv.Requests()[3])
	if !strings.Contains(text, "Version three.") || strings.Contains(text, "Version one.") {
		t.Errorf("the next turn did not read AGENTS.md again:\n%s", text)
	}
	if in := runStartInstructions(t, h, run.ID); in.Bytes != len("Version three.\n") {
		t.Errorf("the next turn's run.start says %+v", in)
	}
}

// foya show says, run by run, which instructions file was
// used or why one was skipped, in text and in --json.
func TestShowSaysWhichInstructions(t *testing.T) {
	h := newHarness(t, nil, pt.Say("one"), pt.Say("two"))
	agents := filepath.Join(h.dir, "AGENTS.md")
	writeFile(t, agents, "Indent with tabs.\n", 0o644)
	sess := h.session("auto")
	first := h.runIn(context.Background(), sess.ID, "hi")
	os.Remove(agents)
	if err := os.Symlink(filepath.Join(t.TempDir(), "id_rsa"), agents); err != nil {
		t.Fatal(err)
	}
	second := h.runIn(context.Background(), sess.ID, "again")

	code, stdout, stderr := foya(t, nil, "show", sess.ID, "--db", h.db)
	if code != 0 {
		t.Fatalf("show: exit %d %s", code, stderr)
	}
	for _, want := range []string{"instructions: AGENTS.md (18 bytes)", "instructions: none used: AGENTS.md is a symlink to", "outside the working directory"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("foya show lacks %q:\n%s", want, stdout)
		}
	}
	code, stdout, _ = foya(t, nil, "show", sess.ID, "--db", h.db, "--json")
	var tr struct {
		Instructions map[string]llm.Instructions `json:"instructions"`
	}
	if err := json.Unmarshal([]byte(stdout), &tr); err != nil || code != 0 {
		t.Fatalf("show --json: %d %v", code, err)
	}
	if tr.Instructions[first.ID].File != "AGENTS.md" || tr.Instructions[first.ID].Status != llm.InstructionsUsed ||
		tr.Instructions[second.ID].Status != llm.InstructionsSkipped {
		t.Errorf("show --json instructions = %+v", tr.Instructions)
	}
}

// foya exec's readable output names the instructions file
// of the run it starts.
func TestExecSaysWhichInstructions(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "CLAUDE.md"), "Claude rules.\n", 0o644)
	srv := pt.New(t, pt.Say("ok"))
	code, _, stderr := foya(t, nil, "exec", "--db", filepath.Join(t.TempDir(), "foya.db"), "--workdir", dir,
		"--base-url", srv.URL, "--model", "m", "hi")
	if code != 0 || !strings.Contains(stderr, "instructions: CLAUDE.md (14 bytes)") {
		t.Fatalf("exec: exit %d\n%s\nwant the instructions file named", code, stderr)
	}
	if _, sys := systemOf(t, srv.Requests()[0]); !strings.Contains(sys, "Claude rules.") {
		t.Fatalf("the system prompt lacks CLAUDE.md:\n%s", sys)
	}
}
