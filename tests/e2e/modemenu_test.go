package e2e

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"

	pt "foya/backend/provider/providertest"
)

// TestBrowserHeaderModeMenuAndTitle sends a first prompt in a session made
// without a title and sees the header and the sidebar take the prompt's
// first line as the title, then the model's title live once the script
// lets the title request answer (issue 25, item 3), then switches the approval mode from the
// header's mode menu, controls found by role and name: Manual to Auto, then
// to Full Access through its confirmation, the kernel's mode checked
// through the API after each.
//
// spec: W4
func TestBrowserHeaderModeMenuAndTitle(t *testing.T) {
	requireE2E(t)
	bin := buildFoya(t)
	model := pt.New(t, pt.Say("Looked at it."))
	// The model's title is held until the page showed the prompt's.
	hold := make(chan struct{})
	model.Titles(pt.Turn{Text: "Slow nightly build", Hold: hold})
	var once sync.Once
	release := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		once.Do(func() { close(hold) })
	}))
	defer release.Close()
	srv := startServe(t, bin)
	srv.call(t, nil, "AddProvider", map[string]any{"name": "scripted", "baseUrl": model.URL, "model": "m"})
	var sess struct{ ID, Title string }
	srv.call(t, &sess, "CreateSession", map[string]any{"workdir": t.TempDir(), "approvalMode": "manual"})
	if sess.Title != "New session" {
		t.Fatalf("a session made without a title is called %q; want New session", sess.Title)
	}
	const title = "Slow nightly build"
	runScript(t, "modemenu.mjs", map[string]string{
		"FOYA_URL":         srv.url,
		"FOYA_SESSION":     sess.ID,
		"FOYA_PROMPT":      "  Find why the   nightly build is slow",
		"FOYA_TITLE":       "Find why the nightly build is slow",
		"FOYA_MODEL_TITLE": title,
		"FOYA_RELEASE":     release.URL,
		"FOYA_SHOTS":       filepath.Join(repoRoot(t), "tests", "e2e", "out"),
	})
	var after struct {
		Title        string
		TitleByUser  bool
		ApprovalMode string
	}
	srv.call(t, &after, "Session", sess.ID)
	if after.Title != title || after.TitleByUser || after.ApprovalMode != "full_access" {
		t.Errorf("the session after the journey = %+v; want title %q (not the user's) in full_access", after, title)
	}
	srv.stop(t)
}
