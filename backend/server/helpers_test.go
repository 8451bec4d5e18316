package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"foya/backend/event"
	"foya/backend/kernel"
	"foya/backend/llm"
	"foya/backend/profiles"
	"foya/backend/provider/providertest"
	"foya/backend/server"
)

// fixture is a kernel on a temp database, a scripted model as its default
// provider profile, and a server over them on a free loopback port.
type fixture struct {
	t     testing.TB
	k     *kernel.Kernel
	srv   *server.Server
	model *providertest.Server
	dir   string // a workspace
	base  string
	token string

	mu     sync.Mutex
	events []llm.Event // every event the kernel published
	seen   *sync.Cond
}

func start(t testing.TB, o server.Options, turns ...providertest.Turn) *fixture {
	t.Helper()
	ctx := context.Background()
	k, err := kernel.Open(ctx, kernel.Options{DBPath: filepath.Join(t.TempDir(), "foya.db"), TextFlush: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{t: t, k: k, dir: t.TempDir(), model: providertest.New(t, turns...)}
	f.seen = sync.NewCond(&f.mu)
	k.Subscribe(func(ev llm.Event) {
		f.mu.Lock()
		f.events = append(f.events, ev)
		f.seen.Broadcast()
		f.mu.Unlock()
	})
	if _, err := k.Profiles().Add(ctx, profiles.ProviderInput{Name: "scripted", BaseURL: f.model.URL, Model: "m"}); err != nil {
		t.Fatal(err)
	}
	o.Kernel = k
	f.srv, err = server.Listen(o)
	if err != nil {
		t.Fatal(err)
	}
	f.base, f.token = f.srv.Base(), f.srv.Token()
	sctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- f.srv.Serve(sctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Serve: %v", err)
			}
		case <-time.After(time.Minute):
			t.Error("Serve did not return within a minute of its context's end")
		}
		k.Close()
	})
	return f
}

// waitEvent waits until the kernel published an event that ok accepts.
func (f *fixture) waitEvent(ok func(llm.Event) bool) llm.Event {
	f.t.Helper()
	timer := time.AfterFunc(time.Minute, func() {
		f.mu.Lock()
		f.seen.Broadcast()
		f.mu.Unlock()
	})
	defer timer.Stop()
	deadline := time.Now().Add(time.Minute)
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := 0; ; {
		for ; i < len(f.events); i++ {
			if ok(f.events[i]) {
				return f.events[i]
			}
		}
		if time.Now().After(deadline) {
			f.t.Fatal("no such event within a minute")
		}
		f.seen.Wait()
	}
}

// session makes a session in the fixture's workspace.
func (f *fixture) session(mode string) kernel.Session {
	f.t.Helper()
	s, err := f.k.CreateSession(context.Background(), kernel.NewSession{Workdir: f.dir, ApprovalMode: mode, Title: "t"})
	if err != nil {
		f.t.Fatal(err)
	}
	return s
}

// request sends a request with the bearer token (when auth) and a
// matching Origin on state-changing ones.
func (f *fixture) request(method, path, body string, header map[string]string) *http.Response {
	f.t.Helper()
	req, err := http.NewRequest(method, f.base+path, strings.NewReader(body))
	if err != nil {
		f.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+f.token)
	for k, v := range header {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
		if strings.EqualFold(k, "Host") {
			req.Host = v
		}
	}
	resp, err := noRedirect.Do(req)
	if err != nil {
		f.t.Fatal(err)
	}
	return resp
}

// noRedirect is the tests' client. Its timeout bounds every request and
// every SSE stream read through it, so that a stream whose events never
// come fails the test instead of hanging (a hang guard: no test keeps a
// stream for minutes, and none asserts on time).
var noRedirect = &http.Client{
	Timeout:       2 * time.Minute,
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
}

// call calls a Service method and decodes a 200 answer into out.
func (f *fixture) call(out any, method string, args ...any) {
	f.t.Helper()
	b, _ := json.Marshal(args)
	resp := f.request("POST", "/api/call/"+method, string(b), nil)
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		f.t.Fatalf("%s%s = %d %s; want 200", method, b, resp.StatusCode, body)
	}
	if out != nil {
		if err := json.Unmarshal(body, out); err != nil {
			f.t.Fatalf("%s: decode %s: %v", method, body, err)
		}
	}
}

// apiError decodes an error body and checks its status and code.
func apiError(t *testing.T, resp *http.Response, status int, code string) string {
	t.Helper()
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var e struct{ Code, Message string }
	if err := json.Unmarshal(body, &e); err != nil {
		t.Fatalf("error body %q is not {code, message}: %v", body, err)
	}
	if resp.StatusCode != status || e.Code != code || e.Message == "" {
		t.Fatalf("got %d %s; want %d with code %q and a message", resp.StatusCode, body, status, code)
	}
	return e.Message
}

// sse reads an SSE stream's events (id and data lines).
type sse struct {
	resp *http.Response
	r    *bufio.Reader
}

func (f *fixture) stream(path string, header map[string]string) *sse {
	f.t.Helper()
	resp := f.request("GET", path, "", header)
	if resp.StatusCode != 200 {
		body, _ := io.ReadAll(resp.Body)
		f.t.Fatalf("GET %s = %d %s", path, resp.StatusCode, body)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		f.t.Fatalf("GET %s: Content-Type %q", path, ct)
	}
	return &sse{resp: resp, r: bufio.NewReader(resp.Body)}
}

// next returns the next event, checking that its id line is its seq (and
// that a notice has none).
func (s *sse) next() (llm.Event, error) {
	var id int64 = -1
	for {
		line, err := s.r.ReadString('\n')
		if err != nil {
			return llm.Event{}, err
		}
		line = strings.TrimRight(line, "\n")
		switch {
		case strings.HasPrefix(line, "id: "):
			id, err = strconv.ParseInt(line[4:], 10, 64)
			if err != nil {
				return llm.Event{}, err
			}
		case strings.HasPrefix(line, "data: "):
			var ev llm.Event
			if err := json.Unmarshal([]byte(line[6:]), &ev); err != nil {
				return ev, err
			}
			if event.IsNotice(ev.Type) {
				// A notice has no seq, so no id line: the stream's last
				// event ID stays the last stored event's.
				if id != -1 || ev.Seq != 0 {
					return ev, errors.New("notice " + ev.Type + " has id line " + strconv.FormatInt(id, 10) + " and seq " + strconv.FormatInt(ev.Seq, 10) + "; want neither")
				}
				return ev, nil
			}
			if ev.Seq != id {
				return ev, errors.New("id line " + strconv.FormatInt(id, 10) + " is not the event's seq " + strconv.FormatInt(ev.Seq, 10))
			}
			return ev, nil
		case strings.HasPrefix(line, "event:"):
			return llm.Event{}, errors.New("an event: line: onmessage would miss it")
		}
	}
}

func (s *sse) close() { s.resp.Body.Close() }
