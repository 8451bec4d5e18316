package server_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"foya/backend/kernel"
	"foya/backend/server"
	"foya/backend/testwait"
)

// TestListenRefusesOtherAddresses: foya serve binds loopback only; no
// other machine may reach the kernel.
func TestListenRefusesOtherAddresses(t *testing.T) {
	k, err := kernel.Open(context.Background(), kernel.Options{DBPath: t.TempDir() + "/foya.db"})
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	for _, addr := range []string{"0.0.0.0:0", ":0", "[::]:0", "192.168.1.10:0", "example.com:0", "127.0.0.1:http", "127.0.0.1:70000", "nonsense"} {
		if srv, err := server.Listen(server.Options{Kernel: k, Addr: addr}); err == nil {
			t.Errorf("Listen(%q) = %s; want a refusal", addr, srv.URL())
		}
	}
}

// TestBearerOnlyNoCookie: the API answers only a request that carries
// Authorization: Bearer TOKEN; no response sets a cookie, not even the
// page opened with the token link, and a cookie holding the token
// authorises nothing. A cookie is not scoped to a port: the browser would
// send it to every other server on 127.0.0.1.
func TestBearerOnlyNoCookie(t *testing.T) {
	f := start(t, server.Options{Assets: fstest.MapFS{"index.html": {Data: []byte("<title>Foya</title>")}}})
	if want := f.base + "/#token=" + f.token; f.srv.URL() != want {
		t.Errorf("URL() = %q; want %q: the token in the fragment, which the browser never sends", f.srv.URL(), want)
	}

	// The page and its files need no token and set no cookie, with or
	// without the old ?token= query.
	noAuth := map[string]string{"Authorization": ""}
	for _, path := range []string{"/", "/?token=" + f.token, "/some/view"} {
		resp := f.request("GET", path, "", noAuth)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("GET %s without a token = %d; want 200 (the page holds no data)", path, resp.StatusCode)
		}
		if c := resp.Header.Values("Set-Cookie"); len(c) != 0 {
			t.Errorf("GET %s set a cookie %q; want none", path, c)
		}
	}
	// The bearer header authorises, a call with the page's Origin too.
	for _, path := range []string{"/api/sessions"} {
		resp := f.request("GET", path, "", nil)
		resp.Body.Close()
		if resp.StatusCode != 200 || len(resp.Header.Values("Set-Cookie")) != 0 {
			t.Errorf("GET %s with the bearer token = %d, cookies %q; want 200 and none", path, resp.StatusCode, resp.Header.Values("Set-Cookie"))
		}
	}
	resp := f.request("POST", "/api/call/Sessions", "[]", map[string]string{"Origin": f.base})
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("call with the bearer token and Origin = %d; want 200", resp.StatusCode)
	}

	for name, h := range map[string]map[string]string{
		"nothing":             {"Authorization": ""},
		"the token as cookie": {"Authorization": "", "Cookie": "foya_auth=" + f.token},
		"wrong bearer":        {"Authorization": "Bearer nope"},
		"basic auth":          {"Authorization": "Basic " + f.token},
		"bare token":          {"Authorization": f.token},
		"token prefix":        {"Authorization": "Bearer " + f.token[:10]},
	} {
		t.Run(name, func(t *testing.T) {
			for _, path := range []string{"/api/sessions", "/api/events", "/api/sessions/x/events", "/api/sessions/x/artifacts/y", "/api/sessions?token=" + f.token} {
				apiError(t, f.request("GET", path, "", h), 401, "unauthorized")
			}
			apiError(t, f.request("POST", "/api/call/SetDefaultMode", `["full-access"]`, h), 401, "unauthorized")
		})
	}
	var mode string
	f.call(&mode, "DefaultMode")
	if mode == "full-access" {
		t.Fatal("DefaultMode is full-access after refused calls")
	}
}

// TestHostAndOriginRefused: a foreign Host (DNS rebinding) is refused on
// every route, token or not; a state-changing request that names an Origin
// must name this server's.
func TestHostAndOriginRefused(t *testing.T) {
	f := start(t, server.Options{})
	port := f.base[strings.LastIndex(f.base, ":")+1:]
	for _, host := range []string{"evil.example:" + port, "127.0.0.1:1", "localhost", "127.0.0.1", "127.0.0.1.evil.example:" + port, "[::2]:" + port} {
		for _, path := range []string{"/", "/api/sessions", "/#token=" + f.token} {
			apiError(t, f.request("GET", path, "", map[string]string{"Host": host}), 403, "forbidden")
		}
		apiError(t, f.request("POST", "/api/call/Info", "[]", map[string]string{"Host": host}), 403, "forbidden")
	}
	for _, host := range []string{"127.0.0.1:" + port, "localhost:" + port, "[::1]:" + port, "LOCALHOST:" + port} {
		resp := f.request("GET", "/api/sessions", "", map[string]string{"Host": host})
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("Host %s = %d; want 200", host, resp.StatusCode)
		}
	}

	for _, origin := range []string{"http://evil.example", "http://127.0.0.1:1", "https://127.0.0.1:" + port, "null", "http://127.0.0.1:" + port + "/x"} {
		apiError(t, f.request("POST", "/api/call/SetDefaultMode", `["auto"]`, map[string]string{"Origin": origin}), 403, "forbidden")
	}
	// Without an Origin it is a script, not a page, and may.
	var mode string
	f.call(nil, "SetDefaultMode", "auto")
	f.call(&mode, "DefaultMode")
	if mode != "auto" {
		t.Fatalf("DefaultMode = %q after SetDefaultMode(auto)", mode)
	}
	for _, origin := range []string{f.base, "http://localhost:" + port} {
		resp := f.request("POST", "/api/call/Info", "[]", map[string]string{"Origin": origin})
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("Origin %s = %d; want 200", origin, resp.StatusCode)
		}
	}
}

// TestCallBadInput: every way a call can be wrong gets a clear status and
// {code, message}, and no panic.
func TestCallBadInput(t *testing.T) {
	f := start(t, server.Options{})
	sess := f.session("manual")
	for _, c := range []struct {
		name, method, body string
		status             int
		code, says         string
	}{
		{"unknown method", "Nope", "[]", 404, "not_found", `no method "Nope"`},
		{"unexported method", "kernel", "[]", 404, "not_found", "no method"},
		{"malformed JSON", "Session", `["a"`, 400, "invalid", "JSON array"},
		{"not an array", "Session", `{"id":"a"}`, 400, "invalid", "JSON array"},
		{"data after the array", "Session", `["a"] ["b"]`, 400, "invalid", "after"},
		{"missing argument", "Session", `[]`, 400, "invalid", "takes 1 argument(s) (string), got 0"},
		{"extra argument", "Session", `["a", "b"]`, 400, "invalid", "got 2"},
		{"wrong type", "Session", `[42]`, 400, "invalid", "argument 1 of Session must be string"},
		{"wrong type in a struct", "Revert", `[{"changeIds": "c"}]`, 400, "invalid", "argument 1 of Revert"},
		{"negative seq", "Events", `["` + sess.ID + `", -1]`, 400, "invalid", "after is -1"},
		{"seq not a number", "Events", `["` + sess.ID + `", "1"]`, 400, "invalid", "argument 2 of Events must be int64"},
		{"unknown session", "Session", `["ses_nope"]`, 404, "not_found", "ses_nope"},
		{"events of an unknown session", "Events", `["ses_nope", 0]`, 404, "not_found", "ses_nope"},
		{"run in an unknown session", "Run", `["ses_nope", "hi"]`, 404, "not_found", "ses_nope"},
		{"empty message", "Run", `["` + sess.ID + `", "  "]`, 400, "invalid", "message is empty"},
		{"unknown change", "Change", `["chg_nope"]`, 404, "not_found", "chg_nope"},
		{"diff of an unknown change", "Diff", `["chg_nope"]`, 404, "not_found", "chg_nope"},
		{"bad mode", "SetMode", `["` + sess.ID + `", "yolo"]`, 400, "invalid", "yolo"},
		{"unknown provider", "TestProvider", `["nope"]`, 404, "not_found", "nope"},
		{"empty title", "UpdateSession", `["` + sess.ID + `", {"title": " "}]`, 400, "invalid", "title is empty"},
	} {
		t.Run(c.name, func(t *testing.T) {
			msg := apiError(t, f.request("POST", "/api/call/"+c.method, c.body, nil), c.status, c.code)
			if !strings.Contains(msg, c.says) {
				t.Fatalf("%s %s: message %q; want it to say %q", c.method, c.body, msg, c.says)
			}
		})
	}
	t.Run("huge body", func(t *testing.T) {
		body := `["` + strings.Repeat("x", server.MaxBody) + `"]`
		apiError(t, f.request("POST", "/api/call/Session", body, nil), 413, "invalid")
	})
	t.Run("unknown route", func(t *testing.T) {
		apiError(t, f.request("GET", "/api/nope", "", nil), 404, "not_found")
		apiError(t, f.request("GET", "/api/call/Info", "", nil), 404, "not_found")
	})
	t.Run("empty body is no arguments", func(t *testing.T) {
		var info kernel.Info
		f.call(&info, "Info")
		resp := f.request("POST", "/api/call/Info", "", nil)
		resp.Body.Close()
		if resp.StatusCode != 200 || info.Version == "" {
			t.Fatalf("Info with an empty body = %d, %+v", resp.StatusCode, info)
		}
	})
	// A method without a result answers null; the session is renamed.
	var got kernel.Session
	f.call(&got, "UpdateSession", sess.ID, map[string]any{"title": "renamed", "mode": "auto"})
	if got.Title != "renamed" || got.ApprovalMode != "auto" {
		t.Fatalf("UpdateSession = %+v; want renamed, auto", got)
	}
	resp := f.request("POST", "/api/call/SetMode", fmt.Sprintf(`[%q, "manual"]`, sess.ID), nil)
	defer resp.Body.Close()
	var b [16]byte
	n, _ := resp.Body.Read(b[:])
	if resp.StatusCode != 200 || strings.TrimSpace(string(b[:n])) != "null" {
		t.Fatalf("SetMode = %d %q; want 200 null", resp.StatusCode, b[:n])
	}
}

// TestAssetsServed: the embedded front end is served for every path that
// is not the API, index.html for the app's own routes.
func TestAssetsServed(t *testing.T) {
	f := start(t, server.Options{Assets: fstest.MapFS{
		"index.html":    {Data: []byte("<title>Foya</title>")},
		"assets/app.js": {Data: []byte("console.log(1)")},
	}})
	for path, want := range map[string]string{"/": "<title>Foya</title>", "/sessions/x": "<title>Foya</title>", "/assets/app.js": "console.log(1)"} {
		resp := f.request("GET", path, "", nil)
		var b [64]byte
		n, _ := resp.Body.Read(b[:])
		resp.Body.Close()
		if resp.StatusCode != 200 || string(b[:n]) != want {
			t.Errorf("GET %s = %d %q; want %q", path, resp.StatusCode, b[:n], want)
		}
		if resp.Header.Get("X-Frame-Options") != "DENY" {
			t.Errorf("GET %s: no X-Frame-Options", path)
		}
		// The page runs only its own files' script and talks only to
		// its own origin: it holds the token.
		csp := resp.Header.Get("Content-Security-Policy")
		for _, want := range []string{"default-src 'self'", "script-src 'self';", "connect-src 'self'", "object-src 'none'", "base-uri 'none'", "frame-ancestors 'none'"} {
			if !strings.Contains(csp+";", want) {
				t.Errorf("GET %s: Content-Security-Policy %q; want it to hold %q", path, csp, want)
			}
		}
	}
}

// TestIdleConnectionClosed: a keep-alive connection that waits for its
// next request longer than IdleTimeout is closed by the server, so that
// idle browsers and scripts do not hold sockets and goroutines for ever
// (the server is local, but any local program may connect).
func TestIdleConnectionClosed(t *testing.T) {
	f := start(t, server.Options{IdleTimeout: 50 * time.Millisecond})
	conn, err := net.Dial("tcp", strings.TrimPrefix(f.base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// A hang guard: with no idle timeout the read below would wait for ever.
	conn.SetReadDeadline(time.Now().Add(testwait.Limit))
	fmt.Fprintf(conn, "GET /api/sessions HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\n\r\n", strings.TrimPrefix(f.base, "http://"), f.token)
	r := bufio.NewReader(conn)
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Close {
		t.Fatalf("GET /api/sessions = %d, close %v; want 200 on a kept-alive connection", resp.StatusCode, resp.Close)
	}
	// Nothing more is asked: the server hangs up.
	if n, err := r.Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
		t.Fatalf("read on the idle connection = %d, %v; want EOF: the server closes it", n, err)
	}
}
