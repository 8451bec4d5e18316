package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	pt "foya/backend/provider/providertest"
)

// TestBrowserHunkReview reviews a two-hunk edit in Chromium, controls
// found by role and name, the disk checked after each step: revert hunk
// 1 (the change reads "partly reverted (1 of 2 hunks)" and still offers
// "Revert hunk 2"), then hunk 2 (reverted), undo the last step (hunk 2
// back), a reload that shows the same state (it comes from the kernel),
// the keyboard (N to hunk 2, R reverts it, U undoes it), then "Revert"
// (what is left). Each of these acts at once, without a dialog.
//
// spec: W4, F2
func TestBrowserHunkReview(t *testing.T) {
	requireE2E(t)
	bin := buildFoya(t)

	lines := journeyLines()
	before := joinLines(lines)
	edited := append([]string(nil), lines...)
	edited[1] = "ROW 2"
	edited[18] = "ROW 19"
	onlyTwo := append([]string(nil), lines...) // hunk 1 reverted
	onlyTwo[18] = "ROW 19"

	editArgs, _ := json.Marshal(map[string]any{
		"path": "notes.txt",
		"edits": []map[string]string{
			{"old_string": "row 2\n", "new_string": "ROW 2\n"},
			{"old_string": "row 19\n", "new_string": "ROW 19\n"},
		},
	})
	model := pt.New(t,
		pt.Calls(pt.Call{Name: "read", Arguments: `{"path":"notes.txt"}`}),
		pt.Calls(pt.Call{Name: "edit", Arguments: string(editArgs)}),
		pt.Say("Edited rows 2 and 19."),
	)
	srv := startServe(t, bin)
	srv.call(t, nil, "AddProvider", map[string]any{"name": "scripted", "baseUrl": model.URL, "model": "m"})
	project := t.TempDir()
	notes := filepath.Join(project, "notes.txt")
	if err := os.WriteFile(notes, []byte(before), 0o644); err != nil {
		t.Fatal(err)
	}
	var sess struct{ ID string }
	srv.call(t, &sess, "CreateSession", map[string]any{"workdir": project, "approvalMode": "auto", "title": "Hunk review"})
	var runID string
	srv.call(t, &runID, "Run", sess.ID, "Make rows 2 and 19 upper case")
	waitRunEnd(t, srv, sess.ID, runID)
	if b, _ := os.ReadFile(notes); string(b) != joinLines(edited) {
		t.Fatalf("notes.txt after the run = %q; want both hunks applied", b)
	}

	shots := filepath.Join(repoRoot(t), "tests", "e2e", "out")
	runScript(t, "hunks.mjs", map[string]string{
		"FOYA_URL":      srv.url,
		"FOYA_NOTES":    notes,
		"FOYA_BEFORE":   before,
		"FOYA_EDITED":   joinLines(edited),
		"FOYA_ONLY_TWO": joinLines(onlyTwo),
		"FOYA_SHOTS":    shots,
	})
	if b, _ := os.ReadFile(notes); string(b) != before {
		t.Fatalf("notes.txt after the review = %q; want the content before the edit", b)
	}
	srv.stop(t)
}
