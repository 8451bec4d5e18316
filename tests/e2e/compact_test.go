package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"foya/backend/llm"
	pt "foya/backend/provider/providertest"
)

// compactWindow is the context window of the "small" profile a compacting
// session runs with: small enough that reading the notes passes
// context.compactAt of it.
const compactWindow = 16384

// compactNotes is how many note files the compacting session reads.
const compactNotes = 40

// compactingSession makes, on srv, a session titled title whose run writes
// a file, keeps a task list and reads notes until its requests pass
// context.compactAt of a 16,384-token window (the profile "small" on
// model, which the session runs with), so that the run compacts its
// context (issue 28). The run's answers go to model's main script (other
// runs on model must be routed), the summaries' to a route; it returns
// the session's ID once the run ended.
func compactingSession(t *testing.T, srv *serve, model *pt.Server, project, title, prompt string) string {
	t.Helper()
	srv.call(t, nil, "AddProvider", map[string]any{"name": "small", "baseUrl": model.URL, "model": "scripted-small", "contextWindow": compactWindow})
	turns := []pt.Turn{
		pt.Calls(pt.Call{Name: "write", Arguments: `{"path":"NOTES.md","content":"# Notes\n\nRead so far: all of them.\n"}`}),
		pt.Calls(pt.Call{Name: "todo_write", Arguments: `{"todos":[{"content":"Write NOTES.md","status":"completed"},{"content":"Read every note","status":"in_progress"},{"content":"Sum them up","status":"pending"}]}`}),
	}
	for n := 1; n <= compactNotes; n++ {
		name := fmt.Sprintf("notes/%02d.txt", n)
		var b strings.Builder
		for b.Len() < 1500 {
			fmt.Fprintf(&b, "Note %d: the shop's checkout keeps the cart in a cookie; line %d.\n", n, b.Len()/60+1)
		}
		if err := os.MkdirAll(filepath.Join(project, "notes"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(project, name), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		turns = append(turns, pt.Calls(pt.Call{Name: "read", Arguments: fmt.Sprintf(`{"path":%q}`, name)}))
	}
	answer := pt.Say("I read all 40 notes: the checkout keeps the cart in a cookie, and NOTES.md says so.")
	// What the context meter shows: the last request's prompt tokens.
	answer.Usage = &llm.Usage{PromptTokens: 11200, CompletionTokens: 40, TotalTokens: 11240}
	turns = append(turns, answer)
	var sums []pt.Turn
	for i := range 30 {
		sums = append(sums, pt.Say(fmt.Sprintf("## Goal\nRead the shop's notes and sum them up (summary %d).\n\n## Decisions\n- Keep the summary in NOTES.md.\n\n"+
			"## Files\n- NOTES.md: written, one line of findings.\n\n## Open tasks\n- Read the remaining notes.\n- Sum them up.\n\n## User constraints\n- Do not change the code.", i+1)))
	}
	// The run's answers are model's main script: once compacted, its
	// requests start with the note, not the prompt. The summary
	// requests are routed; the other tests' runs must be too.
	model.Route(pt.IsCompact, sums...)
	model.Append(turns...)
	var sess struct{ ID string }
	srv.call(t, &sess, "CreateSession", map[string]any{"workdir": project, "approvalMode": "auto", "title": title, "provider": "small", "model": "scripted-small"})
	var runID string
	srv.call(t, &runID, "Run", sess.ID, prompt)
	waitRunEnd(t, srv, sess.ID, runID)
	var events []struct {
		Type string
		Data json.RawMessage
	}
	srv.call(t, &events, "Events", sess.ID, 0)
	for _, ev := range events {
		if ev.Type == "context.compacted" {
			return sess.ID
		}
	}
	t.Fatalf("the run did not compact its context: %d events", len(events))
	return ""
}

// TestBrowserCompaction runs a session past the compaction threshold of a
// 16,384-token window and checks, in Chromium, what the conversation shows
// of it (issue 28 item 2): the compaction's row where it happened, what it
// kept (the messages summarised, the file and the tasks kept exactly), its
// summary on demand, and Undo, which the store records; then the context
// meter's popover: the window and where it comes from, the tokens the
// last request held, and Compact now, whose compaction gets a row of its
// own with Undo. The popover closes with Escape, focus back on the meter.
//
// spec: O5, W3
func TestBrowserCompaction(t *testing.T) {
	requireE2E(t)
	bin := buildFoya(t)
	model := pt.New(t)
	srv := startServe(t, bin)
	const title = "Read the shop's notes"
	id := compactingSession(t, srv, model, t.TempDir(), title, "Read every note under notes/ and sum them up")
	runScript(t, "compact.mjs", map[string]string{
		"FOYA_URL":     srv.url,
		"FOYA_SESSION": id,
		"FOYA_TITLE":   title,
		"FOYA_SHOTS":   filepath.Join(repoRoot(t), "tests", "e2e", "out"),
	})
	var events []struct{ Type string }
	srv.call(t, &events, "Events", id, 0)
	var made, undone int
	for _, ev := range events {
		switch ev.Type {
		case "context.compacted":
			made++
		case "context.uncompacted":
			undone++
		}
	}
	if undone != 1 || made < 2 {
		t.Errorf("after the journey the session has %d compactions and %d undone; want the run's, the person's, and one undone", made, undone)
	}
	srv.stop(t)
}
