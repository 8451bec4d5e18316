package web

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	htmltomarkdown "github.com/JohannesKaufmann/html-to-markdown/v2"

	"foya/backend/approval"
	"foya/backend/tools"
)

// Name is the tool's name.
const Name = "web_fetch"

// Bounds of one fetch. They are variables so tests can shorten them.
var (
	// Timeout bounds a whole fetch: connect, redirects and body. A body
	// still arriving when it ends is cut, and what arrived is returned.
	Timeout = 30 * time.Second
	// DefaultMaxBytes is the most body read; max_bytes can lower it.
	DefaultMaxBytes int64 = 5 << 20
	// MaxRedirects is how many redirects one fetch follows.
	MaxRedirects = 5
)

// Tool is web_fetch.
type Tool struct{}

// New returns the web_fetch tool.
func New() Tool { return Tool{} }

// Spec implements tools.Tool.
func (Tool) Spec() tools.Spec {
	return tools.Spec{
		Name: Name,
		Description: "Fetches an http or https URL: HTML as Markdown, text and JSON as they are, images as attachments; " +
			"other binary files are refused. Follows up to 5 redirects and names the final URL. Each host needs the user's approval.",
		Exposure: tools.Direct,
		ReadOnly: true,
		Schema:   schema,
	}
}

// ParallelSafe implements tools.Parallel: a fetch changes nothing here.
func (Tool) ParallelSafe(tools.Call) bool { return true }

type args struct {
	URL      string `json:"url" jsonschema:"required"`
	MaxBytes *int64 `json:"max_bytes" jsonschema:"minimum=1" jsonschema_description:"Default and cap 5 MiB."`
}

var schema = tools.SchemaOf[args]()

// fetch is the state of one call: which hosts were approved, and which
// loopback and private addresses an approval named.
type fetch struct {
	rc       *tools.RunContext
	call     tools.Call
	approved map[string]bool
	// private are the loopback and private addresses an answer allowed in
	// this call: the dial reaches no other (a redirect to another one asks
	// again, naming it).
	private map[netip.Addr]bool
	// addrs are the addresses each approved name resolved to: the dial
	// uses them, so a name is looked up once, after its approval, and
	// cannot resolve elsewhere between the approval and the dial.
	addrs map[string][]netip.Addr
}

var errPrivate = errors.New("the host resolves to a loopback or private address that was not approved")

// Run implements tools.Tool.
func (Tool) Run(ctx context.Context, rc *tools.RunContext, call tools.Call) (tools.Result, error) {
	var a args
	if err := tools.Decode(call, &a); err != nil {
		return tools.Errorf("web_fetch: %v", err), nil
	}
	limit := DefaultMaxBytes
	if a.MaxBytes != nil {
		if *a.MaxBytes < 1 {
			return tools.Errorf("web_fetch: max_bytes must be at least 1"), nil
		}
		limit = min(limit, *a.MaxBytes)
	}
	u, err := checkURL(a.URL)
	if err != nil {
		return tools.Errorf("web_fetch: %v", err), nil
	}
	f := &fetch{rc: rc, call: call, approved: map[string]bool{}, private: map[netip.Addr]bool{}, addrs: map[string][]netip.Addr{}}
	// The first approval waits for the user without the fetch's timeout.
	if msg, err := f.approve(ctx, u); err != nil || msg != "" {
		if err != nil {
			return tools.Errorf("web_fetch: %s: %v", a.URL, err), nil
		}
		return tools.Errorf("%s", msg), nil
	}
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	dialer := &net.Dialer{Timeout: 10 * time.Second, Control: f.control}
	tr := &http.Transport{DialContext: f.dial(dialer), TLSHandshakeTimeout: 10 * time.Second,
		ResponseHeaderTimeout: Timeout, MaxIdleConns: 1, ForceAttemptHTTP2: true}
	defer tr.CloseIdleConnections()
	var refused string
	client := &http.Client{Transport: tr, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		for _, v := range via {
			if v.URL.String() == req.URL.String() {
				return fmt.Errorf("redirect loop: %s leads back to %s", via[len(via)-1].URL, req.URL)
			}
		}
		if len(via) > MaxRedirects {
			return fmt.Errorf("more than %d redirects (the last to %s)", MaxRedirects, req.URL)
		}
		if _, err := checkURL(req.URL.String()); err != nil {
			return fmt.Errorf("redirect to %s: %v", req.URL, err)
		}
		msg, err := f.approve(req.Context(), req.URL)
		if err == nil && msg != "" {
			refused = msg
			err = errors.New(msg)
		}
		return err
	}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return tools.Errorf("web_fetch: %v", err), nil
	}
	req.Header.Set("User-Agent", "Foya web_fetch")
	req.Header.Set("Accept", "text/html, text/markdown, text/plain, application/json, image/*;q=0.8, */*;q=0.5")
	resp, err := client.Do(req)
	if err != nil {
		if refused != "" {
			return tools.Errorf("%s", refused), nil
		}
		return tools.Errorf("web_fetch: %s", describe(ctx, err)), nil
	}
	defer resp.Body.Close()
	return f.read(ctx, a.URL, resp, limit), nil
}

// checkURL accepts http and https URLs with a host.
func checkURL(raw string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return nil, fmt.Errorf("%q is not a URL: %v", raw, err)
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
	case "":
		return nil, fmt.Errorf("%q has no scheme: give an http:// or https:// URL", raw)
	default:
		return nil, fmt.Errorf("the %s: scheme is not fetched: web_fetch fetches only http and https URLs", u.Scheme)
	}
	if u.Hostname() == "" {
		return nil, fmt.Errorf("%q has no host", raw)
	}
	return u, nil
}

// approve asks the gateway for u's host once per call. No name is looked
// up before the user (or a rule, a grant, the mode) allowed its host: a
// lookup is itself a message to the network (a model could carry data out
// in a name the user then refuses). A host that is, or whose name resolves
// to, a loopback or private address is then a question of its own
// (approval.FetchPrivate) naming the addresses, which no grant answers: a
// host allowed for the session is asked about again on each fetch that
// reaches such an address, so a name cannot be rebound to one unasked. It
// returns the refusal message, or an error when the host does not resolve.
func (f *fetch) approve(ctx context.Context, u *url.URL) (string, error) {
	host := strings.ToLower(u.Hostname())
	if f.approved[host] {
		return "", nil
	}
	var inside []netip.Addr
	if literal, err := netip.ParseAddr(host); err == nil {
		literal = literal.Unmap()
		if !private(literal) {
			if msg, err := f.ask(ctx, approval.Fetch, u, nil, "fetch "+u.String()); err != nil || msg != "" {
				return msg, err
			}
			f.approved[host] = true
			return "", nil
		}
		inside = []netip.Addr{literal}
	} else {
		if msg, err := f.ask(ctx, approval.Fetch, u, nil, "fetch "+u.String()+" (the host is looked up only once allowed)"); err != nil || msg != "" {
			return msg, err
		}
		addrs, err := lookup(ctx, "ip", host)
		if err != nil {
			return "", fmt.Errorf("host %s does not resolve: %v", host, err)
		}
		f.addrs[host] = addrs
		for _, ip := range addrs {
			if ip = ip.Unmap(); private(ip) && !slices.Contains(inside, ip) {
				inside = append(inside, ip)
			}
		}
	}
	if len(inside) > 0 {
		names := make([]string, len(inside))
		for i, ip := range inside {
			names[i] = ip.String()
		}
		why := fmt.Sprintf("fetch %s (host %s is a loopback or private address: %s)", u, host, strings.Join(names, ", "))
		if names[0] != host {
			why = fmt.Sprintf("fetch %s (host %s resolves to a loopback or private address: %s; asked on every fetch, "+
				"since a name can resolve elsewhere the next time)", u, host, strings.Join(names, ", "))
		}
		if msg, err := f.ask(ctx, approval.FetchPrivate, u, names, why); err != nil || msg != "" {
			return msg, err
		}
		for _, ip := range inside {
			f.private[ip] = true
		}
	}
	f.approved[host] = true
	return "", nil
}

// lookup resolves a host name; tests count its calls.
var lookup = net.DefaultResolver.LookupNetIP

// ask asks the gateway once about u's host (and, for approval.FetchPrivate,
// the private addresses it reaches), with u as the preview: the person sees
// the address that would be fetched, a redirect's included; it returns the
// refusal message.
func (f *fetch) ask(ctx context.Context, kind approval.Kind, u *url.URL, addrs []string, why string) (string, error) {
	host := strings.ToLower(u.Hostname())
	out, err := f.rc.Approve(ctx, approval.Request{CallID: f.call.ID, Why: why, Preview: u.String(),
		Action: approval.Action{Kind: kind, Tool: Name, Host: host, Addresses: addrs}})
	if err != nil {
		return "", err
	}
	if !out.Allowed {
		msg := out.Message
		if msg == "" {
			msg = "fetching " + host + " was not allowed"
			if len(addrs) > 0 {
				msg += " (it is the loopback or private address " + strings.Join(addrs, ", ") + ")"
			}
		}
		return "web_fetch: " + msg, nil
	}
	return "", nil
}

// dial connects to the addresses an approved name resolved to, one after
// the other, and to an IP address as it is; a host not approved in this
// call is never dialled (the redirect check approves each new host first).
func (f *fetch) dial(d *net.Dialer) func(ctx context.Context, network, address string) (net.Conn, error) {
	return func(ctx context.Context, network, address string) (net.Conn, error) {
		host, port, err := net.SplitHostPort(address)
		if err != nil {
			return nil, err
		}
		if _, err := netip.ParseAddr(host); err == nil {
			return d.DialContext(ctx, network, address)
		}
		addrs, ok := f.addrs[strings.ToLower(host)]
		if !ok {
			return nil, fmt.Errorf("dial %s: the host was not approved", host)
		}
		var last error
		for _, ip := range addrs {
			c, err := d.DialContext(ctx, network, net.JoinHostPort(ip.Unmap().String(), port))
			if err == nil {
				return c, nil
			}
			last = err
		}
		if last == nil {
			last = fmt.Errorf("dial %s: no address", host)
		}
		return nil, last
	}
}

// control checks the address actually dialled, so a name that resolved to
// a public address at approval and to a private one now (DNS rebinding) is
// refused, and so is a private address no answer of this call named.
func (f *fetch) control(_, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return err
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return fmt.Errorf("dial %s: not an IP address", address)
	}
	if ip = ip.Unmap(); private(ip) && !f.private[ip] {
		return errPrivate
	}
	return nil
}

// private reports loopback, private, link-local, unique-local and
// unspecified addresses.
func private(ip netip.Addr) bool {
	ip = ip.Unmap()
	return ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsInterfaceLocalMulticast() || ip.IsUnspecified() ||
		netip.MustParsePrefix("100.64.0.0/10").Contains(ip) // carrier-grade NAT
}

// describe words a transport error for the model.
func describe(ctx context.Context, err error) string {
	switch {
	case errors.Is(err, errPrivate):
		return errPrivate.Error() + "; ask again so the user sees the address"
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return fmt.Sprintf("no answer within %s", Timeout)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Op + " " + ue.URL + ": " + ue.Err.Error()
	}
	return err.Error()
}

// read turns the response into a result.
func (f *fetch) read(ctx context.Context, asked string, resp *http.Response, limit int64) tools.Result {
	final := resp.Request.URL.String()
	where := final
	if final != asked {
		where = fmt.Sprintf("%s (redirected from %s)", final, asked)
	}
	head := make([]byte, 512)
	n, herr := io.ReadFull(resp.Body, head)
	head = head[:n]
	kind := mediaType(resp.Header.Get("Content-Type"), head)
	class := classify(kind)
	if class == "" {
		size := "unknown size"
		if resp.ContentLength >= 0 {
			size = tools.Count(resp.ContentLength) + " bytes"
		}
		return tools.Errorf("web_fetch: %s is a %s file (%s); web_fetch returns only web pages, text, JSON and images",
			where, kind, size)
	}
	body := bytes.NewBuffer(head)
	var rerr error
	switch {
	case herr == nil:
		_, rerr = io.Copy(body, io.LimitReader(resp.Body, limit+1-int64(n)))
	case !errors.Is(herr, io.EOF) && !errors.Is(herr, io.ErrUnexpectedEOF):
		rerr = herr // the body stopped within its first bytes
	}
	data := body.Bytes()
	var notes []string
	if int64(len(data)) > limit {
		data = data[:limit]
		more := "more followed"
		if resp.ContentLength > limit {
			more = fmt.Sprintf("%s bytes left out of %s", tools.Count(resp.ContentLength-limit), tools.Count(resp.ContentLength))
		}
		notes = append(notes, fmt.Sprintf("[the body was cut at %s bytes; %s]", tools.Count(limit), more))
	} else if rerr != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			notes = append(notes, fmt.Sprintf("[the body was cut after %s: %s bytes had arrived]", Timeout, tools.Count(int64(len(data)))))
		} else {
			notes = append(notes, fmt.Sprintf("[the body ended early after %s bytes: %v]", tools.Count(int64(len(data))), rerr))
		}
	}
	status := resp.Status
	title := fmt.Sprintf("Fetched %s: %s, %s, %s bytes", where, status, kind, tools.Count(int64(len(data))))
	if class == "image" {
		if len(notes) > 0 {
			return tools.Errorf("web_fetch: %s is a %s image larger than %s bytes, or it did not arrive whole; it is not shown. %s",
				where, kind, tools.Count(limit), strings.Join(notes, " "))
		}
		return tools.Result{Text: title + ". The image is attached.",
			Images: []tools.Image{{MIME: kind, Data: bytes.Clone(data)}}}
	}
	text := strings.ToValidUTF8(string(data), "\uFFFD")
	if class == "html" {
		md, err := htmltomarkdown.ConvertString(text)
		if err != nil {
			return tools.Errorf("web_fetch: %s: the HTML could not be converted to Markdown: %v", where, err)
		}
		text = md
		title += ", converted to Markdown"
	}
	kept, cut := tools.Head(text, tools.DocumentLimits)
	out := title + "\n\n" + kept
	if cut.Truncated() {
		out += "\n" + cut.Notice("(fetch a more specific URL, or use max_bytes)")
	}
	for _, n := range notes {
		out += "\n" + n
	}
	return tools.Result{Text: out, IsError: resp.StatusCode >= 400}
}

// mediaType is the response's media type, sniffed when it names none.
func mediaType(header string, head []byte) string {
	if t, _, err := mime.ParseMediaType(header); err == nil && t != "" && t != "application/octet-stream" {
		return strings.ToLower(t)
	}
	t, _, _ := mime.ParseMediaType(http.DetectContentType(head))
	if t == "application/octet-stream" && utf8.Valid(head) && !bytes.ContainsRune(head, 0) && len(head) > 0 {
		return "text/plain"
	}
	return t
}

// classify says how a media type is returned: "html", "text", "image", or
// "" for a binary that is refused.
func classify(t string) string {
	switch {
	case t == "text/html" || t == "application/xhtml+xml":
		return "html"
	case strings.HasPrefix(t, "text/"), t == "application/json", strings.HasSuffix(t, "+json"),
		t == "application/xml", strings.HasSuffix(t, "+xml"), t == "application/javascript",
		t == "application/x-ndjson", t == "application/yaml", t == "application/toml":
		return "text"
	case t == "image/png", t == "image/jpeg", t == "image/gif", t == "image/webp":
		return "image"
	}
	return ""
}

var (
	_ tools.Tool     = Tool{}
	_ tools.Parallel = Tool{}
)
