package e2e

import (
	"net"
	"net/url"
	"path/filepath"
	"strconv"
	"testing"

	pt "foya/backend/provider/providertest"
)

// noEnvModel is the environment of a machine with no model configured: no
// OPENAI_API_KEY, no OPENAI_BASE_URL (an empty variable counts as unset).
var noEnvModel = []string{"OPENAI_API_KEY=", "OPENAI_BASE_URL="}

// TestBrowserFirstRunFindsAServer opens Foya with no provider profile and
// no session, and a scripted OpenAI-compatible server on a loopback port
// the probe is told about (the setting discover.ports, with a closed port
// beside it): the window opens on the setup, the server is found with the
// models it lists, saved as a named profile with the model chosen, and a
// session is created on a folder through the new-session dialog with that
// profile. Screenshots in tests/e2e/out/.
//
// spec: W4
func TestBrowserFirstRunFindsAServer(t *testing.T) {
	requireE2E(t)
	bin := buildFoya(t)
	model := pt.New(t)
	model.SetModels("scripted-coder", "scripted-small")
	u, err := url.Parse(model.URL)
	if err != nil {
		t.Fatal(err)
	}
	srv := startServe(t, bin, noEnvModel...)
	srv.call(t, nil, "SetSetting", "discover.ports", u.Port()+","+closedPort(t))
	project := t.TempDir()
	runScript(t, "firstrun.mjs", map[string]string{
		"FOYA_URL":     srv.url,
		"FOYA_CASE":    "found",
		"FOYA_PORT":    u.Port(),
		"FOYA_MODEL":   "scripted-coder",
		"FOYA_PROJECT": project,
		"FOYA_SHOTS":   filepath.Join(repoRoot(t), "tests", "e2e", "out"),
	})
	var sessions []struct{ Workdir, Provider, Model string }
	srv.call(t, &sessions, "Sessions")
	if len(sessions) != 1 || sessions[0].Workdir != project || sessions[0].Provider != "scripted" || sessions[0].Model != "scripted-coder" {
		t.Fatalf("Sessions = %+v; want one on %s with profile scripted, model scripted-coder", sessions, project)
	}
	if n := len(model.Requests()); n != 0 {
		t.Errorf("the model was sent %d chat requests; the first run only lists its models", n)
	}
	srv.stop(t)
}

// TestBrowserFirstRunFindsNothing opens Foya with no profile, no session,
// no key in the environment and nothing on the probed port: the setup says
// no server was found and how to add one later, and still lets the user
// continue (and come back from the sidebar).
//
// spec: W4
func TestBrowserFirstRunFindsNothing(t *testing.T) {
	requireE2E(t)
	bin := buildFoya(t)
	srv := startServe(t, bin, noEnvModel...)
	srv.call(t, nil, "SetSetting", "discover.ports", closedPort(t))
	runScript(t, "firstrun.mjs", map[string]string{
		"FOYA_URL":   srv.url,
		"FOYA_CASE":  "none",
		"FOYA_SHOTS": filepath.Join(repoRoot(t), "tests", "e2e", "out"),
	})
	srv.stop(t)
}

// TestBrowserFirstRunTypedInServer opens Foya with nothing found on the
// machine: the person picks "Other (OpenAI-compatible)", types a dead
// address (said at the base URL), then a scripted server's without its key
// (said at the key) and with it; the test lists the server's models, the
// model is found by searching and picked, saving opens the new-session
// dialog on the new profile, and a prompt sent in the new session gets the
// scripted answer, with the key the person typed.
//
// spec: W4
func TestBrowserFirstRunTypedInServer(t *testing.T) {
	requireE2E(t)
	bin := buildFoya(t)
	const key = "sk-typed-in-e2e-4711"
	const answer = "Hello from the server you typed in."
	model := pt.New(t, pt.Say(answer))
	model.RequireKey(key)
	model.SetModels("typed-chat", "typed-coder")
	srv := startServe(t, bin, noEnvModel...)
	srv.call(t, nil, "SetSetting", "discover.ports", closedPort(t))
	project := t.TempDir()
	runScript(t, "firstrun.mjs", map[string]string{
		"FOYA_URL":     srv.url,
		"FOYA_CASE":    "other",
		"FOYA_BASE":    model.URL,
		"FOYA_KEY":     key,
		"FOYA_DEAD":    "http://127.0.0.1:" + closedPort(t) + "/v1",
		"FOYA_MODEL":   "typed-coder",
		"FOYA_ANSWER":  answer,
		"FOYA_PROJECT": project,
		"FOYA_SHOTS":   filepath.Join(repoRoot(t), "tests", "e2e", "out"),
	})
	var sessions []struct{ Workdir, Provider, Model string }
	srv.call(t, &sessions, "Sessions")
	if len(sessions) != 1 || sessions[0].Workdir != project || sessions[0].Provider != "typed-in" || sessions[0].Model != "typed-coder" {
		t.Fatalf("Sessions = %+v; want one on %s with profile typed-in, model typed-coder", sessions, project)
	}
	reqs := model.Requests()
	if len(reqs) != 1 {
		t.Fatalf("the model was sent %d chat requests; want the one prompt", len(reqs))
	}
	if got := reqs[0].Header.Get("Authorization"); got != "Bearer "+key {
		t.Errorf("the prompt went with Authorization %q; want the typed key", got)
	}
	srv.stop(t)
}

// closedPort is a loopback port nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	l.Close()
	return p
}
