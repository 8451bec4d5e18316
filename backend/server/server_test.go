package server_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"testing/fstest"

	"foya/backend/kernel"
	"foya/backend/server"
)

// TestListenRefusesOtherAddresses: foya serve binds loopback only (issue 11
// item 5).
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

// TestTokenCookieFlow: the token URL sets an HttpOnly, SameSite=Strict
// cookie and redirects without the token; the cookie or a bearer header
// then authorise, nothing else does (issue 11 item 5).
func TestTokenCookieFlow(t *testing.T) {
	f := start(t, server.Options{Assets: fstest.MapFS{"index.html": {Data: []byte("<title>Foya</title>")}}})

	resp := f.request("GET", "/?token="+f.token, "", map[string]string{"Authorization": ""})
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" {
		t.Fatalf("token URL = %d to %q; want 303 to /", resp.StatusCode, resp.Header.Get("Location"))
	}
	var cookie *http.Cookie
	for _, c := range resp.Cookies() {
		if c.Name == server.CookieName {
			cookie = c
		}
	}
	if cookie == nil || cookie.Value != f.token || !cookie.HttpOnly || cookie.SameSite != http.SameSiteStrictMode || cookie.Path != "/" {
		t.Fatalf("cookie = %+v; want foya_auth=token, HttpOnly, SameSite=Strict, Path=/", cookie)
	}
	withCookie := map[string]string{"Authorization": "", "Cookie": server.CookieName + "=" + f.token}
	for _, path := range []string{"/", "/api/sessions", "/some/view"} {
		resp := f.request("GET", path, "", withCookie)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("GET %s with the cookie = %d; want 200", path, resp.StatusCode)
		}
	}
	// And a call, which changes state, with the page's Origin.
	resp = f.request("POST", "/api/call/Sessions", "[]", map[string]string{"Authorization": "", "Cookie": server.CookieName + "=" + f.token, "Origin": f.base})
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("call with cookie and Origin = %d; want 200", resp.StatusCode)
	}

	for name, h := range map[string]map[string]string{
		"nothing":      {"Authorization": ""},
		"wrong cookie": {"Authorization": "", "Cookie": server.CookieName + "=" + strings.Repeat("0", len(f.token))},
		"wrong bearer": {"Authorization": "Bearer nope"},
		"basic auth":   {"Authorization": "Basic " + f.token},
		"token prefix": {"Authorization": "Bearer " + f.token[:10]},
	} {
		for _, path := range []string{"/", "/api/sessions", "/api/events", "/api/sessions/x/events", "/api/sessions/x/artifacts/y", "/index.html"} {
			apiError(t, f.request("GET", path, "", h), 401, "unauthorized")
		}
		apiError(t, f.request("POST", "/api/call/Sessions", "[]", h), 401, "unauthorized")
		_ = name
	}
	resp = f.request("GET", "/?token=wrong", "", map[string]string{"Authorization": ""})
	if len(resp.Cookies()) != 0 {
		t.Fatal("a wrong token got a cookie")
	}
	apiError(t, resp, 401, "unauthorized")
}

// TestHostAndOriginRefused: a foreign Host (DNS rebinding) is refused on
// every route, token or not; a state-changing request with the cookie needs
// this server's Origin (issue 11 item 5).
func TestHostAndOriginRefused(t *testing.T) {
	f := start(t, server.Options{})
	port := f.base[strings.LastIndex(f.base, ":")+1:]
	for _, host := range []string{"evil.example:" + port, "127.0.0.1:1", "localhost", "127.0.0.1", "127.0.0.1.evil.example:" + port, "[::2]:" + port} {
		for _, path := range []string{"/", "/api/sessions", "/?token=" + f.token} {
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

	cookie := server.CookieName + "=" + f.token
	for _, origin := range []string{"", "http://evil.example", "http://127.0.0.1:1", "https://127.0.0.1:" + port, "null", "http://127.0.0.1:" + port + "/x"} {
		h := map[string]string{"Authorization": "", "Cookie": cookie, "Origin": origin}
		apiError(t, f.request("POST", "/api/call/SetDefaultMode", `["auto"]`, h), 403, "forbidden")
	}
	// A bearer script with a foreign Origin is refused too; without one it
	// is a script, not a page, and may.
	apiError(t, f.request("POST", "/api/call/SetDefaultMode", `["auto"]`, map[string]string{"Origin": "http://evil.example"}), 403, "forbidden")
	var mode string
	f.call(nil, "SetDefaultMode", "auto")
	f.call(&mode, "DefaultMode")
	if mode != "auto" {
		t.Fatalf("DefaultMode = %q after SetDefaultMode(auto)", mode)
	}
	for _, origin := range []string{f.base, "http://localhost:" + port} {
		resp := f.request("POST", "/api/call/Info", "[]", map[string]string{"Authorization": "", "Cookie": cookie, "Origin": origin})
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("Origin %s = %d; want 200", origin, resp.StatusCode)
		}
	}
}

// TestCallBadInput: every way a call can be wrong gets a clear status and
// {code, message}, and no panic (issue 11 item 5).
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
// is not the API, index.html for the app's own routes (issue 11 item 5).
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
	}
}
