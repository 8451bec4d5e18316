package e2e

import (
	"path/filepath"
	"testing"

	pt "foya/backend/provider/providertest"
)

// TestBrowserForkFromSecondPrompt forks a session of two prompts from its
// second, in Chromium (issue 29 item 2): "Fork from here" on the second
// prompt opens the fork, titled for its parent, with the first turn in
// its conversation and the second prompt in its message box; the header
// says it shares the folder; the sidebar shows it as a branch under its
// parent, forked at prompt 2; sent (changed), the prompt runs in the
// fork. The API then shows the fork's parent and its runs, and the parent
// as it was.
//
// spec: W4
func TestBrowserForkFromSecondPrompt(t *testing.T) {
	requireE2E(t)
	bin := buildFoya(t)
	model := pt.New(t,
		pt.Calls(pt.Call{Name: "write", Arguments: `{"path":"parser.txt","content":"parse\n"}`}),
		pt.Say("Wrote the parser."),
		pt.Say("Wrote the tests."),
		pt.Say("Wrote table tests in the fork."),
	)
	srv := startServe(t, bin)
	srv.call(t, nil, "AddProvider", map[string]any{"name": "scripted", "baseUrl": model.URL, "model": "m"})
	var sess struct{ ID string }
	srv.call(t, &sess, "CreateSession", map[string]any{"workdir": t.TempDir(), "approvalMode": "auto", "title": "Parser"})
	for _, p := range []string{"Write the parser", "Write the tests"} {
		var runID string
		srv.call(t, &runID, "Run", sess.ID, p)
		waitRunEnd(t, srv, sess.ID, runID)
	}
	runScript(t, "fork.mjs", map[string]string{
		"FOYA_URL":    srv.url,
		"FOYA_PARENT": sess.ID,
		"FOYA_SHOTS":  filepath.Join(repoRoot(t), "tests", "e2e", "out"),
	})
	var list []struct {
		ID, Title, ForkedFrom string
		ForkedAt, ToReview    int
	}
	srv.call(t, &list, "Sessions")
	var fork string
	for _, s := range list {
		if s.ForkedFrom == sess.ID {
			if s.ForkedAt != 2 || s.Title != "Parser (fork)" || fork != "" {
				t.Errorf("fork = %+v; want one fork of %s at prompt 2, titled Parser (fork)", s, sess.ID)
			}
			fork = s.ID
			if s.ToReview != 1 {
				t.Errorf("the fork has %d changes to review; want the parent's one", s.ToReview)
			}
		}
	}
	if fork == "" {
		t.Fatalf("no fork of %s in %+v", sess.ID, list)
	}
	var runs []struct{ Prompt, Status string }
	srv.call(t, &runs, "Runs", fork)
	if len(runs) != 2 || runs[0].Prompt != "Write the parser" || runs[1].Prompt != "Write the tests with tables" {
		t.Errorf("the fork's runs = %+v; want the parent's first prompt, then the one sent in the fork", runs)
	}
	srv.call(t, &runs, "Runs", sess.ID)
	if len(runs) != 2 || runs[1].Prompt != "Write the tests" {
		t.Errorf("the parent's runs = %+v; want its two prompts, untouched", runs)
	}
	srv.stop(t)
}
