package tests

import (
	"fmt"
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
// loopback URL asks, naming the host and the address; "allow for this
// session" grants the host, so the second fetch does not ask; file: is
// refused without asking; the page comes back as Markdown. Issue 13 item 3.
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
		for _, s := range p.Scopes {
			if s.Host != "" {
				return kernel.Answer{Choice: kernel.AllowSession, Scope: &s}
			}
		}
		return kernel.Answer{Choice: kernel.Deny, Message: "no host scope offered"}
	})()
	run := h.run("fetch the pages")
	if run.Status != "completed" {
		t.Fatalf("run = %+v", run)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(asked) != 1 || asked[0].Request.Action.Kind != "fetch" || asked[0].Request.Action.Host != "127.0.0.1" ||
		!strings.Contains(asked[0].Request.Why, "loopback or private address") {
		t.Fatalf("asked = %+v; want one fetch approval naming the loopback host", asked)
	}
	reqs := h.srv.Requests()
	if !slices.Contains(reqs[0].Tools, "web_fetch") {
		t.Fatalf("tools = %v; want web_fetch built in", reqs[0].Tools)
	}
	if got := toolText(t, reqs[1], "c1"); !strings.Contains(got, "## Page /a") || !strings.Contains(got, "- one") {
		t.Errorf("c1 = %q; want Markdown", got)
	}
	if got := toolText(t, reqs[2], "c2"); !strings.Contains(got, "## Page /b") {
		t.Errorf("c2 = %q; want the granted host fetched without asking", got)
	}
	if got := toolText(t, reqs[2], "c3"); !strings.Contains(got, "only http and https") {
		t.Errorf("c3 = %q; want file: refused", got)
	}
}
