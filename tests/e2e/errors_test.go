package e2e

import (
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
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

// TestBrowserRunErrorTestConnection stops the scripted model server after
// a first answer: the next prompt fails with "could not reach", and the
// notice's Test connection (beside Retry) checks the session's profile and
// says in the notice that Foya cannot connect; once the server is started
// again at the same address, Test connection says Foya connects and the
// model answered.
//
// spec: W4
func TestBrowserRunErrorTestConnection(t *testing.T) {
	requireE2E(t)
	bin := buildFoya(t)
	// The first prompt's answer, then the check's one tiny request.
	model := pt.New(t, pt.Say("Hello while the server runs."), pt.Say("ok"))
	model.SetModels("m")
	g := startGate(t, model)

	srv := startServe(t, bin)
	srv.call(t, nil, "AddProvider", map[string]any{"name": "scripted", "baseUrl": "http://" + g.addr + "/v1", "model": "m"})
	var sess struct{ ID string }
	srv.call(t, &sess, "CreateSession", map[string]any{"workdir": t.TempDir(), "approvalMode": "auto", "title": "Test connection"})

	control := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var err error
		switch r.URL.Path {
		case "/stop":
			err = g.stop()
		case "/start":
			err = g.start()
		default:
			http.NotFound(w, r)
			return
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
		}
	}))
	defer control.Close()

	runScript(t, "testconn.mjs", map[string]string{
		"FOYA_URL":        srv.url,
		"FOYA_MODEL_HOST": g.addr,
		"FOYA_STOP_URL":   control.URL + "/stop",
		"FOYA_START_URL":  control.URL + "/start",
		"FOYA_SHOTS":      filepath.Join(repoRoot(t), "tests", "e2e", "out"),
	})
	if n := model.Pending(); n != 0 {
		t.Errorf("%d scripted answers left; want the prompt's and the check's both asked for", n)
	}
	srv.stop(t)
}

// gate serves a handler at one loopback address that can be stopped (the
// port refuses connections) and started again at the same address.
type gate struct {
	addr string
	h    http.Handler
	mu   sync.Mutex
	srv  *http.Server
}

func startGate(t *testing.T, h http.Handler) *gate {
	t.Helper()
	g := &gate{addr: "127.0.0.1:0", h: h}
	if err := g.start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.stop() })
	return g
}

func (g *gate) start() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.srv != nil {
		return nil
	}
	l, err := net.Listen("tcp", g.addr)
	if err != nil {
		return err
	}
	g.addr = l.Addr().String()
	g.srv = &http.Server{Handler: g.h}
	go g.srv.Serve(l)
	return nil
}

func (g *gate) stop() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.srv == nil {
		return nil
	}
	err := g.srv.Close()
	g.srv = nil
	return err
}
