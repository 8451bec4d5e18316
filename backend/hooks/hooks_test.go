package hooks_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"foya/backend/hooks"
	"foya/backend/sandbox"
	"foya/backend/sandbox/sandboxtest"
	"foya/backend/testwait"
)

func runner() *hooks.Runner {
	return &hooks.Runner{
		Confine: func(workdir string) (sandbox.Policy, func() []string) {
			return sandbox.Policy{Restricted: true, Writable: []string{workdir}}, nil
		},
		Environ: func() []string { return []string{"PATH=" + os.Getenv("PATH")} },
	}
}

func hook(ev hooks.Event, command string) hooks.Hook {
	return hooks.Hook{Name: "h", Event: ev, Command: command, Timeout: hooks.DefaultTimeout, Source: hooks.User}
}

func input(ev hooks.Event) hooks.Input {
	return hooks.Input{Event: ev, SessionID: "ses_1", RunID: "run_1", Workdir: "/w",
		Tool: &hooks.ToolInput{Name: "bash", CallID: "call_1", Arguments: json.RawMessage(`{"command":"rm -rf 'x'"}`)}}
}

// A hook reads the event on its standard input and answers on the last
// line of its output; what it printed before is its log.
func TestHookAnswers(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	for _, c := range []struct {
		name, command string
		ev            hooks.Event
		want          hooks.Decision
		reason, note  string
	}{
		{"allow", `echo '{"decision":"allow"}'`, hooks.BeforeTool, hooks.Allow, "", ""},
		{"deny reads its input", `grep -q "rm -rf 'x'" && echo checking && echo '{"decision":"deny","reason":"no rm"}'`, hooks.BeforeTool, hooks.Deny, "no rm", ""},
		{"ask", `cat >/dev/null; echo '{"decision":"ask","reason":"look first"}'`, hooks.BeforeTool, hooks.Ask, "look first", ""},
		{"no answer", `true`, hooks.BeforeTool, "", "", ""},
		{"note", `echo '{"note":"tests pass"}'`, hooks.AfterTool, "", "", "tests pass"},
		{"a log only, after a call", `echo formatted`, hooks.AfterTool, "", "", ""},
		{"deny an approval", `echo '{"decision":"deny","reason":"not on fridays"}'`, hooks.Approval, hooks.Deny, "not on fridays", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := runner().Run(ctx, hook(c.ev, c.command), dir, input(c.ev))
			if out.Failed != "" {
				t.Fatalf("failed: %s (output %q)", out.Failed, out.Output)
			}
			if out.Decision != c.want || out.Reason != c.reason || out.Note != c.note || out.ExitCode != 0 {
				t.Fatalf("outcome %+v; want %q %q %q", out, c.want, c.reason, c.note)
			}
		})
	}
}

// A hook that fails is reported with why, bounded in time and output:
// it hangs, prints a gigabyte, exits non-zero, answers what is no answer
// (issue 29's bad input).
func TestHookFailures(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	short := func(h hooks.Hook) hooks.Hook { h.Timeout = time.Second; return h }
	for _, c := range []struct {
		name string
		h    hooks.Hook
		ev   hooks.Event
		want string
	}{
		{"hangs", short(hook(hooks.BeforeTool, `sleep 600`)), hooks.BeforeTool, "did not end within 1s"},
		{"hangs with children holding the output", short(hook(hooks.BeforeTool, `(sleep 600 &) ; sleep 600`)), hooks.BeforeTool, "did not end within 1s"},
		{"prints a gigabyte", hook(hooks.BeforeTool, `head -c 1073741824 /dev/zero | tr '\0' 'x'`), hooks.BeforeTool, "printed more than 64 KiB"},
		{"exits non-zero", hook(hooks.BeforeTool, `echo broken >&2; exit 3`), hooks.BeforeTool, "exited with status 3"},
		{"bad JSON", hook(hooks.BeforeTool, `echo '{"decision": "allow"'`), hooks.BeforeTool, "its answer is not valid"},
		{"not JSON", hook(hooks.BeforeTool, `echo yes`), hooks.BeforeTool, "its last line is not a JSON object"},
		{"unknown field", hook(hooks.BeforeTool, `echo '{"decision":"allow","allow":true}'`), hooks.BeforeTool, "unknown field"},
		{"unknown decision", hook(hooks.BeforeTool, `echo '{"decision":"maybe"}'`), hooks.BeforeTool, `"maybe" is none of allow, deny, ask`},
		{"a decision after a call", hook(hooks.AfterTool, `echo '{"decision":"deny"}'`), hooks.AfterTool, "decides nothing"},
		{"a project hook allows an approval", func() hooks.Hook {
			h := hook(hooks.Approval, `echo '{"decision":"allow"}'`)
			h.Source, h.Sandbox = hooks.Project, true
			return h
		}(), hooks.Approval, "cannot allow"},
		{"a syntax error", hook(hooks.BeforeTool, `if then`), hooks.BeforeTool, "exited with status 2"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := runner().Run(ctx, c.h, dir, input(c.ev))
			if !strings.Contains(out.Failed, c.want) {
				t.Fatalf("Failed = %q; want it to say %q (outcome %+v)", out.Failed, c.want, out)
			}
			if out.Decision != "" || out.Note != "" {
				t.Fatalf("a failed hook answered %+v", out)
			}
			if len(out.Output) > hooks.ShownOutput {
				t.Fatalf("kept %d bytes of output; at most %d", len(out.Output), hooks.ShownOutput)
			}
		})
	}
}

// A failing hook's output is kept to show the person why.
func TestHookFailureKeepsOutput(t *testing.T) {
	out := runner().Run(context.Background(), hook(hooks.BeforeTool, `echo "cannot find config" >&2; exit 1`), t.TempDir(), input(hooks.BeforeTool))
	if !strings.Contains(out.Output, "cannot find config") || out.ExitCode != 1 {
		t.Fatalf("outcome %+v", out)
	}
}

// Cancelling the run ends a hook's whole tree at once.
func TestHookCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	dir := t.TempDir()
	started := filepath.Join(dir, "started")
	h := hook(hooks.BeforeTool, `touch `+started+`; sleep 600`)
	done := make(chan hooks.Outcome)
	go func() { done <- runner().Run(ctx, h, dir, input(hooks.BeforeTool)) }()
	testwait.Until(t, "the hook to start", func() bool {
		_, err := os.Stat(started)
		return err == nil
	})
	cancel()
	if out := testwait.Receive(t, done, "the cancelled hook's outcome"); !strings.Contains(out.Failed, "cancelled") {
		t.Fatalf("outcome %+v", out)
	}
}

// A sandboxed hook (every project hook) writes the workspace and nothing
// outside it.
func TestSandboxedHook(t *testing.T) {
	if sandbox.Probe().Mechanism == "" {
		t.Skip("no sandbox here")
	}
	ws, outside := sandboxtest.Dir(t), sandboxtest.Dir(t)
	tmp := sandboxtest.Dir(t)
	h := hook(hooks.AfterTool, `touch inside && touch "$TMPDIR/scratch" && touch `+filepath.Join(outside, "escaped")+`; echo '{"note":"ran"}'`)
	h.Sandbox, h.Source = true, hooks.Project
	r := runner()
	r.TempDir = func(string) (string, error) { return tmp, nil }
	out := r.Run(context.Background(), h, ws, input(hooks.AfterTool))
	if out.Sandbox == "none" || out.Sandbox == "" {
		t.Fatalf("ran unconfined: %+v", out)
	}
	if _, err := os.Stat(filepath.Join(ws, "inside")); err != nil {
		t.Fatalf("the hook could not write its workspace: %v (%+v)", err, out)
	}
	if _, err := os.Stat(filepath.Join(tmp, "scratch")); err != nil {
		t.Fatalf("the hook could not write its TMPDIR: %v (%+v)", err, out)
	}
	if _, err := os.Stat(filepath.Join(outside, "escaped")); err == nil {
		t.Fatal("a sandboxed hook wrote outside its workspace")
	}
}

// A hooks file is checked field by field, with errors that name the hook
// and the field.
func TestParse(t *testing.T) {
	good := `{"hooks": [
	  {"name": "guard", "event": "before_tool", "match": "bash", "command": "./guard.sh", "timeoutSeconds": 5},
	  {"event": "after_tool", "match": "mcp__*", "command": "echo"},
	  {"event": "turn_end", "command": "notify-send done"},
	  {"event": "approval", "command": "true", "sandbox": true}
	]}`
	hs, err := hooks.Parse([]byte(good), hooks.Project, "hooks.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(hs) != 4 || hs[0].Timeout != 5*time.Second || hs[1].Name != "after_tool#2" || hs[2].Timeout != hooks.DefaultTimeout || !hs[1].Sandbox {
		t.Fatalf("parsed %+v", hs)
	}
	if !hs[0].Matches(hooks.BeforeTool, "bash") || hs[0].Matches(hooks.BeforeTool, "read") || hs[0].Matches(hooks.AfterTool, "bash") ||
		!hs[1].Matches(hooks.AfterTool, "mcp__github__x") || !hs[2].Matches(hooks.TurnEnd, "") {
		t.Fatal("Matches")
	}
	if u, err := hooks.Parse([]byte(`{"hooks":[{"event":"turn_end","command":"x"}]}`), hooks.User, "u"); err != nil || u[0].Sandbox {
		t.Fatalf("a user's hook runs outside the sandbox unless it asks: %+v %v", u, err)
	}
	for _, c := range []struct{ content, want string }{
		{``, "empty"},
		{`{"hooks": [}`, "line 1"},
		{`{"hook": []}`, `unknown field "hook"`},
		{`{}`, `no "hooks" list`},
		{`{"hooks":[]} {}`, "more than one JSON value"},
		{`{"hooks":[{"command":"x"}]}`, `hook 1: no "event"`},
		{`{"hooks":[{"event":"before","command":"x"}]}`, `unknown event "before"`},
		{`{"hooks":[{"event":"turn_end"}]}`, `no "command"`},
		{`{"hooks":[{"event":"turn_end","command":"x","match":"bash"}]}`, `turn_end hook has no "match"`},
		{`{"hooks":[{"event":"before_tool","command":"x","match":"[a"}]}`, `not a valid glob`},
		{`{"hooks":[{"event":"before_tool","command":"x","timeoutSeconds":0}]}`, `"timeoutSeconds" 0`},
		{`{"hooks":[{"event":"before_tool","command":"x","timeoutSeconds":100000}]}`, `want 1 to 600`},
		{`{"hooks":[{"event":"before_tool","command":"x","sandbox":false}]}`, `always run in the sandbox`},
		{`{"hooks":[{"name":"a","event":"before_tool","command":"x"},{"name":"a","event":"after_tool","command":"y"}]}`, `used twice`},
		{`{"hooks":[{"event":"before_tool","command":5}]}`, `line 1`},
		{strings.Repeat(" ", hooks.MaxFileBytes+1), "at most"},
	} {
		_, err := hooks.Parse([]byte(c.content), hooks.Project, "hooks.json")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%.60q) = %v; want an error saying %q", c.content, err, c.want)
		}
	}
}

// Read tells a missing file from an unusable one, and keeps the exact
// bytes an approval covers.
func TestRead(t *testing.T) {
	dir := t.TempDir()
	if f := hooks.ReadProject(dir); f.Exists || f.Err != nil {
		t.Fatalf("no file: %+v", f)
	}
	p := filepath.Join(dir, filepath.FromSlash(hooks.ProjectFile))
	os.MkdirAll(filepath.Dir(p), 0o755)
	content := []byte(`{"hooks":[{"event":"turn_end","command":"true"}]}`)
	os.WriteFile(p, content, 0o644)
	if f := hooks.ReadProject(dir); !f.Exists || f.Err != nil || string(f.Content) != string(content) || len(f.Hooks) != 1 {
		t.Fatalf("file: %+v", f)
	}
	os.Remove(p)
	os.Mkdir(p, 0o755)
	if f := hooks.ReadProject(dir); !f.Exists || f.Err == nil {
		t.Fatalf("a folder: %+v", f)
	}
}
