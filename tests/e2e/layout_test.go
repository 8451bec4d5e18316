package e2e

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	pt "foya/backend/provider/providertest"
)

// TestBrowserTaskListAndLayout opens a session whose run wrote a task list
// (todo_write) and a file, in Chromium against foya serve: the Background
// panel's Tasks section lists each task with its status in words and the
// current one marked; and the layout holds at 1024x640 and on a 4K screen
// (3840x2160 at device scale 1 and 2) with the review and the background
// panel open: nothing outside the window, the main regions side by side
// and of a usable size, text of a readable size, the side panel as high as
// the body; a long session title ends in an ellipsis before its row's
// buttons and is whole in its tooltip and name; and an approval request
// with a long preview, inline at its call, fits the window's width at both
// sizes, has nothing that scrolls inside it (the transcript is the one
// scroller), takes focus, and one Tab brings its Allow once into view.
// Screenshots go to tests/e2e/out/.
//
// spec: W3, W4
func TestBrowserTaskListAndLayout(t *testing.T) {
	requireE2E(t)
	bin := buildFoya(t)
	todos, _ := json.Marshal(map[string]any{"todos": []map[string]string{
		{"content": "Read the notes", "status": "completed"},
		{"content": "Write the summary", "status": "in_progress"},
		{"content": "Check the links", "status": "pending"},
	}})
	model := pt.New(t,
		pt.Turn{Calls: []pt.Call{
			{Name: "todo_write", Arguments: string(todos)},
			{Name: "write", Arguments: `{"path":"summary.md","content":"# Summary\n\nThe notes, in short.\n"}`},
		}},
		pt.Say("Planned and wrote it."),
		// The second session's run: a write that waits for the person.
		pt.Turn{Calls: []pt.Call{{Name: "write", Arguments: `{"path":"plan.md","content":"` + strings.Repeat(`a line of the plan\n`, 40) + `"}`}}},
	)
	srv := startServe(t, bin)
	srv.call(t, nil, "AddProvider", map[string]any{"name": "scripted", "baseUrl": model.URL, "model": "m"})
	var sess struct{ ID string }
	srv.call(t, &sess, "CreateSession", map[string]any{"workdir": t.TempDir(), "approvalMode": "auto", "title": "Layout and tasks"})
	var runID string
	srv.call(t, &runID, "Run", sess.ID, "Plan the summary, then write it.")
	waitRunEnd(t, srv, sess.ID, runID)

	// A session in Manual whose run waits for an approval.
	var waiting struct{ ID string }
	srv.call(t, &waiting, "CreateSession", map[string]any{"workdir": t.TempDir(), "approvalMode": "manual", "title": "Waiting for approval"})
	srv.call(t, &runID, "Run", waiting.ID, "Write the plan.")
	// A session whose title is longer than the sidebar is wide.
	const long = "Make the importer accept every CSV dialect the old tool took, odd ones included"
	srv.call(t, nil, "CreateSession", map[string]any{"workdir": t.TempDir(), "approvalMode": "manual", "title": long})

	shots := filepath.Join(repoRoot(t), "tests", "e2e", "out")
	runScript(t, "layout.mjs", map[string]string{
		"FOYA_URL":     srv.url,
		"FOYA_TITLE":   "Layout and tasks",
		"FOYA_WAITING": "Waiting for approval",
		"FOYA_LONG":    long,
		"FOYA_SHOTS":   shots,
	})
	srv.stop(t)
	t.Logf("screenshots: %s", shots)
}
