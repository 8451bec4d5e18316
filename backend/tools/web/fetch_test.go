package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"foya/backend/approval"
	"foya/backend/testwait"
	"foya/backend/tools"
)

func run(t *testing.T, rc *tools.RunContext, args any) tools.Result {
	t.Helper()
	raw, _ := json.Marshal(args)
	res, err := New().Run(context.Background(), rc, tools.Call{ID: "c1", Name: Name, Arguments: raw})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return res
}

func server(t *testing.T) *httptest.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<html><body><h1>Title</h1><p>Some <strong>bold</strong> text and <a href="/x">a link</a>.</p></body></html>`)
	})
	mux.HandleFunc("/data.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"a": [1, 2, 3], "b": "<p>not html</p>"}`)
	})
	mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/loop2", http.StatusFound) })
	mux.HandleFunc("/loop2", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/loop", http.StatusFound) })
	mux.HandleFunc("/hop/{n}", func(w http.ResponseWriter, r *http.Request) {
		var n int
		fmt.Sscan(r.PathValue("n"), &n)
		if n == 0 {
			http.Redirect(w, r, "/data.json", http.StatusFound)
			return
		}
		http.Redirect(w, r, fmt.Sprintf("/hop/%d", n-1), http.StatusFound)
	})
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, r.URL.Query().Get("to"), http.StatusFound)
	})
	mux.HandleFunc("/to-file", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
	})
	mux.HandleFunc("/huge", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Set("Content-Length", fmt.Sprint(int64(5)<<30))
		line := bytes.Repeat([]byte("0123456789abcdef"), 4096)
		for {
			if _, err := w.Write(line); err != nil {
				return // the client hung up: the body was bounded
			}
		}
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "first part arrived\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	mux.HandleFunc("/bin", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/zip")
		w.Write(append([]byte("PK\x03\x04"), make([]byte, 2000)...))
	})
	mux.HandleFunc("/sniffed", func(w http.ResponseWriter, r *http.Request) {
		w.Header()["Content-Type"] = nil
		w.Write([]byte{0x7f, 'E', 'L', 'F', 2, 1, 1, 0, 0, 0, 0, 0})
	})
	mux.HandleFunc("/img.png", func(w http.ResponseWriter, r *http.Request) {
		img := image.NewRGBA(image.Rect(0, 0, 3, 2))
		img.Set(1, 1, color.RGBA{255, 0, 0, 255})
		w.Header().Set("Content-Type", "image/png")
		png.Encode(w, img)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// TestHTMLToMarkdown: a page comes back as Markdown, with the URL.
func TestHTMLToMarkdown(t *testing.T) {
	srv := server(t)
	res := run(t, nil, map[string]any{"url": srv.URL + "/page"})
	if res.IsError || !strings.Contains(res.Text, "# Title") || !strings.Contains(res.Text, "**bold**") ||
		!strings.Contains(res.Text, "[a link](/x)") || strings.Contains(res.Text, "<p>") {
		t.Fatalf("result = %+v; want Markdown", res)
	}
}

// TestJSONAsIs: JSON is returned byte for byte, and redirects report the
// final URL.
func TestJSONAsIs(t *testing.T) {
	srv := server(t)
	res := run(t, nil, map[string]any{"url": srv.URL + "/hop/3"})
	if res.IsError || !strings.Contains(res.Text, `{"a": [1, 2, 3], "b": "<p>not html</p>"}`) ||
		!strings.Contains(res.Text, srv.URL+"/data.json (redirected from "+srv.URL+"/hop/3)") {
		t.Fatalf("result = %+v", res)
	}
}

// TestRedirects: a loop, too many hops and a redirect to file: are clear
// errors.
func TestRedirects(t *testing.T) {
	srv := server(t)
	for path, want := range map[string]string{
		"/loop":    "redirect loop",
		"/hop/9":   "more than 5 redirects",
		"/to-file": "only http and https",
	} {
		res := run(t, nil, map[string]any{"url": srv.URL + path})
		if !res.IsError || !strings.Contains(res.Text, want) {
			t.Errorf("%s: result = %+v; want an error saying %q", path, res, want)
		}
	}
}

// TestHugeBody: a 5 GB body written forever is read only to the cap, and
// the result says what was cut.
func TestHugeBody(t *testing.T) {
	srv := server(t)
	res := run(t, nil, map[string]any{"url": srv.URL + "/huge", "max_bytes": 100000})
	if res.IsError || !strings.Contains(res.Text, "[the body was cut at 100,000 bytes; 5,368,609,120 bytes left out of 5,368,709,120]") {
		t.Fatalf("result = %.300s ... %s", res.Text, res.Text[max(0, len(res.Text)-300):])
	}
	if len(res.Text) > tools.DocumentLimits.Bytes+1000 {
		t.Fatalf("result is %d bytes; want it within the output bounds", len(res.Text))
	}
	res = run(t, nil, map[string]any{"url": srv.URL + "/huge"})
	if !strings.Contains(res.Text, "[the body was cut at 5,242,880 bytes") || !strings.Contains(res.Text, "left out after this") {
		t.Fatalf("default cap: result tail = %s", res.Text[max(0, len(res.Text)-300):])
	}
}

// TestSlowBody: a body that stops arriving is cut at the timeout with what
// arrived.
func TestSlowBody(t *testing.T) {
	old := Timeout
	Timeout = 300 * time.Millisecond
	t.Cleanup(func() { Timeout = old })
	srv := server(t)
	res := run(t, nil, map[string]any{"url": srv.URL + "/slow"})
	if res.IsError || !strings.Contains(res.Text, "first part arrived") || !strings.Contains(res.Text, "[the body was cut after 300ms: 19 bytes had arrived]") {
		t.Fatalf("result = %+v", res)
	}
}

// TestBinaryRefused: binaries are refused with their type and size; images
// are attached.
func TestBinaryRefused(t *testing.T) {
	srv := server(t)
	res := run(t, nil, map[string]any{"url": srv.URL + "/bin"})
	if !res.IsError || !strings.Contains(res.Text, "is a application/zip file (2,004 bytes)") {
		t.Fatalf("zip: result = %+v", res)
	}
	res = run(t, nil, map[string]any{"url": srv.URL + "/sniffed"})
	if !res.IsError || !strings.Contains(res.Text, "application/octet-stream") {
		t.Fatalf("sniffed: result = %+v", res)
	}
	res = run(t, nil, map[string]any{"url": srv.URL + "/img.png"})
	if res.IsError || len(res.Images) != 1 || res.Images[0].MIME != "image/png" {
		t.Fatalf("image: result = %+v", res)
	}
	if _, err := png.Decode(bytes.NewReader(res.Images[0].Data)); err != nil {
		t.Fatalf("image bytes: %v", err)
	}
}

// TestSchemes: file:, ftp:, data: and the like are refused without asking.
func TestSchemes(t *testing.T) {
	asked := 0
	rc := &tools.RunContext{Approval: func(context.Context, approval.Request) (approval.Outcome, error) {
		asked++
		return approval.Outcome{Allowed: true}, nil
	}}
	for _, u := range []string{"file:///etc/passwd", "ftp://example.com/x", "data:text/plain,hi", "javascript:alert(1)", "gopher://x", "example.com/x", "http:///nohost"} {
		res := run(t, rc, map[string]any{"url": u})
		if !res.IsError {
			t.Errorf("%s: result = %+v; want an error", u, res)
		}
	}
	if asked != 0 {
		t.Fatalf("asked %d times; want none", asked)
	}
	for _, bad := range []string{`{"url": 5}`, `{"url": "http://x", "max_bytes": 0}`, `{"uri": "http://x"}`, `{`} {
		res, err := New().Run(context.Background(), rc, tools.Call{ID: "c", Name: Name, Arguments: json.RawMessage(bad)})
		if err != nil || !res.IsError {
			t.Errorf("%s: %+v, %v; want an error result", bad, res, err)
		}
	}
}

// TestApprovalNamesHost: the action names the host and a loopback address
// says so; a refusal is an error result and nothing is fetched.
func TestApprovalNamesHost(t *testing.T) {
	srv := server(t)
	var got []approval.Request
	rc := &tools.RunContext{Approval: func(_ context.Context, r approval.Request) (approval.Outcome, error) {
		got = append(got, r)
		return approval.Outcome{Message: "the user said no"}, nil
	}}
	res := run(t, rc, map[string]any{"url": srv.URL + "/page"})
	if !res.IsError || !strings.Contains(res.Text, "the user said no") {
		t.Fatalf("result = %+v", res)
	}
	if len(got) != 1 || got[0].Action.Kind != approval.FetchPrivate || got[0].Action.Host != "127.0.0.1" ||
		!slices.Equal(got[0].Action.Addresses, []string{"127.0.0.1"}) ||
		!strings.Contains(got[0].Why, "loopback or private address: 127.0.0.1") {
		t.Fatalf("requests = %+v", got)
	}
}

// TestDialCheck: the address dialled is checked again, so a host approved
// as public that now resolves to loopback (DNS rebinding) is refused, and
// so is a private address other than those an answer named.
func TestDialCheck(t *testing.T) {
	f := &fetch{private: map[netip.Addr]bool{}}
	for _, a := range []string{"127.0.0.1:80", "[::1]:80", "10.1.2.3:443", "192.168.0.1:80", "169.254.169.254:80", "[fd00::1]:80", "[fe80::1]:80", "0.0.0.0:80", "[::ffff:127.0.0.1]:80"} {
		if err := f.control("tcp", a, nil); !errors.Is(err, errPrivate) {
			t.Errorf("control(%s) = %v; want errPrivate", a, err)
		}
	}
	if err := f.control("tcp", "93.184.216.34:443", nil); err != nil {
		t.Errorf("public address: %v", err)
	}
	f.private[netip.MustParseAddr("127.0.0.1")] = true
	if err := f.control("tcp", "127.0.0.1:80", nil); err != nil {
		t.Errorf("approved private address: %v", err)
	}
	if err := f.control("tcp", "[::ffff:127.0.0.1]:80", nil); err != nil {
		t.Errorf("approved private address, IPv4-mapped: %v", err)
	}
	for _, a := range []string{"127.0.0.2:80", "169.254.169.254:80", "[::1]:80"} {
		if err := f.control("tcp", a, nil); !errors.Is(err, errPrivate) {
			t.Errorf("with 127.0.0.1 approved, control(%s) = %v; want errPrivate", a, err)
		}
	}
}

// TestRefusedNameIsNeverLookedUp: a name is asked about before any DNS
// lookup, so a fetch the user refuses sends nothing to the network, not
// even a query for the name (which a model could fill with data). Found by
// FuzzToolArgs.
// spec: R1, A1, A2
func TestRefusedNameIsNeverLookedUp(t *testing.T) {
	looked := 0
	real := lookup
	lookup = func(ctx context.Context, network, host string) ([]netip.Addr, error) {
		looked++
		return real(ctx, network, host)
	}
	t.Cleanup(func() { lookup = real })
	var got []approval.Request
	rc := &tools.RunContext{Approval: func(_ context.Context, r approval.Request) (approval.Outcome, error) {
		got = append(got, r)
		return approval.Outcome{Message: "no"}, nil
	}}
	res := run(t, rc, map[string]any{"url": "https://secret-data-in-a-name.example/x"})
	if !res.IsError || looked != 0 || len(got) != 1 || got[0].Action.Host != "secret-data-in-a-name.example" {
		t.Fatalf("result %+v, %d lookups, requests %+v; want a refusal and no lookup", res, looked, got)
	}
}

// TestPrivateNameAsksAgain: a name allowed once that resolves to loopback
// is asked about again, as a question of its own (fetch_private) naming
// the address, before anything is dialled; allowed, the fetch goes on. A
// name allowed for the session may be rebound to a loopback address later.
// spec: R1, A1, A2
func TestPrivateNameAsksAgain(t *testing.T) {
	srv := server(t)
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(srv.URL, "http://"))
	fakeLookup(t, map[string]string{"intranet.test": "127.0.0.1"})
	var got []approval.Request
	rc := &tools.RunContext{Approval: func(_ context.Context, r approval.Request) (approval.Outcome, error) {
		got = append(got, r)
		return approval.Outcome{Allowed: true}, nil
	}}
	res := run(t, rc, map[string]any{"url": "http://intranet.test:" + port + "/page"})
	if len(got) != 2 || got[0].Action.Kind != approval.Fetch || strings.Contains(got[0].Why, "private") ||
		got[1].Action.Kind != approval.FetchPrivate || got[1].Action.Host != "intranet.test" ||
		!slices.Equal(got[1].Action.Addresses, []string{"127.0.0.1"}) ||
		!strings.Contains(got[1].Why, "loopback or private address: 127.0.0.1") {
		t.Fatalf("requests = %+v", got)
	}
	// The preview is the URL, so the person who answers sees what is fetched.
	if want := "http://intranet.test:" + port + "/page"; got[0].Preview != want || got[1].Preview != want {
		t.Fatalf("previews = %q, %q; want %q", got[0].Preview, got[1].Preview, want)
	}
	if res.IsError {
		t.Fatalf("allowed twice, the fetch failed: %s", res.Text)
	}
}

// fakeLookup makes web_fetch resolve names from table (name to address)
// for the test, so no query leaves the machine; other names do not resolve.
func fakeLookup(t *testing.T, table map[string]string) {
	t.Helper()
	lookup = func(_ context.Context, _, host string) ([]netip.Addr, error) {
		if a, ok := table[host]; ok {
			return []netip.Addr{netip.MustParseAddr(a)}, nil
		}
		return nil, fmt.Errorf("no such host %s (test resolver)", host)
	}
	t.Cleanup(func() { lookup = net.DefaultResolver.LookupNetIP })
}

// TestRedirectToAnotherPrivateAddressAsks: once a fetch was allowed to
// reach one loopback host, a redirect to another private host (an
// address, or a name that resolves to one) is asked about again, naming
// it; refused, it is not fetched: one private host allowed is not all of
// them.
// spec: A1, A2
func TestRedirectToAnotherPrivateAddressAsks(t *testing.T) {
	other, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		testwait.Missing(t, "a second loopback address, 127.0.0.2 ("+err.Error()+")", "a redirect to another private address")
	}
	reached := make(chan string, 10)
	target := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached <- r.Host + r.URL.Path
		fmt.Fprint(w, "inside")
	}))
	target.Listener.Close()
	target.Listener = other
	target.Start()
	t.Cleanup(target.Close)
	_, otherPort, _ := net.SplitHostPort(other.Addr().String())

	first := server(t)
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(first.URL, "http://"))
	fakeLookup(t, map[string]string{"intranet.test": "127.0.0.1", "db.test": "127.0.0.2"})
	for _, to := range []struct{ url, host, addr string }{
		{"http://127.0.0.2:" + otherPort + "/secret", "127.0.0.2", "127.0.0.2"},
		{"http://db.test:" + otherPort + "/secret", "db.test", "127.0.0.2"},
		// The address already allowed, by another host name: still asked.
		{first.URL + "/page", "127.0.0.1", "127.0.0.1"},
	} {
		var got []approval.Request
		rc := &tools.RunContext{Approval: func(_ context.Context, r approval.Request) (approval.Outcome, error) {
			got = append(got, r)
			if r.Action.Kind == approval.FetchPrivate && r.Action.Host != "intranet.test" {
				return approval.Outcome{Message: "denied by the user"}, nil
			}
			return approval.Outcome{Allowed: true}, nil
		}}
		res := run(t, rc, map[string]any{"url": "http://intranet.test:" + port + "/redirect?to=" + url.QueryEscape(to.url)})
		if !res.IsError || !strings.Contains(res.Text, "denied by the user") {
			t.Errorf("redirect to %s: result %+v; want the refusal", to.url, res)
		}
		last := got[len(got)-1]
		if last.Action.Kind != approval.FetchPrivate || last.Action.Host != to.host ||
			!slices.Equal(last.Action.Addresses, []string{to.addr}) || !strings.Contains(last.Why, to.addr) {
			t.Errorf("redirect to %s: requests %+v; want the last a fetch_private of %s naming %s", to.url, got, to.host, to.addr)
		}
		select {
		case r := <-reached:
			t.Errorf("redirect to %s: %s was fetched though refused", to.url, r)
		default:
		}
	}
}
