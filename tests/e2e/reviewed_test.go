package e2e

import (
	"os"
	"path/filepath"
	"testing"

	pt "foya/backend/provider/providertest"
)

// TestBrowserReviewScopes reviews a session of two turns in Chromium,
// controls found by role and name: the first turn wrote a.txt and b.txt,
// the second c.txt. It marks b.txt as reviewed, switches between "This
// turn", "Session" and "To review", checks what each lists and the counts
// (the panel, the Review toggle, the session list), reloads the page and
// sees the same, then marks all shown as reviewed; the kernel then counts
// nothing to review.
//
// spec: W4, F2
func TestBrowserReviewScopes(t *testing.T) {
	requireE2E(t)
	bin := buildFoya(t)
	model := pt.New(t,
		pt.Calls(pt.Call{Name: "write", Arguments: `{"path":"a.txt","content":"a\n"}`},
			pt.Call{Name: "write", Arguments: `{"path":"b.txt","content":"b\n"}`}),
		pt.Say("Wrote a and b."),
		pt.Calls(pt.Call{Name: "write", Arguments: `{"path":"c.txt","content":"c\n"}`}),
		pt.Say("Wrote c."),
	)
	srv := startServe(t, bin)
	srv.call(t, nil, "AddProvider", map[string]any{"name": "scripted", "baseUrl": model.URL, "model": "m"})
	project := t.TempDir()
	var sess struct{ ID string }
	srv.call(t, &sess, "CreateSession", map[string]any{"workdir": project, "approvalMode": "auto", "title": "Review scopes"})
	for _, prompt := range []string{"Write a and b", "Write c"} {
		var runID string
		srv.call(t, &runID, "Run", sess.ID, prompt)
		waitRunEnd(t, srv, sess.ID, runID)
	}
	for _, name := range []string{"a.txt", "b.txt", "c.txt"} {
		if _, err := os.Stat(filepath.Join(project, name)); err != nil {
			t.Fatalf("after the runs: %v", err)
		}
	}

	runScript(t, "reviewed.mjs", map[string]string{
		"FOYA_URL":   srv.url,
		"FOYA_SHOTS": filepath.Join(repoRoot(t), "tests", "e2e", "out"),
	})

	var list []struct {
		ID       string
		ToReview int
	}
	srv.call(t, &list, "Sessions")
	if len(list) != 1 || list[0].ToReview != 0 {
		t.Fatalf("Sessions after the review = %+v; want the session with nothing to review", list)
	}
	var changes []struct {
		Path     string
		Reviewed bool
	}
	srv.call(t, &changes, "Changes", sess.ID)
	for _, c := range changes {
		if !c.Reviewed {
			t.Errorf("%s is not reviewed after Mark all shown as reviewed", c.Path)
		}
	}
	srv.stop(t)
}
