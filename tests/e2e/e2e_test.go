package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	pt "foya/backend/provider/providertest"
)

// Bounds on waiting, so that a broken build fails instead of hanging;
// nothing asserts on how long anything took.
const (
	buildTimeout  = 10 * time.Minute
	scriptTimeout = 3 * time.Minute
)

const chromium = "/usr/bin/chromium"

// TestBrowserEventSourceResumesAfterReload: the page opened at the token
// URL (the token kept for the tab, gone from the address, no cookie), a
// run started through POST /api/call/Run from the page with the bearer
// token, a fetch-read event stream in Chromium receiving the run's events
// in order, a reload in the middle of the run (the token still there), and
// the page's new stream resuming after the last seq it had: the events
// seen over both page loads are the stored ones, each once, in order.
//
// spec: L1
func TestBrowserEventSourceResumesAfterReload(t *testing.T) {
	requireE2E(t)
	bin := buildFoya(t)

	// The model: the first turn writes a file and holds after its first
	// line until the script says it reloaded; the second answers.
	hold := make(chan struct{})
	model := pt.New(t,
		pt.Turn{Calls: []pt.Call{{Name: "write", Arguments: `{"path":"hello.txt","content":"hello\n"}`}}, Hold: hold},
		pt.Say("Wrote hello.txt."),
	)
	var once sync.Once
	release := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		once.Do(func() { close(hold) })
	}))
	defer release.Close()

	srv := startServe(t, bin)
	srv.call(t, nil, "AddProvider", map[string]any{"name": "scripted", "baseUrl": model.URL, "model": "m"})
	project := t.TempDir()
	var sess struct{ ID string }
	srv.call(t, &sess, "CreateSession", map[string]any{"workdir": project, "approvalMode": "auto", "title": "e2e"})

	runScript(t, "sse-resume.mjs", map[string]string{
		"FOYA_URL":         srv.url,
		"FOYA_SESSION":     sess.ID,
		"FOYA_RELEASE_URL": release.URL,
	})
	if b, err := os.ReadFile(filepath.Join(project, "hello.txt")); err != nil || string(b) != "hello\n" {
		t.Fatalf("hello.txt = %q, %v; want the run's write", b, err)
	}
	srv.stop(t)
}

// TestBrowserSessionJourney drives the sessions sidebar in Chromium as a
// person does: open a session that has a stored run and see its history,
// create a session on a temp folder in Manual through the dialog (the path
// field, completed by the kernel), see it listed and open with its mode in
// the header, rename it in place, reload and find it, reach it by
// keyboard, switch to the dark theme, delete it after the confirmation.
// Each step is checked on screen and in the store; the screenshots go to
// tests/e2e/out/.
//
// spec: W3
func TestBrowserSessionJourney(t *testing.T) {
	requireE2E(t)
	bin := buildFoya(t)
	model := pt.New(t, pt.Say("Hello from the stored run."))
	srv := startServe(t, bin)
	srv.call(t, nil, "AddProvider", map[string]any{"name": "scripted", "baseUrl": model.URL, "model": "m"})

	// A session with history: one run, ended before the page opens.
	stored := t.TempDir()
	var seeded struct{ ID string }
	srv.call(t, &seeded, "CreateSession", map[string]any{"workdir": stored, "approvalMode": "auto", "title": "Stored history"})
	var runID string
	srv.call(t, &runID, "Run", seeded.ID, "Say hello from the store")
	waitRunEnd(t, srv, seeded.ID, runID)

	// A folder of its own under a parent that holds nothing else, so the
	// completion the script waits for is this one.
	project := filepath.Join(t.TempDir(), "journey-project")
	if err := os.Mkdir(project, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(project, "keep.txt"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	shots := filepath.Join(repoRoot(t), "tests", "e2e", "out")
	runScript(t, "sessions.mjs", map[string]string{
		"FOYA_URL":     srv.url,
		"FOYA_PROJECT": project,
		"FOYA_PROFILE": "scripted",
		"FOYA_STORED":  seeded.ID,
		"FOYA_SHOTS":   shots,
	})
	var left []struct{ ID string }
	srv.call(t, &left, "Sessions")
	if len(left) != 1 || left[0].ID != seeded.ID {
		t.Fatalf("Sessions after the delete = %+v; want only %s", left, seeded.ID)
	}
	// Deleting a session leaves the user's files alone.
	if b, err := os.ReadFile(filepath.Join(project, "keep.txt")); err != nil || string(b) != "mine\n" {
		t.Fatalf("keep.txt = %q, %v; want it untouched", b, err)
	}
	if n := len(model.Requests()); n != 1 {
		t.Errorf("the model was asked %d times; want once (the stored run), the journey sends no prompt", n)
	}
	srv.stop(t)
	t.Logf("screenshots: %s", shots)
}

// waitRunEnd waits until the session's run has ended.
func waitRunEnd(t *testing.T, srv *serve, sessionID, runID string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		var runs []struct{ ID, Status, Error string }
		srv.call(t, &runs, "Runs", sessionID)
		for _, r := range runs {
			if r.ID == runID && r.Status != "running" {
				if r.Status != "completed" {
					t.Fatalf("run %s ended %s; want completed: %s", runID, r.Status, r.Error)
				}
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("run %s did not end within a minute: %+v", runID, runs)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func requireE2E(t *testing.T) {
	t.Helper()
	if os.Getenv("FOYA_E2E") != "1" {
		t.Skip("browser end-to-end test: set FOYA_E2E=1 to run it (make test-e2e does)")
	}
	if _, err := os.Stat(chromium); err != nil {
		t.Fatalf("%s not found: install the system packages with make deps", chromium)
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatal("node not found: install Node.js")
	}
	if _, err := os.Stat(filepath.Join(repoRoot(t), "frontend", "node_modules", "playwright-core")); err != nil {
		t.Fatal("playwright-core is not installed: run make deps-npm")
	}
}

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// buildFoya builds the binary once for the package, with the built front
// end embedded.
func buildFoya(t *testing.T) string {
	t.Helper()
	root := repoRoot(t)
	if _, err := os.Stat(filepath.Join(root, "frontend", "dist", "index.html")); err != nil {
		t.Fatalf("the front end is not built (%v): run make frontend first", err)
	}
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "foya-e2e-bin-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "foya")
		ctx, cancel := context.WithTimeout(context.Background(), buildTimeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, "go", "build", "-o", binPath, ".")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %w\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

func repoRoot(t *testing.T) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("no caller")
	}
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// serve is a running foya serve.
type serve struct {
	cmd   *exec.Cmd
	url   string // with the token
	base  string
	token string
	data  string // its XDG_DATA_HOME: the home trash is data/Trash
	exit  chan error
}

func startServe(t *testing.T, bin string, env ...string) *serve {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command(bin, "serve", "--port", "0", "--db", filepath.Join(dir, "foya.db"))
	cmd.Env = append(os.Environ(), "XDG_DATA_HOME="+filepath.Join(dir, "data"), "HOME="+dir)
	cmd.Env = append(cmd.Env, env...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &serve{cmd: cmd, data: filepath.Join(dir, "data"), exit: make(chan error, 1)}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		cmd.Process.Kill()
		t.Fatalf("foya serve printed no URL: %v", err)
	}
	go func() { io.Copy(io.Discard, out); s.exit <- cmd.Wait() }()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			<-s.exit
		}
	})
	s.url = strings.TrimSpace(line)
	var ok bool
	s.base, s.token, ok = strings.Cut(s.url, "/#token=")
	if !ok || !strings.HasPrefix(s.base, "http://127.0.0.1:") {
		t.Fatalf("first line %q; want http://127.0.0.1:PORT/#token=TOKEN", line)
	}
	return s
}

// call calls an API method as a script does, with the bearer token.
func (s *serve) call(t *testing.T, out any, method string, args ...any) {
	t.Helper()
	b, _ := json.Marshal(args)
	req, _ := http.NewRequest("POST", s.base+"/api/call/"+method, bytes.NewReader(b))
	req.Header.Set("Authorization", "Bearer "+s.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("%s = %d %s", method, resp.StatusCode, body)
	}
	if out != nil {
		if err := json.Unmarshal(body, out); err != nil {
			t.Fatal(err)
		}
	}
}

func (s *serve) stop(t *testing.T) {
	t.Helper()
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-s.exit:
		if err != nil {
			t.Fatalf("foya serve after SIGTERM: %v; want exit 0", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("foya serve did not stop after SIGTERM")
	}
}

// runScript runs frontend/e2e/NAME with node and fails the test with its
// output when it exits non-zero.
func runScript(t *testing.T, name string, env map[string]string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), scriptTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", filepath.Join("e2e", name))
	cmd.Dir = filepath.Join(repoRoot(t), "frontend")
	cmd.Env = append(os.Environ(), "FOYA_CHROMIUM="+chromium)
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	out, err := cmd.CombinedOutput()
	t.Logf("%s:\n%s", name, out)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}
