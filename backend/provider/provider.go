package provider

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"iter"
	"math/rand/v2"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"foya/backend/llm"
)

// DefaultBaseURL is used when Config.BaseURL is empty.
const DefaultBaseURL = "https://api.openai.com/v1"

// Config configures a Client.
type Config struct {
	// BaseURL is the server's API root, for example http://127.0.0.1:8080/v1;
	// DefaultBaseURL when empty.
	BaseURL string
	APIKey  string
	// Model is used when a request names none.
	Model string
	// Headers are set on every request, after the standard ones, so they may
	// override them (for example an "api-key" header instead of the bearer).
	Headers map[string]string
	// MaxRetries is how many times a request is retried on 429, 5xx or a
	// connection error, before the first delta only; 3 when 0, none when
	// negative.
	MaxRetries int
	// HTTPClient sends the requests; a client without an overall timeout
	// (streams are long) when nil.
	HTTPClient *http.Client
	// IdleTimeout stops a request when the server sends nothing for this
	// long, from the request on: no headers, no byte of the stream (a
	// keep-alive comment counts). DefaultIdleTimeout when 0, none when
	// negative.
	IdleTimeout time.Duration
	// ToolCalls says whether tool calls a model wrote as text are read as
	// calls, for servers that do not parse them: ToolCallsAuto (when "")
	// reads them only from an answer without native calls to a request
	// that offered tools, ToolCallsText whenever tools were offered,
	// ToolCallsNative never.
	ToolCalls string
}

// DefaultIdleTimeout is how long a model may send nothing before its
// stream is stopped.
const DefaultIdleTimeout = 120 * time.Second

// IdleError ends a stream the server stopped sending in. It is not
// retried: a server that stalls once mostly stalls again, and each try
// would keep the user waiting as long.
type IdleError struct {
	After time.Duration // the idle timeout that expired
}

func (e *IdleError) Error() string {
	return fmt.Sprintf("the model sent nothing for %s s: the stream was stopped (setting provider.idleTimeout)",
		strconv.FormatFloat(e.After.Seconds(), 'f', -1, 64))
}

// Client streams chat completions from one OpenAI-compatible server. It is
// safe for concurrent use.
type Client struct {
	cfg     Config
	http    *http.Client
	retries int
	// backoff is the first retry's delay; each next one doubles, up to
	// maxBackoff. Tests shorten it.
	backoff time.Duration
}

const (
	defaultRetries = 3
	defaultBackoff = 250 * time.Millisecond
	maxBackoff     = 4 * time.Second
)

// New checks cfg and returns a Client: the model is required and the base URL
// must be an absolute http or https URL.
func New(cfg Config) (*Client, error) {
	if strings.TrimSpace(cfg.Model) == "" {
		return nil, errors.New("provider: model is required")
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultBaseURL
	}
	u, err := url.Parse(cfg.BaseURL)
	if err != nil {
		return nil, fmt.Errorf("provider: base URL %q: %w", cfg.BaseURL, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("provider: base URL %q: want an http:// or https:// URL with a host", cfg.BaseURL)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("provider: base URL %q: must not have a query or fragment", cfg.BaseURL)
	}
	if strings.ContainsAny(cfg.APIKey, "\r\n") {
		return nil, errors.New("provider: API key must not contain line breaks")
	}
	for k, v := range cfg.Headers {
		if !validHeaderName(k) {
			return nil, fmt.Errorf("provider: header name %q is not valid", k)
		}
		if strings.ContainsAny(v, "\r\n\x00") {
			return nil, fmt.Errorf("provider: header %q: value must not contain line breaks", k)
		}
	}
	if !ValidToolCallsMode(cfg.ToolCalls) {
		return nil, fmt.Errorf("provider: tool-call mode %q: want auto, native or text", cfg.ToolCalls)
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	}
	retries := cfg.MaxRetries
	switch {
	case retries == 0:
		retries = defaultRetries
	case retries < 0:
		retries = 0
	}
	if cfg.IdleTimeout == 0 {
		cfg.IdleTimeout = DefaultIdleTimeout
	}
	headers := make(map[string]string, len(cfg.Headers))
	for k, v := range cfg.Headers {
		headers[k] = v
	}
	cfg.Headers = headers
	return &Client{cfg: cfg, http: hc, retries: retries, backoff: defaultBackoff}, nil
}

func validHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte("()<>@,;:\\\"/[]?={}", c) >= 0 {
			return false
		}
	}
	return true
}

// Name returns the provider's kind, "openai-compatible".
func (c *Client) Name() string { return "openai-compatible" }

// Model returns the model used when a request names none.
func (c *Client) Model() string { return c.cfg.Model }

// Stream sends one chat-completions request with stream=true and yields
// normalised deltas: reasoning, text, tool-call pieces (the first delta of
// each call has its Index, a non-empty ID and its Name; later ones append
// Args), then usage, then DeltaDone. On any failure it yields (zero, err)
// once and stops; a stream that did not complete never yields DeltaDone.
// Requests are retried on 429, 5xx and connection errors until the first
// delta was yielded, never after. When ctx is cancelled it stops and yields
// an error wrapping ctx.Err().
func (c *Client) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Delta, error] {
	return func(yield func(llm.Delta, error) bool) {
		model := req.Model
		if model == "" {
			model = c.cfg.Model
		}
		body, err := requestBody(model, req)
		if err != nil {
			yield(llm.Delta{}, err)
			return
		}
		out := &output{yield: yield}
		for attempt := 0; ; attempt++ {
			wait, err := c.attempt(ctx, model, body, req.Tools, out)
			if err == nil || out.stopped {
				return
			}
			if ctx.Err() != nil {
				yield(llm.Delta{}, fmt.Errorf("provider: %w", ctx.Err()))
				return
			}
			if out.yielded || attempt >= c.retries || !retryable(err) || wait > maxRetryAfter {
				var pe *Error
				if attempt > 0 && !errors.As(err, &pe) {
					// An *Error stays bare for callers that assert its type.
					err = fmt.Errorf("%w (after %d attempts)", err, attempt+1)
				}
				yield(llm.Delta{}, err)
				return
			}
			if wait < 0 {
				wait = c.delay(attempt)
			}
			if err := sleep(ctx, wait); err != nil {
				yield(llm.Delta{}, fmt.Errorf("provider: %w", err))
				return
			}
		}
	}
}

// delay is the backoff before retry number attempt+1: doubling, capped, with
// a little jitter so that clients do not retry in step.
func (c *Client) delay(attempt int) time.Duration {
	d := c.backoff << min(attempt, 16)
	if d > maxBackoff || d <= 0 {
		d = maxBackoff
	}
	return d + rand.N(d/4+1)
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// output hands deltas to the consumer and remembers whether any was handed
// (no retry after that) and whether the consumer stopped.
type output struct {
	yield   func(llm.Delta, error) bool
	yielded bool
	stopped bool
}

func (o *output) emit(ds []llm.Delta) bool {
	for _, d := range ds {
		o.yielded = true
		if !o.yield(d, nil) {
			o.stopped = true
			return false
		}
	}
	return true
}

// connError marks a failure to reach the server or to get its answer's
// headers: worth a retry.
type connError struct{ err error }

func (e *connError) Error() string { return "provider: " + e.err.Error() }
func (e *connError) Unwrap() error { return e.err }

func retryable(err error) bool {
	var pe *Error
	var ce *connError
	var certErr *tls.CertificateVerificationError
	switch {
	case errors.As(err, &pe):
		return pe.Retryable
	case errors.As(err, &certErr):
		return false
	case errors.As(err, &ce):
		return true
	case errors.As(err, new(*IdleError)):
		return false
	case errors.Is(err, ErrStreamCut):
		return true // nothing was yielded yet, or we would not be asked
	}
	return false
}

// attempt sends the request once and streams its answer into out. wait is
// the server's Retry-After, or -1 when it sent none. go-openai builds the
// HTTP request and maps error answers; the body it would encode is replaced
// by this package's (see requestBody), so the history is not encoded again
// at every step.
func (c *Client) attempt(parent context.Context, model string, body *body, tools []llm.ToolSchema, out *output) (wait time.Duration, err error) {
	ctx, idle := c.watchIdle(parent)
	defer idle.stop()
	defer func() {
		// A request the idle timer stopped fails with whatever the
		// transport says; say why instead.
		if err != nil && parent.Err() == nil && idle.fired() {
			wait, err = -1, &IdleError{After: c.cfg.IdleTimeout}
		}
	}()
	x := &exchange{client: c.http, headers: c.cfg.Headers, idle: idle, send: body}
	oc := openai.NewClientWithConfig(c.openaiConfig(x))
	stream, err := oc.CreateChatCompletionStream(ctx, openai.ChatCompletionRequest{Model: model})
	if err != nil {
		x.close()
		wait = -1
		if x.resp != nil {
			if d, ok := parseRetryAfter(x.resp.Header.Get("Retry-After"), time.Now()); ok {
				wait = d
			}
		}
		switch e := httpError(err); {
		case ctx.Err() != nil:
			return wait, fmt.Errorf("provider: %w", ctx.Err())
		case e != nil:
			return wait, e
		case x.doErr != nil:
			return wait, &connError{err: err}
		}
		return wait, fmt.Errorf("provider: %w", err)
	}
	defer stream.Close()
	if x.body == nil {
		return -1, errors.New("provider: no response body") // cannot happen: Do set it
	}
	ct, _, _ := mime.ParseMediaType(x.resp.Header.Get("Content-Type"))
	if ct == "application/json" {
		return -1, c.readWhole(ctx, x.body, tools, out)
	}
	return -1, c.readStream(ctx, x.body, tools, out)
}

func (c *Client) openaiConfig(x *exchange) openai.ClientConfig {
	cfg := openai.DefaultConfig(c.cfg.APIKey)
	cfg.BaseURL = c.cfg.BaseURL
	cfg.HTTPClient = x
	return cfg
}

// readStream reads an SSE body to its end or to the first error.
func (c *Client) readStream(ctx context.Context, body io.Reader, tools []llm.ToolSchema, out *output) error {
	r := newSSEReader(body)
	a := newAssembler()
	a.readTextCalls(c.cfg.ToolCalls, tools)
	for {
		ev, err := r.Next()
		if err != nil {
			switch {
			case ctx.Err() != nil:
				return fmt.Errorf("provider: %w", ctx.Err())
			case errors.Is(err, errLineTooLong):
				return fmt.Errorf("provider: %w", err)
			case a.sawFinish:
				// Some servers omit [DONE]; a finish_reason means the
				// answer is complete.
				return c.end(a, out)
			}
			return a.cutError(err)
		}
		done, err := a.feed(ev)
		if err != nil {
			return err
		}
		if !out.emit(a.out) {
			return nil
		}
		a.out = a.out[:0]
		if done {
			return c.end(a, out)
		}
	}
}

// readWhole handles a server that ignored stream=true and answered with one
// JSON document.
func (c *Client) readWhole(ctx context.Context, body io.Reader, tools []llm.ToolSchema, out *output) error {
	data, err := io.ReadAll(io.LimitReader(body, maxLine+1))
	switch {
	case ctx.Err() != nil:
		return fmt.Errorf("provider: %w", ctx.Err())
	case err != nil:
		return fmt.Errorf("provider: %w: %w", ErrStreamCut, err)
	case len(data) > maxLine:
		return fmt.Errorf("provider: %w", errLineTooLong)
	}
	a := newAssembler()
	a.readTextCalls(c.cfg.ToolCalls, tools)
	if _, err := a.feed(sseEvent{Data: data}); err != nil {
		return err
	}
	if !a.sawFinish {
		return a.cutError(nil)
	}
	if !out.emit(a.out) {
		return nil
	}
	a.out = a.out[:0]
	return c.end(a, out)
}

func (c *Client) end(a *assembler, out *output) error {
	if err := a.end(); err != nil {
		return err
	}
	out.emit(a.out)
	return nil
}

// exchange is the HTTPDoer given to go-openai for one attempt. It adds the
// configured headers and takes over the body of a successful response, so
// that this package reads the stream with its own reader; go-openai keeps a
// body that reads nothing and whose Close closes the real one.
type exchange struct {
	client  *http.Client
	headers map[string]string
	send    *body // the request body sent instead of go-openai's
	resp    *http.Response
	body    io.ReadCloser
	doErr   error
	idle    *idleWatch
}

// maxErrorBody bounds how much of an error response is read.
const maxErrorBody = 1 << 20

func (x *exchange) Do(req *http.Request) (*http.Response, error) {
	if x.send != nil {
		req.Body = x.send.reader()
		req.ContentLength = x.send.size
		req.GetBody = func() (io.ReadCloser, error) { return x.send.reader(), nil }
	}
	for k, v := range x.headers {
		req.Header.Set(k, v)
	}
	resp, err := x.client.Do(req)
	if err != nil {
		x.doErr = err
		return nil, err
	}
	x.resp = resp
	if resp.StatusCode < http.StatusOK || resp.StatusCode >= http.StatusBadRequest {
		resp.Body = limitedBody{Reader: io.LimitReader(resp.Body, maxErrorBody), Closer: resp.Body}
		return resp, nil
	}
	x.body = x.idle.body(resp.Body)
	handed := *resp
	handed.Body = limitedBody{Reader: strings.NewReader(""), Closer: resp.Body}
	return &handed, nil
}

// close closes the body of a response go-openai did not close (it leaves
// error responses open).
func (x *exchange) close() {
	if x.resp != nil {
		x.resp.Body.Close()
	}
}

type limitedBody struct {
	io.Reader
	io.Closer
}
