package provider_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"foya/backend/llm"
	"foya/backend/provider"
	"foya/backend/provider/providertest"
)

func TestHTTPErrors(t *testing.T) {
	tests := []struct {
		name      string
		turn      providertest.Turn
		wantErr   string
		status    int
		retryable bool
		requests  int // with MaxRetries 2
	}{
		{"401 bad key", providertest.Turn{Status: 401, ErrorMessage: "invalid api key"},
			"provider: 401 Unauthorized: invalid api key", 401, false, 1},
		{"404 model not found", providertest.Turn{Status: 404, ErrorMessage: `model "nope" not found, try pulling it first`},
			`provider: 404 Not Found: model "nope" not found, try pulling it first`, 404, false, 1},
		{"400 bad request", providertest.Turn{Status: 400, ErrorMessage: "messages: tool_call_id missing"},
			"provider: 400 Bad Request: messages: tool_call_id missing", 400, false, 1},
		{"429 rate limited", providertest.Turn{Status: 429, ErrorMessage: "slow down"},
			"provider: 429 Too Many Requests: slow down", 429, true, 3},
		{"500 server error", providertest.Turn{Status: 500, ErrorMessage: "boom"},
			"provider: 500 Internal Server Error: boom", 500, true, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := providertest.New(t, tt.turn, tt.turn, tt.turn, providertest.Say("too late"))
			c := newClient(t, srv.URL, func(cfg *provider.Config) { cfg.MaxRetries = 2 })
			r := collect(t, c, userReq("hi"))
			pe, ok := r.Err.(*provider.Error)
			if !ok {
				t.Fatalf("err = %v (%T); want *provider.Error, even after retries", r.Err, r.Err)
			}
			if !strings.HasPrefix(r.Err.Error(), tt.wantErr) {
				t.Errorf("Error() = %q; want it to start with %q", r.Err, tt.wantErr)
			}
			if pe.Status != tt.status || pe.Retryable != tt.retryable {
				t.Errorf("status %d retryable %v; want %d %v", pe.Status, pe.Retryable, tt.status, tt.retryable)
			}
			if got := len(srv.Requests()); got != tt.requests {
				t.Errorf("server got %d requests; want %d", got, tt.requests)
			}
			if len(r.Deltas) != 0 {
				t.Errorf("got deltas %+v before an HTTP error", r.Deltas)
			}
		})
	}
}

func TestHTTPErrorExactMessage(t *testing.T) {
	srv := providertest.New(t, providertest.Turn{Status: 401, ErrorMessage: "invalid api key"})
	r := collect(t, newClient(t, srv.URL), userReq("hi"))
	if r.Err == nil || r.Err.Error() != "provider: 401 Unauthorized: invalid api key" {
		t.Errorf("err = %v; want provider: 401 Unauthorized: invalid api key", r.Err)
	}
}

func TestHTTPErrorNonJSONBody(t *testing.T) {
	tests := []struct {
		name   string
		status int
		body   string
		want   string
	}{
		{"html from a proxy", 502, "<html><body><h1>502 Bad Gateway</h1>\n nginx</body></html>", "provider: 502 Bad Gateway: <html><body><h1>502 Bad Gateway</h1> nginx</body></html>"},
		{"plain 404 of a wrong path", 404, "404 page not found\n", "provider: 404 Not Found: 404 page not found; check the base URL"},
		{"empty body", 503, "", "provider: 503 Service Unavailable: empty response body"},
		{"long body is shortened", 500, strings.Repeat("é", 1000), "…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/html")
				w.WriteHeader(tt.status)
				io.WriteString(w, tt.body)
			}))
			defer srv.Close()
			c := newClient(t, srv.URL+"/v1", func(cfg *provider.Config) { cfg.MaxRetries = -1 })
			r := collect(t, c, userReq("hi"))
			var pe *provider.Error
			if !errors.As(r.Err, &pe) || pe.Status != tt.status {
				t.Fatalf("err = %v; want *provider.Error with status %d", r.Err, tt.status)
			}
			if !strings.Contains(r.Err.Error(), tt.want) {
				t.Errorf("Error() = %q; want it to contain %q", r.Err, tt.want)
			}
			if len(pe.Message) > 400 {
				t.Errorf("message of %d bytes; want it shortened", len(pe.Message))
			}
		})
	}
}

func TestConnectionRefused(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	c := newClient(t, "http://"+addr+"/v1", func(cfg *provider.Config) { cfg.MaxRetries = 1 })
	r := collect(t, c, userReq("hi"))
	if r.Err == nil || !strings.Contains(r.Err.Error(), "connection refused") {
		t.Fatalf("err = %v; want one naming the refused connection", r.Err)
	}
	if !strings.Contains(r.Err.Error(), "after 2 attempts") {
		t.Errorf("err = %v; want it to say it tried twice", r.Err)
	}
	var opErr *net.OpError
	if !errors.As(r.Err, &opErr) {
		t.Errorf("err = %v; want it to wrap the *net.OpError", r.Err)
	}
}

func TestRetryThenSucceed(t *testing.T) {
	tests := []struct {
		name string
		turn providertest.Turn
	}{
		{"503", providertest.Turn{Status: 503, ErrorMessage: "loading model"}},
		{"429 with Retry-After 0", providertest.Turn{Status: 429, Header: map[string]string{"Retry-After": "0"}}},
		{"cut before any delta", providertest.Turn{Raw: []string{`data: {"choices":[{"index":0,"delta":{"role":"assistant"}}]}`}, CutAfter: 1, Abort: true}},
		{"in-stream server error before any delta", providertest.Turn{Raw: []string{`data: {"error":{"message":"overloaded","type":"server_error"}}`}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := providertest.New(t, tt.turn, providertest.Say("recovered"))
			r := collect(t, newClient(t, srv.URL), userReq("hi"))
			if r.Err != nil {
				t.Fatalf("Stream: %v", r.Err)
			}
			if r.Text != "recovered" {
				t.Errorf("text = %q; want recovered, once", r.Text)
			}
			if n := len(srv.Requests()); n != 2 {
				t.Errorf("server got %d requests; want 2", n)
			}
		})
	}
}

func TestNoRetries(t *testing.T) {
	srv := providertest.New(t, providertest.Turn{Status: 500}, providertest.Say("unused"))
	c := newClient(t, srv.URL, func(cfg *provider.Config) { cfg.MaxRetries = -1 })
	r := collect(t, c, userReq("hi"))
	var pe *provider.Error
	if !errors.As(r.Err, &pe) || pe.Status != 500 {
		t.Fatalf("err = %v; want the 500", r.Err)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("server got %d requests; want 1 with retries off", n)
	}
}

func TestDefaultRetriesAreThree(t *testing.T) {
	turn := providertest.Turn{Status: 502}
	srv := providertest.New(t, turn, turn, turn, turn, turn)
	r := collect(t, newClient(t, srv.URL), userReq("hi"))
	if r.Err == nil {
		t.Fatal("want an error")
	}
	if n := len(srv.Requests()); n != 4 {
		t.Errorf("server got %d requests; want 1 + 3 retries", n)
	}
}

func TestLongRetryAfterIsNotAwaited(t *testing.T) {
	srv := providertest.New(t,
		providertest.Turn{Status: 429, ErrorMessage: "quota", Header: map[string]string{"Retry-After": "3600"}},
		providertest.Say("unused"))
	r := collect(t, newClient(t, srv.URL), userReq("hi"))
	var pe *provider.Error
	if !errors.As(r.Err, &pe) || pe.Status != 429 {
		t.Fatalf("err = %v; want the 429", r.Err)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("server got %d requests; want no retry when Retry-After is an hour", n)
	}
}

func TestNeverRetryAfterADelta(t *testing.T) {
	srv := providertest.New(t,
		providertest.Turn{Text: "one two three", CutAfter: 1, Abort: true},
		providertest.Say("must not be asked for"))
	r := collect(t, newClient(t, srv.URL), userReq("hi"))
	if r.Err == nil || r.Done {
		t.Fatalf("err %v done %v; want a failed stream", r.Err, r.Done)
	}
	if r.Text == "" {
		t.Fatal("no text came before the cut")
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("server got %d requests; want 1: nothing is retried after a delta", n)
	}
}

func TestCancelWhileStreaming(t *testing.T) {
	hold := make(chan struct{}) // never closed: only cancellation ends the stream
	srv := providertest.New(t, providertest.Turn{Text: "first second third", Hold: hold})
	c := newClient(t, srv.URL)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var got []llm.Delta
	var gotErr error
	for d, err := range c.Stream(ctx, userReq("hi")) {
		if err != nil {
			gotErr = err
			break
		}
		got = append(got, d)
		cancel()
	}
	if !errors.Is(gotErr, context.Canceled) {
		t.Fatalf("err = %v; want one wrapping context.Canceled", gotErr)
	}
	if len(got) != 1 {
		t.Errorf("got %d deltas; want the one before the cancel", len(got))
	}
}

func TestCancelDuringBackoff(t *testing.T) {
	srv := providertest.New(t, providertest.Turn{Status: 503}, providertest.Say("unused"))
	c := newClient(t, srv.URL)
	provider.SetBackoff(c, time.Hour)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var asked atomic.Bool
	go func() {
		for !asked.Load() {
			if len(srv.Requests()) > 0 {
				cancel()
				return
			}
			time.Sleep(time.Millisecond)
		}
	}()
	r := collectCtx(t, ctx, c, userReq("hi"))
	asked.Store(true)
	if !errors.Is(r.Err, context.Canceled) {
		t.Fatalf("err = %v; want one wrapping context.Canceled", r.Err)
	}
}

func TestCancelledBeforeStart(t *testing.T) {
	srv := providertest.New(t, providertest.Say("unused"))
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	r := collectCtx(t, ctx, newClient(t, srv.URL), userReq("hi"))
	if !errors.Is(r.Err, context.Canceled) {
		t.Fatalf("err = %v; want one wrapping context.Canceled", r.Err)
	}
}

func TestDeadlineWhileWaitingForHeaders(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	r := collectCtx(t, ctx, newClient(t, srv.URL+"/v1"), userReq("hi"))
	if !errors.Is(r.Err, context.DeadlineExceeded) {
		t.Fatalf("err = %v; want one wrapping context.DeadlineExceeded", r.Err)
	}
}
