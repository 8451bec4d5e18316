package tests

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"foya/backend/kernel"
	"foya/backend/llm"
	"foya/backend/profiles"
	pt "foya/backend/provider/providertest"
	"foya/backend/testwait"
)

// served is a running foya serve process.
type served struct {
	t     *testing.T
	cmd   *exec.Cmd
	base  string
	token string
	exit  chan error
}

// startServe starts the real binary's foya serve on a free port and reads
// the URL from its first line of output.
func startServe(t *testing.T, db string) *served {
	t.Helper()
	cmd := exec.Command(foyaBinary(t), "serve", "--port", "0", "--db", db)
	cmd.Env = append(os.Environ(), "XDG_DATA_HOME="+t.TempDir())
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &served{t: t, cmd: cmd, exit: make(chan error, 1)}
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
	url := strings.TrimSpace(line)
	base, token, ok := strings.Cut(url, "/#token=")
	if !ok || !strings.HasPrefix(base, "http://127.0.0.1:") || len(token) < 32 {
		t.Fatalf("first line %q; want http://127.0.0.1:PORT/#token=TOKEN", line)
	}
	s.base, s.token = base, token
	return s
}

func (s *served) post(method string, args ...any) (int, []byte) {
	s.t.Helper()
	b, _ := json.Marshal(args)
	req, _ := http.NewRequest("POST", s.base+"/api/call/"+method, strings.NewReader(string(b)))
	req.Header.Set("Authorization", "Bearer "+s.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, body
}

func (s *served) call(out any, method string, args ...any) {
	s.t.Helper()
	status, body := s.post(method, args...)
	if status != 200 {
		s.t.Fatalf("%s = %d %s", method, status, body)
	}
	if out != nil {
		if err := json.Unmarshal(body, out); err != nil {
			s.t.Fatal(err)
		}
	}
}

// events reads a session's SSE stream from after until an event of type
// until.
func (s *served) events(sessionID string, after int64, until string) []llm.Event {
	s.t.Helper()
	req, _ := http.NewRequest("GET", s.base+"/api/sessions/"+sessionID+"/events", nil)
	req.Header.Set("Authorization", "Bearer "+s.token)
	if after > 0 {
		req.Header.Set("Last-Event-ID", strconv.FormatInt(after, 10))
	}
	// The client's timeout bounds the stream: a stream whose event never
	// comes fails the test instead of hanging (a hang guard).
	resp, err := (&http.Client{Timeout: testwait.Limit}).Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	r := bufio.NewReader(resp.Body)
	var out []llm.Event
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			s.t.Fatalf("stream ended before %s: %v", until, err)
		}
		if data, ok := strings.CutPrefix(strings.TrimSpace(line), "data: "); ok {
			var ev llm.Event
			if err := json.Unmarshal([]byte(data), &ev); err != nil {
				s.t.Fatal(err)
			}
			out = append(out, ev)
			if ev.Type == until {
				return out
			}
		}
	}
}

// TestServeProvidersDownOr401: foya serve, started as a user does, with
// one provider that is down and one that answers 401: the check says which
// is which, a run with the refusing one fails with a clear message on its
// event stream, a run with a working one completes, and SIGTERM stops the
// server cleanly.
func TestServeProvidersDownOr401(t *testing.T) {
	locked := pt.New(t, pt.Turn{Status: 401, ErrorMessage: "Incorrect API key provided"})
	locked.RequireKey("the-right-key")
	good := pt.New(t, pt.Say("Hello over HTTP."))
	dir := t.TempDir()
	s := startServe(t, filepath.Join(t.TempDir(), "foya.db"))

	s.call(nil, "AddProvider", map[string]any{"name": "good", "baseUrl": good.URL, "model": "m"})
	s.call(nil, "AddProvider", map[string]any{"name": "down", "baseUrl": "http://127.0.0.1:1/v1", "model": "m"})
	s.call(nil, "AddProvider", map[string]any{"name": "locked", "baseUrl": locked.URL, "model": "m"})
	var check profiles.ProviderCheck
	s.call(&check, "TestProvider", "down")
	if check.Models.Status != profiles.CheckDown || check.Models.Message == "" {
		t.Errorf("check of a provider that is down = %+v; want models %q with a message", check.Models, profiles.CheckDown)
	}
	s.call(&check, "TestProvider", "locked")
	if check.Models.Status != profiles.CheckUnauthorized || check.Models.HTTPStatus != 401 {
		t.Errorf("check of a provider that answers 401 = %+v; want %q", check.Models, profiles.CheckUnauthorized)
	}

	var sess kernel.Session
	s.call(&sess, "CreateSession", map[string]any{"workdir": dir, "provider": "locked", "model": "m"})
	var runID string
	s.call(&runID, "Run", sess.ID, "hello")
	evs := s.events(sess.ID, 0, "run.end")
	end := evs[len(evs)-1]
	if end.RunID != runID || !strings.Contains(string(end.Data), `"failed"`) || !strings.Contains(string(end.Data), "401") {
		t.Fatalf("run.end with a provider that answers 401 = %s; want failed, saying 401", end.Data)
	}

	s.call(nil, "UpdateSession", sess.ID, map[string]any{"provider": "good"})
	s.call(&runID, "Run", sess.ID, "hello again")
	more := s.events(sess.ID, end.Seq, "run.end")
	if more[0].Seq != end.Seq+1 || !strings.Contains(string(more[len(more)-1].Data), `"completed"`) {
		t.Fatalf("second run: first seq %d after %d, end %s", more[0].Seq, end.Seq, more[len(more)-1].Data)
	}

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

// TestServeUsage: foya serve's flags are checked before anything starts,
// and a port that is taken is a clear failure.
func TestServeUsage(t *testing.T) {
	bin := foyaBinary(t)
	db := filepath.Join(t.TempDir(), "foya.db")
	for _, args := range [][]string{{"--port", "-1"}, {"--port", "70000"}, {"--port", "x"}, {"extra"}} {
		res := runFoya(t, bin, nil, append([]string{"serve", "--db", db}, args...)...)
		if res.code != 2 || res.stdout != "" || res.stderr == "" {
			t.Errorf("foya serve %v = exit %d, stdout %q, stderr %q; want 2 with a message and no URL", args, res.code, res.stdout, res.stderr)
		}
	}
	s := startServe(t, db)
	port := strings.TrimPrefix(s.base, "http://127.0.0.1:")
	res := runFoya(t, bin, nil, "serve", "--port", port, "--db", filepath.Join(t.TempDir(), "other.db"))
	if res.code != 1 || res.stdout != "" || !strings.Contains(res.stderr, "127.0.0.1") {
		t.Errorf("foya serve on a taken port = exit %d, stdout %q, stderr %q; want 1 saying so", res.code, res.stdout, res.stderr)
	}
}

// TestServeOpen: --open hands the opener ($BROWSER here, played by a
// script that records its arguments) the path of a page that only this
// user can read (0600 in a 0700 directory) and that redirects to the
// printed URL; the token is on no command line, where every user could
// read it (/proc/PID/cmdline). The page is removed when foya serve stops.
func TestServeOpen(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the fake opener is a shell script")
	}
	bin := foyaBinary(t)
	dir := t.TempDir()
	got := filepath.Join(dir, "opened")
	script := "#!/bin/sh\nprintf '%s\\n' \"$#\" \"$@\" > " + got + ".tmp && mv " + got + ".tmp " + got + "\n"
	opener := filepath.Join(dir, "fake-browser")
	if err := os.WriteFile(opener, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	runtimeDir := filepath.Join(dir, "run")
	if err := os.Mkdir(runtimeDir, 0o700); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "serve", "--open", "--db", filepath.Join(dir, "foya.db"))
	cmd.Env = append(os.Environ(), "BROWSER="+opener, "XDG_DATA_HOME="+dir, "XDG_RUNTIME_DIR="+runtimeDir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	defer func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			<-exited
		}
	}()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	go func() { io.Copy(io.Discard, out); exited <- cmd.Wait() }()
	url := strings.TrimSpace(line)
	_, token, ok := strings.Cut(url, "#token=")
	if !ok || len(token) < 32 {
		t.Fatalf("first line %q; want the URL with #token=TOKEN", line)
	}

	var args []string
	testwait.Until(t, "the opener to run", func() bool {
		b, err := os.ReadFile(got)
		if err != nil {
			return false
		}
		args = strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
		return true
	})
	if len(args) != 2 || args[0] != "1" {
		t.Fatalf("the opener got %q; want one argument, a path", args)
	}
	page := args[1]
	if strings.Contains(page, token) || !filepath.IsAbs(page) || !strings.HasPrefix(page, runtimeDir+string(filepath.Separator)) {
		t.Fatalf("the opener got %q; want the path of a file under $XDG_RUNTIME_DIR, without the token", page)
	}
	for path, want := range map[string]os.FileMode{page: 0o600, filepath.Dir(page): 0o700 | os.ModeDir} {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode() != want {
			t.Errorf("%s has mode %v; want %v: only this user may read the token", path, fi.Mode(), want)
		}
	}
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`content="1;url=` + url + `"`, `window.location.replace("` + url + `")`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the page %s holds\n%s\nwant it to redirect to the printed URL (%s)", page, b, want)
		}
	}

	cmd.Process.Signal(syscall.SIGTERM)
	if err := testwait.Receive(t, exited, "foya serve to stop after SIGTERM"); err != nil {
		t.Fatalf("foya serve after SIGTERM: %v; want exit 0", err)
	}
	if _, err := os.Stat(filepath.Dir(page)); !os.IsNotExist(err) {
		t.Errorf("after foya serve stopped, %s: %v; want it removed", filepath.Dir(page), err)
	}
}
