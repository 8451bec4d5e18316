package e2e

import (
	"net"
	"path/filepath"
	"testing"

	pt "foya/backend/provider/providertest"
)

// TestBrowserRunErrorInWordsAndRetry sends a prompt in Chromium while the
// session's provider points at a closed port: the conversation says in
// words that Foya could not reach the model server at that address, with
// Retry and the technical text under Details. The script then points the
// profile at a scripted model server (as fixing it in Settings does) and
// presses Retry, which sends the prompt again and shows the answer. Last,
// the Settings dialog, opened from the sidebar's button and closed with
// Escape, gives focus back to that button.
//
// spec: W4
func TestBrowserRunErrorInWordsAndRetry(t *testing.T) {
	requireE2E(t)
	bin := buildFoya(t)
	model := pt.New(t, pt.Say("Hello after the retry."))

	// A port nothing listens on: taken, then given back.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := l.Addr().String()
	l.Close()

	srv := startServe(t, bin)
	srv.call(t, nil, "AddProvider", map[string]any{"name": "scripted", "baseUrl": "http://" + down + "/v1", "model": "m"})
	var sess struct{ ID string }
	srv.call(t, &sess, "CreateSession", map[string]any{"workdir": t.TempDir(), "approvalMode": "auto", "title": "Errors and retry"})

	runScript(t, "errors.mjs", map[string]string{
		"FOYA_URL":       srv.url,
		"FOYA_SESSION":   sess.ID,
		"FOYA_DOWN_HOST": down,
		"FOYA_MODEL_URL": model.URL,
		"FOYA_SHOTS":     filepath.Join(repoRoot(t), "tests", "e2e", "out"),
	})
	if n := len(model.Requests()); n != 1 {
		t.Errorf("the scripted model was asked %d times; want once (the retry)", n)
	}
	var runs []struct{ Status string }
	srv.call(t, &runs, "Runs", sess.ID)
	if len(runs) != 2 || runs[0].Status != "failed" || runs[1].Status != "completed" {
		t.Errorf("runs = %+v; want the failed run, then the retry completed", runs)
	}
	srv.stop(t)
}
