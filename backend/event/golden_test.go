package event_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"foya/backend/event"
)

var update = flag.Bool("update", false, "rewrite testdata/golden/events.jsonl")

// goldenEvents is at least one event of each type, with every field set that
// can be set, and the variants of the types that have them (tool.update,
// step.end), with text that JSON escapes (<, >, &, quotes, non-ASCII).
func goldenEvents() []event.Event {
	done, total := 2.0, 3.0
	at := time.Date(2026, 11, 29, 21, 0, 0, 123456789, time.UTC)
	ms, zero := int64(42), 0
	three, one := 3, 1
	fc := event.FileChange{
		ID: "chg_1", SessionID: "ses_1", RunID: "run_1", CallID: "call_1", Tool: "write", Path: "/w/a <b>.go",
		Op: event.OpWrite, ExistedBefore: true, ExistsAfter: true, ModeBefore: 0o644, ModeAfter: 0o755,
		SHABefore: "aa", SHAAfter: "bb", Diff: "--- a\n+++ b\n@@ -1 +1 @@\n-x\n+y & z\n", Added: 1, Removed: 1,
		CreatedAt: at,
	}
	grant := event.Grant{Kind: event.KindShell, Prefix: []string{"go", "test"}}
	evs := []event.Event{
		event.RunStart(event.RunStartData{Prompt: "fix <the> \"bug\" & go", Workdir: "/w", Model: "m", Provider: "local",
			ApprovalMode: event.ModeAuto, Instructions: event.Instructions{Status: event.InstructionsUsed, File: "AGENTS.md",
				Size: 40000, Bytes: 32768, Truncated: true, InvalidUTF8: true}}),
		event.StepStart(event.StepStartData{Step: 1, Tools: []string{"bash", "read"}}),
		event.StepStart(event.StepStartData{Step: 2}),
		event.TextDelta(event.TextDeltaData{Step: 1, Text: "héllo <world>\n"}),
		event.ReasoningDelta(event.ReasoningDeltaData{Step: 1, Text: "think & plan"}),
		event.ToolBegin(event.ToolBeginData{Step: 1, Index: 2, ID: "call_1", Name: "bash"}),
		event.ToolUpdate(event.ToolUpdateData{Step: 1, ID: "call_1", ArgsBytes: 17, ArgsDelta: `{"command":"ls >`}),
		event.ToolUpdate(event.ToolUpdateData{Step: 1, ID: "call_1", ArgsBytes: 5 << 20}),
		event.ToolUpdate(event.ToolUpdateData{Step: 1, ID: "call_1", Status: event.CallRunning}),
		event.ToolUpdate(event.ToolUpdateData{Step: 1, ID: "call_1", Progress: &event.Progress{Tail: "line 1\nline <2>\n"}}),
		event.ToolEnd(event.ToolEndData{Step: 1, Index: 2, ID: "call_1", Name: "write", Status: event.CallDone, Text: "wrote a.go",
			Artifacts: []string{"art_1"}, FileChanges: []event.FileChange{fc}, DisplayDiff: "-x\n+y", DurationMs: &ms}),
		event.ToolEnd(event.ToolEndData{Step: 1, Index: 0, ID: "call_2", Name: "nope", Status: event.CallError, IsError: true,
			Text: "unknown tool"}),
		// A shell command that exited by itself, and one started in the background.
		event.ToolEnd(event.ToolEndData{Step: 1, Index: 3, ID: "call_6", Name: "bash", Status: event.CallDone,
			Text: "one\ntwo\n\nExit code 3 after 5ms.", DurationMs: &ms, ExitCode: &three}),
		event.ToolEnd(event.ToolEndData{Step: 1, Index: 4, ID: "call_7", Name: "bash", Status: event.CallDone,
			Text: "Started in the background with id bg1 (PID 42).", DurationMs: &ms, Background: "bg1"}),
		// A shell command the sandbox refused things, said in words.
		event.ToolEnd(event.ToolEndData{Step: 1, Index: 5, ID: "call_8", Name: "bash", Status: event.CallDone,
			Text:       "npm ERR! EROFS\n\nExit code 1 after 5ms. Sandbox: landlock+netns.\nThe sandbox refused: write to ~/.npm/_cacache refused: outside the workspace.",
			DurationMs: &ms, ExitCode: &one, Denials: []event.Denial{
				{Kind: event.DenialWrite, Path: "/home/u/.npm/_cacache", Text: "write to ~/.npm/_cacache refused: outside the workspace",
					Allow: event.DenialWrite, Folder: "/home/u/.npm"},
				{Kind: event.DenialNetwork, Host: "registry.example:443", Text: "connection to registry.example:443 refused: the network is off for commands",
					Allow: event.DenialNetwork},
				{Kind: event.DenialHidden, Path: "/home/u/.ssh/id_ed25519", Text: "read of ~/.ssh/id_ed25519 refused: the sandbox hides it"},
			}}),
		event.ToolsActivated(event.ToolsActivatedData{Names: []string{"web_fetch"}}),
		event.StepEnd(event.StepEndData{Step: 1, FinishReason: "tool_calls", ToolCalls: &three,
			Usage: event.Usage{PromptTokens: 10, CompletionTokens: 5, TotalTokens: 15}}),
		event.StepEnd(event.StepEndData{Step: 2, FinishReason: "stop", ToolCalls: &zero}),
		event.StepEnd(event.StepEndData{Step: 3, Error: "the model's stream ended before it was complete"}),
		event.ApprovalRequest(event.ApprovalRequestData{ID: "apr_1", SessionID: "ses_1", RunID: "run_1",
			Request: event.Ask{CallID: "call_1", Action: event.Action{Kind: event.KindShell, Tool: "bash",
				Paths: []string{"/w"}, Command: "go test ./... && rm -rf x", Host: "example.com", ReadOnly: true},
				Why: "runs go test", Preview: "$ go test ./..."},
			Reason: "Manual asks before a command", Scopes: []event.Grant{grant, {Kind: event.KindShell, Tool: "bash"}}, AskedAt: at}),
		event.ApprovalAnswer(event.ApprovalAnswerData{ID: "apr_1", CallID: "call_1", State: event.ApprovalAllowed,
			Answer: event.Answer{Choice: event.ChoiceAllowSession, Scope: &grant}}),
		event.ApprovalAnswer(event.ApprovalAnswerData{ID: "apr_2", CallID: "call_2", State: event.ApprovalDenied,
			Answer: event.Answer{Choice: event.ChoiceDeny, Message: "not now"}}),
		event.SessionMode(event.SessionModeData{From: event.ModeManual, To: event.ModeFullAccess}),
		event.SessionModel(event.SessionModelData{FromProvider: "local", FromModel: "m", Provider: "work", Model: "big <model>"}),
		event.SessionTitle(event.SessionTitleData{From: "fix <the> \"bug\" & go", Title: "Fix the “bug” <fast>"}),
		event.RunSteer(event.RunSteerData{ID: "stg_1", Step: 2, Text: "use <tabs> & not spaces"}),
		// The task list.
		event.TodoUpdated(event.TodoUpdatedData{Todos: []event.Todo{{Content: "read <main.go>", Status: event.TodoCompleted},
			{Content: "fix the bug & test", Status: event.TodoInProgress}, {Content: "write docs", Status: event.TodoPending}}}),
		event.FileReverted(event.FileRevertedData{ChangeID: "chg_2", RevertOf: "chg_1", Path: "/w/a.go", Op: event.OpRevert}),
		// A background command's changes, found when it ended.
		event.FileCaptured(event.FileCapturedData{CallID: "call_4", FileChanges: []event.FileChange{
			{ID: "chg_3", SessionID: "ses_1", RunID: "run_1", CallID: "call_4", Tool: "bash", Path: "/w/b.go", Op: event.OpRename,
				ExistsAfter: true, ModeAfter: 0o100644, SHAAfter: "cc", RenamedFrom: "/w/a.go", CreatedAt: at},
			{ID: "chg_4", SessionID: "ses_1", RunID: "run_1", CallID: "call_4", Tool: "bash", Path: "/w/big.bin", Op: event.OpWrite,
				ExistedBefore: true, ExistsAfter: true, ModeBefore: 0o100644, ModeAfter: 0o100644, SHAAfter: "dd",
				NotRestorable: "it is larger (9.0 MiB) than the index keeps (workspace.maxFileBytes)", CreatedAt: at}}}),
		event.FileChangedOutside(event.FileChangedOutsideData{Path: "/w/a.go", Exists: false}),
		event.FileWatchDegraded(event.FileWatchDegradedData{Reason: "too many folders: polling the session's files"}),
		// A person marked two changes as reviewed.
		event.ChangeReviewed(event.ChangeReviewedData{ChangeIDs: []string{"chg_3", "chg_4"}, Reviewed: true, ToReview: 1}),
		event.RunInterrupted(event.RunInterruptedData{Calls: 2}),
		event.RunEnd(event.RunEndData{Status: event.RunStatusCompleted, Steps: 3,
			Usage: event.Usage{PromptTokens: 10, CompletionTokens: 5, TotalTokens: 15}}),
		event.RunEnd(event.RunEndData{Status: event.RunStatusFailed, Error: "model: 401 <unauthorized>", Steps: 1}),
		// An MCP server's notifications/progress.
		event.ToolUpdate(event.ToolUpdateData{Step: 1, ID: "call_3", Progress: &event.Progress{Done: &done, Total: &total, Message: "indexing <2/3>"}}),
		// A prompt with MCP resources attached.
		event.RunStart(event.RunStartData{Prompt: "what do my notes say?", Workdir: "/w", Model: "m", Provider: "local",
			ApprovalMode: event.ModeAuto, Instructions: event.Instructions{Status: event.InstructionsNone},
			Resources: []event.ResourceRef{{Server: "notes", URI: "notes://all"}}}),
		// An MCP call's approval names the server and its tool.
		event.ApprovalRequest(event.ApprovalRequestData{ID: "apr_3", SessionID: "ses_1", RunID: "run_1",
			Request: event.Ask{CallID: "call_4", Action: event.Action{Kind: event.KindMCP, Tool: "mcp__github__create_issue",
				MCPServer: "github", MCPTool: "create_issue"},
				Why: `call the tool "create_issue" of the MCP server github (npx -y @modelcontextprotocol/server-github)`, Preview: `{"title":"x"}`},
			Reason: "Auto asks before an MCP tool that is not read-only", Scopes: []event.Grant{{Kind: event.KindMCP, Tool: "mcp__github__create_issue"}}, AskedAt: at}),
		// Hooks: one denied a call, one added a note, one failed, a
		// project's file was skipped.
		event.HookRun(event.HookRunData{Hook: "guard <rm>", Event: "before_tool", Source: "project", File: "/w/.foya/hooks.json",
			CallID: "call_1", Tool: "bash", Status: event.HookOK, Decision: "deny", Reason: "no \"rm -rf\" & co", ExitCode: &zero,
			DurationMs: 42, Output: "checked <1> call\n", Sandbox: "landlock+netns"}),
		event.HookRun(event.HookRunData{Hook: "after_tool#2", Event: "after_tool", Source: "user", File: "/d/hooks.json",
			CallID: "call_1", Tool: "bash", Status: event.HookOK, Note: "tests: 3 passed", ExitCode: &zero, DurationMs: 7, Sandbox: "none"}),
		event.HookRun(event.HookRunData{Hook: "notify", Event: "approval", Source: "user", File: "/d/hooks.json", CallID: "call_1", Tool: "bash", Status: event.HookFailed, Error: "it exited with status 3", ExitCode: &three,
			DurationMs: 5, Output: "no display\n", Sandbox: "none"}),
		event.HookRun(event.HookRunData{Source: "project", File: "/w/.foya/hooks.json", Status: event.HookSkipped,
			Error: "not approved: its hooks do not run until you approve this exact content (foya hooks allow)"}),
		// The context compiler compacted the oldest messages, a person
		// undid it, and a compaction that failed.
		event.ContextCompacted(event.ContextCompactedData{ID: "cmp_1", By: event.CompactAuto, Upto: 40, Turns: 2,
			Summary: "## Goal\nfix <the> \"bug\" & go", Note: "[Earlier conversation compacted]\n## Goal\nfix <the> \"bug\" & go",
			Files: 1, Tasks: 3, TokensBefore: 26000, TokensAfter: 9000, Window: 32768}),
		event.ContextUncompacted(event.ContextUncompactedData{ID: "cmp_1"}),
		event.ContextCompactFailed(event.ContextCompactFailedData{By: event.CompactAuto, Error: "the model's summary was empty", Stopped: true}),
		// An isolated session's setup command, its apply and its discard
		// (issue 29).
		event.IsolationSetup(event.IsolationSetupData{Command: "npm ci && echo <done>", State: event.SetupRunning}),
		event.IsolationSetup(event.IsolationSetupData{Command: "npm ci && echo <done>", State: event.SetupOutput, Output: "added 12 packages\n"}),
		event.IsolationSetup(event.IsolationSetupData{Command: "npm ci && echo <done>", State: event.SetupFailed, ExitCode: &one,
			Error: "it exited with status 1", Output: "npm ERR! <missing>", DurationMs: 1500, Sandbox: "bubblewrap"}),
		event.IsolationApplied(event.IsolationAppliedData{Folder: "/w", Applied: []string{"a.go"}, Conflicts: []string{"b & c.go"}}),
		event.IsolationDiscarded(event.IsolationDiscardedData{Kind: "worktree", Dir: "/data-sessions/ses_1", Branch: "foya/ses_1"}),
	}
	// A sub-agent's run under task call call_4: its events name the call
	// on the envelope.
	sub := []event.Event{
		event.RunStart(event.RunStartData{Prompt: "count the <go> files", Description: "count go files & report", ParentRunID: "run_1", Workdir: "/w",
			Model: "m", Provider: "local", ApprovalMode: event.ModeManual, Instructions: event.Instructions{Status: event.InstructionsNone}}),
		event.ApprovalRequest(event.ApprovalRequestData{ID: "apr_4", SessionID: "ses_1", RunID: "run_2",
			Request: event.Ask{CallID: "call_5", Action: event.Action{Kind: event.KindWrite, Tool: "write", Paths: []string{"/w/n.txt"}}},
			Reason:  "Manual asks before a write", AskedAt: at, SubAgent: "count go files & report"}),
	}
	evs = append(evs, sub...)
	for i := range evs {
		evs[i].SessionID, evs[i].RunID, evs[i].Seq, evs[i].Time = "ses_1", "run_1", int64(i+1), at
		if evs[i].Type == event.TypeFileChangedOutside {
			evs[i].RunID = "" // file.changed_outside belongs to no run
		}
	}
	for i := len(evs) - len(sub); i < len(evs); i++ {
		evs[i].RunID, evs[i].ParentCallID = "run_2", "call_4"
	}
	// Notices: never stored, so no seq and no run; an MCP server's belongs
	// to no session.
	notices := []event.Event{
		event.BackgroundChanged(event.BackgroundChangedData{Change: event.BackgroundEnded, ID: "bg1", SessionID: "ses_1",
			Command: "go test ./... > <out> && echo \"done\"", PID: 4242, StartedAt: at, ExitCode: -1, Signal: "SIGTERM",
			Killed: true, DurationNs: 1500000000, Sandbox: "bwrap", OutputBytes: 12345}),
		event.MCPChanged(event.MCPChangedData{Change: event.MCPState, Server: "github", Workdir: "/w", State: "failed",
			Error: "the server stopped: exit status 1 <no token>"}),
		event.MCPElicitation(event.MCPElicitationData{ID: "eli_1", SessionID: "ses_1", RunID: "run_1", CallID: "call_1", Server: "github",
			Mode: event.ElicitForm, Message: "Which <branch> & why?", State: event.ElicitPending, AskedAt: at,
			Fields: []event.ElicitField{
				{Name: "branch", Title: "Branch", Description: "where to push", Type: event.FieldString, Required: true, Format: "email",
					MinLength: &three, MaxLength: &three, Default: "main"},
				{Name: "size", Type: event.FieldNumber, Minimum: &done, Maximum: &total, Default: 2.5},
				{Name: "color", Type: event.FieldString, Options: []event.ElicitOption{{Value: "r", Title: "Red"}, {Value: "g"}}, Default: "r"},
				{Name: "force", Type: event.FieldBoolean, Default: false},
			}, URL: "https://example.com/auth?a=1&b=<2>", Note: "declined: the form is not flat"}),
	}
	notices[0].SessionID, notices[0].Time = "ses_1", at
	notices[1].Time = at
	notices[2].SessionID, notices[2].Time = "ses_1", at
	return append(evs, notices...)
}

// TestGoldenEvents pins the JSON of one event of each type, byte for byte,
// as `foya exec --json` prints it (a json.Encoder that does not escape
// HTML, over the stored payload bytes, which json.Marshal escaped). The
// golden file was written from the map payloads the engine and the kernel
// built before this package, so typed payloads must not change a byte
// that clients and stored sessions read.
// spec: I2, L1, L4
func TestGoldenEvents(t *testing.T) {
	evs := goldenEvents()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for _, ev := range evs {
		if err := enc.Encode(ev); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join("testdata", "golden", "events.jsonl")
	if *update {
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Split(buf.String(), "\n")
	for i, w := range strings.Split(string(want), "\n") {
		if i >= len(got) || got[i] != w {
			g := "(none)"
			if i < len(got) {
				g = got[i]
			}
			t.Errorf("line %d:\n got %s\nwant %s", i+1, g, w)
		}
	}
	if len(got) != len(strings.Split(string(want), "\n")) {
		t.Errorf("%d lines, want %d (go test ./backend/event -update rewrites the golden file)", len(got), len(strings.Split(string(want), "\n")))
	}
	var seen []string
	for _, ev := range evs {
		if !slices.Contains(seen, ev.Type) {
			seen = append(seen, ev.Type)
		}
	}
	if want := slices.Concat(event.Types, event.Notices); !slices.Equal(seen, want) {
		t.Errorf("the golden events' types are\n%v\nwant one of each, in the order of event.Types then event.Notices:\n%v", seen, want)
	}
	for _, ev := range evs {
		if event.IsNotice(ev.Type) != (ev.Seq == 0) {
			t.Errorf("%s has seq %d: a notice has none, a stored event one", ev.Type, ev.Seq)
		}
	}
}

// TestPayloadRoundTrip checks that each golden event's payload decodes into
// its Payload with no unknown field and marshals back to the same bytes.
func TestPayloadRoundTrip(t *testing.T) {
	for _, ev := range goldenEvents() {
		p := event.Payload(ev.Type)
		if p == nil {
			t.Fatalf("Payload(%q) = nil", ev.Type)
		}
		dec := json.NewDecoder(bytes.NewReader(ev.Data))
		dec.DisallowUnknownFields()
		if err := dec.Decode(p); err != nil {
			t.Fatalf("%s: %v", ev.Type, err)
		}
		if again := event.Data(p); !bytes.Equal(again, ev.Data) {
			t.Errorf("%s: %s; want %s", ev.Type, again, ev.Data)
		}
	}
	if p := event.Payload("no.such"); p != nil {
		t.Errorf("Payload(no.such) = %T; want nil", p)
	}
}
