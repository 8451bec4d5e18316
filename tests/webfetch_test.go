package tests

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"foya/backend/kernel"
	pt "foya/backend/provider/providertest"
)

// TestWebFetchThroughTheKernel: web_fetch is a built-in tool; in Auto a
// loopback URL asks a question of its own (fetch_private), naming the
// address, and asks it again on the next fetch: it offers no "allow for
// this session"; file: is refused without asking; the page comes back as
// Markdown.
// spec: R1, T4, P1
func TestWebFetchThroughTheKernel(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, "<h2>Page %s</h2><ul><li>one</li></ul>", r.URL.Path)
	}))
	defer srv.Close()
	h := newHarness(t, nil,
		pt.Calls(call("c1", "web_fetch", `{"url":"`+srv.URL+`/a"}`)),
		pt.Calls(call("c2", "web_fetch", `{"url":"`+srv.URL+`/b"}`), call("c3", "web_fetch", `{"url":"file:///etc/passwd"}`)),
		pt.Say("done"))
	var mu sync.Mutex
	var asked []kernel.Approval
	ans := &answerer{}
	defer ans.watch(h.k, func(p kernel.Approval) kernel.Answer {
		mu.Lock()
		asked = append(asked, p)
		mu.Unlock()
		if len(p.Scopes) > 0 {
			return kernel.Answer{Choice: kernel.Deny, Message: "a private address offered a session scope"}
		}
		return kernel.Answer{Choice: kernel.AllowOnce}
	})()
	run := h.run("fetch the pages")
	if run.Status != "completed" {
		t.Fatalf("run = %+v", run)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(asked) != 2 {
		t.Fatalf("asked %d times (%+v); want once per fetch of the loopback address", len(asked), asked)
	}
	for _, p := range asked {
		if a := p.Request.Action; a.Kind != "fetch_private" || a.Host != "127.0.0.1" || !slices.Equal(a.Addresses, []string{"127.0.0.1"}) ||
			!strings.Contains(p.Request.Why, "loopback or private address") {
			t.Fatalf("asked %+v; want a fetch_private approval naming the loopback address", p)
		}
	}
	reqs := h.srv.Requests()
	if !slices.Contains(reqs[0].Tools, "web_fetch") {
		t.Fatalf("tools = %v; want web_fetch built in", reqs[0].Tools)
	}
	if got := toolText(t, reqs[1], "c1"); !strings.Contains(got, "## Page /a") || !strings.Contains(got, "- one") {
		t.Errorf("c1 = %q; want Markdown", got)
	}
	if got := toolText(t, reqs[2], "c2"); !strings.Contains(got, "## Page /b") {
		t.Errorf("c2 = %q; want the page, allowed once again", got)
	}
	if got := toolText(t, reqs[2], "c3"); !strings.Contains(got, "only http and https") {
		t.Errorf("c3 = %q; want file: refused", got)
	}
}

// TestWebFetchPrivateAddressIsAskedEveryFetch: a name the user allowed,
// "allow once" in Auto (which Auto remembers for the host) or "allow for
// this session" in Manual, that resolves to a loopback address is still
// asked about on each fetch, naming the address: the host's grant never
// answers the private-address question, so a name rebound to the machine
// itself between two calls cannot be fetched unasked. The name is
// localhost, which resolves to loopback on this machine without a DNS
// query.
// spec: A1, A2
func TestWebFetchPrivateAddressIsAskedEveryFetch(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "page %s", r.URL.Path)
	}))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	local := "http://localhost:" + port
	for _, c := range []struct {
		mode   string
		answer func(p kernel.Approval) kernel.Answer
	}{
		{"auto", func(kernel.Approval) kernel.Answer { return kernel.Answer{Choice: kernel.AllowOnce} }},
		{"manual", func(p kernel.Approval) kernel.Answer {
			for _, s := range p.Scopes {
				if s.Host != "" {
					return kernel.Answer{Choice: kernel.AllowSession, Scope: &s}
				}
			}
			return kernel.Answer{Choice: kernel.AllowOnce}
		}},
	} {
		t.Run(c.mode, func(t *testing.T) {
			h := newHarness(t, nil,
				pt.Calls(call("c1", "web_fetch", `{"url":"`+local+`/a"}`)),
				pt.Calls(call("c2", "web_fetch", `{"url":"`+local+`/b"}`)),
				pt.Say("done"))
			var mu sync.Mutex
			var asked []kernel.Action
			defer (&answerer{}).watch(h.k, func(p kernel.Approval) kernel.Answer {
				mu.Lock()
				asked = append(asked, p.Request.Action)
				mu.Unlock()
				return c.answer(p)
			})()
			run := h.runIn(t.Context(), h.session(c.mode).ID, "fetch twice")
			if run.Status != "completed" {
				t.Fatalf("run = %+v", run)
			}
			mu.Lock()
			defer mu.Unlock()
			var kinds []string
			for _, a := range asked {
				kinds = append(kinds, a.Kind+" "+a.Host)
				if a.Kind == "fetch_private" && !slices.Contains(a.Addresses, "127.0.0.1") && !slices.Contains(a.Addresses, "::1") {
					t.Errorf("the private-address question names %v; want the loopback address", a.Addresses)
				}
			}
			want := []string{"fetch localhost", "fetch_private localhost", "fetch_private localhost"}
			if !slices.Equal(kinds, want) {
				t.Fatalf("asked %q; want %q: the host once, its loopback address on each fetch", kinds, want)
			}
			reqs := h.srv.Requests()
			if got := toolText(t, reqs[2], "c2"); !strings.Contains(got, "page /b") {
				t.Errorf("c2 = %q; want the page, allowed once again", got)
			}
		})
	}
}
