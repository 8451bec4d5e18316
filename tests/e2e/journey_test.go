package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	pt "foya/backend/provider/providertest"
)

// The journey's file: twenty lines, so that an edit of the second and the
// nineteenth makes two hunks (three lines of context each side).
func journeyLines() []string {
	lines := make([]string, 20)
	for i := range lines {
		lines[i] = fmt.Sprintf("row %d", i+1)
	}
	return lines
}

func joinLines(lines []string) string { return strings.Join(lines, "\n") + "\n" }

// TestBrowserConversationJourney is a person's whole conversation,
// driven in Chromium against foya serve and the scripted model, each step
// checked on screen (controls found by role and name) and on disk: create
// a session on a temp folder in Manual; send a prompt from the composer;
// approve a write after seeing its diff in its request, inline at the
// call; see the file-change
// card; approve an edit; deny a bash with a message and check that the
// model's next request carries it; switch to Auto in settings and see
// session.mode in the conversation; run a command with a live tail; reload
// the page in the middle of a long one and find the same state; cancel it;
// tail a background command in its panel and stop it there;
// revert one hunk, then the whole turn, checking the bytes on disk; undo
// the revert; edit the file outside Foya and meet the conflict step;
// delete a file and find it in the trash folder. Screenshots of each view
// go to tests/e2e/out/.
//
// spec: W3, W4, D5
func TestBrowserConversationJourney(t *testing.T) {
	requireE2E(t)
	bin := buildFoya(t)

	lines := journeyLines()
	created := joinLines(lines)
	edited := append([]string(nil), lines...)
	edited[1] = "ROW 2"
	edited[18] = "ROW 19"
	denial := "Not now: the tests run in CI, do not start them here."

	editArgs, _ := json.Marshal(map[string]any{
		"path": "notes.txt",
		"edits": []map[string]string{
			{"old_string": "row 2\n", "new_string": "ROW 2\n"},
			{"old_string": "row 19\n", "new_string": "ROW 19\n"},
		},
	})
	writeArgs, _ := json.Marshal(map[string]string{"path": "notes.txt", "content": created})
	model := pt.New(t,
		// Run 1, in Manual: a write, an edit, a bash the person denies, an answer.
		pt.Turn{Text: "I will write the notes first.", Calls: []pt.Call{{Name: "write", Arguments: string(writeArgs)}}},
		pt.Calls(pt.Call{Name: "edit", Arguments: string(editArgs)}),
		pt.Calls(pt.Call{Name: "bash", Arguments: `{"command":"go test ./...","reason":"run the tests"}`}),
		pt.Say("Understood: I did not run the tests."),
		// Run 2, in Auto: a command whose output the page tails until the
		// script lets it end, a background one, then a long one the person
		// stops.
		pt.Calls(pt.Call{Name: "bash", Arguments: `{"command":"echo tick-one; while [ ! -e release.flag ]; do sleep 0.05; done; echo tick-two"}`}),
		// A background command, whose tail the background panel shows.
		pt.Calls(pt.Call{Name: "bash", Arguments: `{"command":"echo bg-one; while [ ! -e bg.flag ]; do sleep 0.05; done; echo bg-two; sleep 600","run_in_background":true}`}),
		pt.Calls(pt.Call{Name: "bash", Arguments: `{"command":"echo long-start; sleep 600; echo long-end"}`}),
		// Run 3, in Auto: read and delete a file of the person's.
		pt.Calls(pt.Call{Name: "read", Arguments: `{"path":"old.log"}`}, pt.Call{Name: "delete", Arguments: `{"path":"old.log"}`}),
		pt.Say("Deleted old.log."),
	)
	// What the model was sent, for the script's check that a denial's
	// message reached it.
	requests := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		type msg struct{ Role, Content, ToolCallID string }
		var out [][]msg
		for _, req := range model.Requests() {
			var ms []msg
			for _, m := range req.Messages {
				ms = append(ms, msg{m.Role, m.Content, m.ToolCallID})
			}
			out = append(out, ms)
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(out)
	}))
	defer requests.Close()

	srv := startServe(t, bin)
	srv.call(t, nil, "AddProvider", map[string]any{"name": "scripted", "baseUrl": model.URL, "model": "m"})

	project := filepath.Join(t.TempDir(), "journey-convo")
	if err := os.Mkdir(project, 0o755); err != nil {
		t.Fatal(err)
	}
	oldLog := "build 41: ok\nbuild 42: ok\n"
	if err := os.WriteFile(filepath.Join(project, "old.log"), []byte(oldLog), 0o644); err != nil {
		t.Fatal(err)
	}

	shots := filepath.Join(repoRoot(t), "tests", "e2e", "out")
	runScript(t, "journey.mjs", map[string]string{
		"FOYA_URL":      srv.url,
		"FOYA_PROJECT":  project,
		"FOYA_PROFILE":  "scripted",
		"FOYA_SHOTS":    shots,
		"FOYA_REQUESTS": requests.URL,
		"FOYA_TRASH":    filepath.Join(srv.data, "Trash"),
		"FOYA_CREATED":  created,
		"FOYA_EDITED":   joinLines(edited),
		"FOYA_DENIAL":   denial,
		"FOYA_OLD_LOG":  oldLog,
	})

	// On disk after the journey: old.log is in the home trash with its
	// bytes and its .trashinfo, not in the project.
	if _, err := os.Stat(filepath.Join(project, "old.log")); !os.IsNotExist(err) {
		t.Errorf("old.log is still in the project (%v); want it moved to the trash", err)
	}
	trashed, err := os.ReadFile(filepath.Join(srv.data, "Trash", "files", "old.log"))
	if err != nil || string(trashed) != oldLog {
		t.Errorf("Trash/files/old.log = %q, %v; want %q", trashed, err, oldLog)
	}
	info, err := os.ReadFile(filepath.Join(srv.data, "Trash", "info", "old.log.trashinfo"))
	if err != nil || !strings.Contains(string(info), "Path="+filepath.Join(project, "old.log")) {
		t.Errorf("Trash/info/old.log.trashinfo = %q, %v; want its Path= the project's old.log", info, err)
	}
	// The denial's message reached the model as the bash call's result.
	reqs := model.Requests()
	if len(reqs) < 4 {
		t.Fatalf("the model was asked %d times; want at least 4", len(reqs))
	}
	var tool string
	for _, m := range reqs[3].Messages {
		if m.Role == "tool" {
			tool = m.Content
		}
	}
	if !strings.Contains(tool, denial) {
		t.Errorf("the tool message after the denied bash = %q; want it to hold %q", tool, denial)
	}
	srv.stop(t)
	t.Logf("screenshots: %s", shots)
}
