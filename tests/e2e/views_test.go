package e2e

import (
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	pt "foya/backend/provider/providertest"
)

// TestBrowserEveryView opens every view of the app in Chromium, at 1280x800
// and 1920x1080, light and dark, and saves each as a screenshot in
// tests/e2e/out/views/ to be looked at: the first run with a found server,
// no session open, a conversation whose run read, wrote, edited and ran a
// command, the review panel with a diff, the background commands, the mode
// menu, a compaction of the context and the context meter's popover, an
// approval request waiting inline, the new session dialog, the
// keyboard map and each tab of Settings. The script checks each view was
// drawn, in the theme asked for, with nothing wider than the window.
// It runs with FOYA_VIEWS=1 (make shots), not in make test: it checks
// nothing the other browser tests do not, it makes pictures.
//
// spec: W3
func TestBrowserEveryView(t *testing.T) {
	requireE2E(t)
	if os.Getenv("FOYA_VIEWS") != "1" {
		t.Skip("screenshots of every view: set FOYA_VIEWS=1 to take them (make shots does)")
	}
	bin := buildFoya(t)

	model := pt.New(t)
	model.Route(pt.FirstUser("health check"),
		pt.Calls(pt.Call{Name: "read", Arguments: `{"path":"main.go"}`}, pt.Call{Name: "read", Arguments: `{"path":"go.mod"}`}),
		pt.Calls(pt.Call{Name: "write", Arguments: `{"path":"health.go","content":"package main\n\nimport \"net/http\"\n\n// health answers 200 while the server can serve.\nfunc health(w http.ResponseWriter, r *http.Request) {\n\tw.WriteHeader(http.StatusOK)\n\tw.Write([]byte(\"ok\\n\"))\n}\n"}`}),
		pt.Calls(pt.Call{Name: "edit", Arguments: `{"path":"main.go","old_string":"\thttp.HandleFunc(\"/\", index)\n","new_string":"\thttp.HandleFunc(\"/\", index)\n\thttp.HandleFunc(\"/healthz\", health)\n"}`}),
		pt.Calls(pt.Call{Name: "bash", Arguments: `{"command":"grep -n healthz main.go"}`},
			pt.Call{Name: "bash", Arguments: `{"command":"echo 'listening on :8080'; sleep 600","run_in_background":true}`}),
		pt.Say("The health check is in place: `GET /healthz` answers `200 ok`.\n\n```go\nhttp.HandleFunc(\"/healthz\", health)\n```\n\nRun `go test ./...` to check the rest still builds."),
	)
	model.Route(pt.FirstUser("Run the tests"),
		pt.Calls(pt.Call{Name: "bash", Arguments: `{"command":"go test ./... 2>&1 | tail -n 20"}`}),
		pt.Say("The tests ran."),
	)

	srv := startServe(t, bin)
	srv.call(t, nil, "AddProvider", map[string]any{"name": "scripted", "baseUrl": model.URL, "model": "scripted-coder"})
	project := t.TempDir()
	files := map[string]string{
		"go.mod":  "module example.com/shop\n\ngo 1.26\n",
		"main.go": "package main\n\nimport \"net/http\"\n\nfunc index(w http.ResponseWriter, r *http.Request) {\n\tw.Write([]byte(\"shop\\n\"))\n}\n\nfunc main() {\n\thttp.HandleFunc(\"/\", index)\n\thttp.ListenAndServe(\":8080\", nil)\n}\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(project, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var done, waiting struct{ ID string }
	srv.call(t, &done, "CreateSession", map[string]any{"workdir": project, "approvalMode": "auto", "title": "Add a health check"})
	var runID string
	srv.call(t, &runID, "Run", done.ID, "Add a health check endpoint to the server")
	waitRunEnd(t, srv, done.ID, runID)
	// A session whose run compacted its context: its row and the meter's popover.
	compactingSession(t, srv, model, t.TempDir(), "Read the shop's notes", "Read every note under notes/ and sum them up")
	srv.call(t, &waiting, "CreateSession", map[string]any{"workdir": project, "approvalMode": "manual", "title": "Waiting for approval"})
	srv.call(t, &runID, "Run", waiting.ID, "Run the tests")
	waitApproval(t, srv, waiting.ID)

	// The first run: no profile, the scripted server found on a probed port.
	first := pt.New(t)
	first.SetModels("scripted-coder", "scripted-small")
	u, err := url.Parse(first.URL)
	if err != nil {
		t.Fatal(err)
	}
	fresh := startServe(t, bin, noEnvModel...)
	fresh.call(t, nil, "SetSetting", "discover.ports", u.Port())

	runScript(t, "views.mjs", map[string]string{
		"FOYA_URL":       srv.url,
		"FOYA_FIRST_URL": fresh.url,
		"FOYA_SHOTS":     filepath.Join(repoRoot(t), "tests", "e2e", "out"),
	})
	fresh.stop(t)
	srv.stop(t)
}

// waitApproval waits until the session has an approval request waiting.
func waitApproval(t *testing.T, srv *serve, sessionID string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		var events []struct{ Type string }
		srv.call(t, &events, "Events", sessionID, 0)
		for _, ev := range events {
			if ev.Type == "approval.request" {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no approval request within a minute: %+v", events)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
