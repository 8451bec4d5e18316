package server

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"net"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"

	"foya/backend/api"
	"foya/backend/event"
	"foya/backend/kernel"
	"foya/backend/llm"
)

// Defaults of Options.
const (
	DefaultClientBuffer = 1024
	DefaultHeartbeat    = 15 * time.Second
	DefaultWriteTimeout = 10 * time.Second
	DefaultIdleTimeout  = 30 * time.Second
	// MaxBody bounds the body of a call (a message of 8 MiB is accepted by
	// foya exec too).
	MaxBody = 9 << 20
	// MaxImageBody bounds the body of an AddImage call: an image of
	// kernel.MaxImageBytes, base64, with room to spare, so that one a
	// little over the limit reaches the kernel and is refused in its words.
	MaxImageBody = kernel.MaxImageBytes/3*4 + 4<<20
)

// Options configure Listen.
type Options struct {
	// Kernel is the kernel served; it must stay open until Serve returns.
	Kernel *kernel.Kernel
	// Service is the API served at /api/call; nil means api.New over
	// Kernel with the context of Serve.
	Service *api.Service
	// Assets is the built front end (index.html at its root); nil serves a
	// page saying the front end is not built.
	Assets fs.FS
	// Addr is host:port to listen on. The host must be 127.0.0.1, ::1 or
	// localhost (all three bind both loopback addresses); "" means
	// 127.0.0.1:0, a free port.
	Addr string
	// Token guards every request; "" means a random one.
	Token string
	// ClientBuffer is how many events an SSE client may lag behind before
	// it is dropped (0: DefaultClientBuffer).
	ClientBuffer int
	// Heartbeat is the interval of SSE comment lines (0: DefaultHeartbeat).
	Heartbeat time.Duration
	// WriteTimeout bounds each write to an SSE client (0:
	// DefaultWriteTimeout).
	WriteTimeout time.Duration
	// IdleTimeout closes a keep-alive connection that has waited this long
	// for its next request (0: DefaultIdleTimeout).
	IdleTimeout time.Duration
	// SendBuffer, if > 0, sets each connection's socket send buffer (tests
	// of a client that does not read use a small one).
	SendBuffer int
}

// Server is a listening foya serve.
type Server struct {
	opts  Options
	k     *kernel.Kernel
	lns   []net.Listener
	port  int
	token string
	hosts map[string]bool // allowed Host values

	mu      sync.Mutex
	clients map[*client]struct{}
	dropped int // clients dropped for lagging, over the server's life
	unsub   func()
	done    chan struct{} // closed when Serve starts shutting down
}

// Listen validates o and binds the loopback addresses. The server does not
// answer until Serve.
func Listen(o Options) (*Server, error) {
	if o.Kernel == nil {
		return nil, errors.New("server: no kernel")
	}
	if o.Addr == "" {
		o.Addr = "127.0.0.1:0"
	}
	if o.ClientBuffer <= 0 {
		o.ClientBuffer = DefaultClientBuffer
	}
	if o.Heartbeat <= 0 {
		o.Heartbeat = DefaultHeartbeat
	}
	if o.WriteTimeout <= 0 {
		o.WriteTimeout = DefaultWriteTimeout
	}
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = DefaultIdleTimeout
	}
	host, portText, err := net.SplitHostPort(o.Addr)
	if err != nil {
		return nil, fmt.Errorf("listen address %q: %w", o.Addr, err)
	}
	switch host {
	case "127.0.0.1", "::1", "localhost":
	default:
		return nil, fmt.Errorf("listen address %q: foya serve listens on the loopback interface only (127.0.0.1, ::1, localhost), never on %q", o.Addr, host)
	}
	port, err := strconv.Atoi(portText)
	if err != nil || port < 0 || port > 65535 {
		return nil, fmt.Errorf("listen address %q: the port must be a number from 0 to 65535", o.Addr)
	}
	token := o.Token
	if token == "" {
		b := make([]byte, 32)
		if _, err := rand.Read(b); err != nil {
			return nil, fmt.Errorf("make a token: %w", err)
		}
		token = hex.EncodeToString(b)
	}
	ln4, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return nil, fmt.Errorf("listen on 127.0.0.1: %w", err)
	}
	s := &Server{opts: o, k: o.Kernel, lns: []net.Listener{ln4}, token: token,
		clients: map[*client]struct{}{}, done: make(chan struct{})}
	s.port = ln4.Addr().(*net.TCPAddr).Port
	// [::1] on the same port, where there is IPv6: browsers may resolve
	// localhost to it first.
	if ln6, err := net.Listen("tcp", net.JoinHostPort("::1", strconv.Itoa(s.port))); err == nil {
		s.lns = append(s.lns, ln6)
	}
	p := strconv.Itoa(s.port)
	s.hosts = map[string]bool{"127.0.0.1:" + p: true, "localhost:" + p: true, "[::1]:" + p: true}
	return s, nil
}

// URL is the address to open, with the token in its fragment: the first
// line foya serve prints. A browser never sends the fragment over the
// network; the page takes the token from it, keeps it in sessionStorage
// and removes it from the address bar.
func (s *Server) URL() string {
	return fmt.Sprintf("http://127.0.0.1:%d/#token=%s", s.port, s.token)
}

// Base is the server's address without the token.
func (s *Server) Base() string { return fmt.Sprintf("http://127.0.0.1:%d", s.port) }

// Token is the token that guards the server.
func (s *Server) Token() string { return s.token }

// Dropped returns how many SSE clients were dropped for not reading.
func (s *Server) Dropped() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dropped
}

// Serve answers requests until ctx ends, then shuts down gracefully: SSE
// streams end, calls under way get up to five seconds to finish. It
// returns nil after a shutdown that ctx asked for.
func (s *Server) Serve(ctx context.Context) error {
	svc := s.opts.Service
	if svc == nil {
		svc = api.New(ctx, func() (*kernel.Kernel, error) { return s.k, nil })
	}
	s.unsub = s.k.Subscribe(s.fanout)
	defer s.unsub()
	// Notices go to the all-sessions streams only: a session's stream
	// resumes by seq, which a notice has not.
	defer s.k.SubscribeNotices(s.fanout)()
	hs := &http.Server{
		Handler:           s.handler(svc),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       s.opts.IdleTimeout,
		ConnContext: func(ctx context.Context, c net.Conn) context.Context {
			if tc, ok := c.(*net.TCPConn); ok && s.opts.SendBuffer > 0 {
				_ = tc.SetWriteBuffer(s.opts.SendBuffer)
			}
			return ctx
		},
	}
	errs := make(chan error, len(s.lns))
	for _, ln := range s.lns {
		go func() { errs <- hs.Serve(ln) }()
	}
	select {
	case err := <-errs:
		close(s.done)
		hs.Close()
		return err
	case <-ctx.Done():
	}
	close(s.done) // SSE handlers return
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		hs.Close()
		return fmt.Errorf("shut down: %w", err)
	}
	return nil
}

// pageCSP is the Content Security Policy of the front end's files. Script
// runs only from this origin's files (no inline script, no eval) and talks
// only to this origin; nothing may frame the page. Inline styles stay
// allowed: Radix's dialogs and scroll areas add <style> elements, and a
// style cannot reach the token.
const pageCSP = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; " +
	"img-src 'self' data: blob:; font-src 'self' data:; connect-src 'self'; " +
	"object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// handler is the whole HTTP surface: the Host check, then the API behind
// the token, and the front end's files.
func (s *Server) handler(svc *api.Service) http.Handler {
	table := methods(svc)
	apiMux := http.NewServeMux()
	apiMux.HandleFunc("POST /api/call/{method}", func(w http.ResponseWriter, r *http.Request) {
		s.call(w, r, table)
	})
	apiMux.HandleFunc("GET /api/sessions", s.sessions)
	apiMux.HandleFunc("GET /api/sessions/{id}/events", s.sessionEvents)
	apiMux.HandleFunc("GET /api/events", s.allEvents)
	apiMux.HandleFunc("GET /api/sessions/{id}/artifacts/{artifact}", s.artifact)
	apiMux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "not_found", fmt.Sprintf("no API route %s %s (calls are POST /api/call/METHOD)", r.Method, r.URL.Path))
	})
	mux := http.NewServeMux()
	mux.Handle("/api/", s.authorized(apiMux))
	mux.Handle("/", page(s.assets()))
	return s.hostOnly(mux)
}

// hostOnly refuses a request whose Host is not this server (a DNS-rebinding
// page has its own host name there) before anything else runs.
func (s *Server) hostOnly(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.hosts[strings.ToLower(r.Host)] {
			writeError(w, http.StatusForbidden, "forbidden", fmt.Sprintf("host %q is not this server: open %s", r.Host, s.Base()))
			return
		}
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Frame-Options", "DENY")
		next.ServeHTTP(w, r)
	})
}

// page serves the front end's files. They are the same for everyone and
// hold no data, so they need no token: the page takes the token from the
// URL's fragment and sends it as a bearer header with every API request.
// No cookie is ever set: a cookie is not scoped to a port, so the browser
// would hand it to every other server on 127.0.0.1.
func page(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			writeError(w, http.StatusMethodNotAllowed, "invalid", fmt.Sprintf("%s %s: the pages are read with GET; calls are POST /api/call/METHOD", r.Method, r.URL.Path))
			return
		}
		w.Header().Set("Content-Security-Policy", pageCSP)
		next.ServeHTTP(w, r)
	})
}

// authorized lets through an API request that carries Authorization:
// Bearer TOKEN, and a state-changing one only when its Origin, if any, is
// this server.
func (s *Server) authorized(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth := r.Header.Get("Authorization")
		t, bearer := strings.CutPrefix(auth, "Bearer ")
		switch {
		case auth == "":
			writeError(w, http.StatusUnauthorized, "unauthorized", "no token: open the link foya serve printed (the page keeps its token for this tab), or send Authorization: Bearer TOKEN")
			return
		case !bearer || !s.tokenOK(t):
			writeError(w, http.StatusUnauthorized, "unauthorized", "the bearer token is wrong: open the link foya serve printed this time, or send the token from it")
			return
		}
		switch r.Method {
		case http.MethodGet, http.MethodHead, http.MethodOptions:
		default:
			// A page elsewhere cannot know the token; this refuses one that
			// does all the same, and documents who may call.
			if origin := r.Header.Get("Origin"); origin != "" && !s.originOK(origin) {
				writeError(w, http.StatusForbidden, "forbidden", fmt.Sprintf("origin %q is not this server: changes are accepted only from %s", origin, s.Base()))
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

func (s *Server) tokenOK(t string) bool {
	return subtle.ConstantTimeCompare([]byte(t), []byte(s.token)) == 1
}

func (s *Server) originOK(origin string) bool {
	u, err := url.Parse(origin)
	return err == nil && u.Scheme == "http" && u.Path == "" && s.hosts[strings.ToLower(u.Host)]
}

// statusOf is the HTTP status of an API error code.
func statusOf(code string) int {
	switch code {
	case kernel.CodeNotFound:
		return http.StatusNotFound
	case kernel.CodeInvalid:
		return http.StatusBadRequest
	case kernel.CodeConflict, kernel.CodeBusy:
		return http.StatusConflict
	case kernel.CodeUnavailable:
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}

func writeError(w http.ResponseWriter, status int, code, msg string) {
	writeJSON(w, status, &api.Error{Code: code, Message: msg})
}

func writeAPIError(w http.ResponseWriter, err error) {
	e := api.AsError(err)
	writeJSON(w, statusOf(e.Code), e)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		b, _ = json.Marshal(&api.Error{Code: kernel.CodeInternal, Message: "encode the answer: " + err.Error()})
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

// call is POST /api/call/{method}.
func (s *Server) call(w http.ResponseWriter, r *http.Request, table map[string]method) {
	name := r.PathValue("method")
	m, ok := table[name]
	if !ok {
		writeError(w, http.StatusNotFound, "not_found", fmt.Sprintf("no method %q: see frontend/src/backend/gen/api.ts for the methods", name))
		return
	}
	limit, tooBigMsg := int64(MaxBody), fmt.Sprintf("the body of a call may be at most %d bytes", MaxBody)
	if name == "AddImage" {
		limit, tooBigMsg = MaxImageBody, fmt.Sprintf("the image is larger than the %d MB images are limited to: attach a smaller one", kernel.MaxImageBytes/1_000_000)
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			writeError(w, http.StatusRequestEntityTooLarge, "invalid", tooBigMsg)
			return
		}
		writeError(w, http.StatusBadRequest, "invalid", "read the body: "+err.Error())
		return
	}
	args, err := m.decodeArgs(body)
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid", err.Error())
		return
	}
	res, err := m.invoke(args)
	if err != nil {
		writeAPIError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, res)
}

// sessions is GET /api/sessions: the Sessions call's JSON.
func (s *Server) sessions(w http.ResponseWriter, r *http.Request) {
	list, err := s.k.Sessions(r.Context())
	if err != nil {
		writeAPIError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, list)
}

// artifact is GET /api/sessions/{id}/artifacts/{artifact}.
func (s *Server) artifact(w http.ResponseWriter, r *http.Request) {
	a, err := s.k.Artifact(r.Context(), r.PathValue("id"), r.PathValue("artifact"))
	if err != nil {
		writeAPIError(w, err)
		return
	}
	ct := a.MIME
	if ct == "" {
		ct = "application/octet-stream"
	}
	name := a.ID
	if exts, _ := mime.ExtensionsByType(ct); len(exts) > 0 {
		name += exts[0]
	}
	h := w.Header()
	h.Set("Content-Type", ct)
	h.Set("Content-Length", strconv.Itoa(len(a.Data)))
	h.Set("Content-Disposition", mime.FormatMediaType("inline", map[string]string{"filename": name}))
	// An artifact is data, never a page of ours: no script, no fetches.
	h.Set("Content-Security-Policy", "sandbox; default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'")
	h.Set("Cache-Control", "private, max-age=31536000, immutable")
	w.Write(a.Data)
}

// assets serves the front end; a path that is not a file gets index.html,
// so that the single-page app's routes survive a reload.
func (s *Server) assets() http.Handler {
	if s.opts.Assets == nil {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, "the front end is not in this build: build it with make frontend, then the binary again\n")
		})
	}
	files := http.FileServerFS(s.opts.Assets)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := strings.TrimPrefix(path.Clean(r.URL.Path), "/")
		if p != "" {
			if fi, err := fs.Stat(s.opts.Assets, p); err != nil || fi.IsDir() {
				r = r.Clone(r.Context())
				r.URL.Path = "/"
			}
		}
		if r.URL.Path == "/" {
			w.Header().Set("Cache-Control", "no-cache")
		}
		files.ServeHTTP(w, r)
	})
}

// event is the SSE framing of one event: "id: <seq>" and its JSON
// envelope, no event: line, so that EventSource.onmessage gets them all.
func frame(buf []byte, ev llm.Event) ([]byte, error) {
	b, err := json.Marshal(ev)
	if err != nil {
		return buf, err
	}
	// A notice has no seq: with no id line, the stream's last event ID
	// stays that of the last stored event.
	if !event.IsNotice(ev.Type) {
		buf = append(buf, "id: "...)
		buf = strconv.AppendInt(buf, ev.Seq, 10)
		buf = append(buf, '\n')
	}
	buf = append(buf, "data: "...)
	buf = append(buf, b...)
	return append(buf, "\n\n"...), nil
}
