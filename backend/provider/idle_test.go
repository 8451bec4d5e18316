package provider_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"foya/backend/provider"
	"foya/backend/provider/providertest"
)

// A stream that stalls after its start is stopped after
// the idle timeout with an error that says so and names the setting; it is
// not retried. The timeout is short here; nothing asserts how long it took.
func TestStalledStreamStopsAfterIdleTimeout(t *testing.T) {
	hold := make(chan struct{}) // never closed: the server stalls after its first line
	t.Cleanup(func() { close(hold) })
	srv := providertest.New(t, providertest.Turn{Text: "partial answer that never ends", Hold: hold})
	c := newClient(t, srv.URL, func(cfg *provider.Config) { cfg.IdleTimeout = 50 * time.Millisecond })
	r := collect(t, c, userReq("hi"))
	var idle *provider.IdleError
	if !errors.As(r.Err, &idle) || idle.After != 50*time.Millisecond {
		t.Fatalf("Stream error = %v; want an IdleError after 50ms", r.Err)
	}
	if r.Text == "" {
		t.Errorf("the first delta was not yielded before the stall")
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests; want 1 (a stall is not retried)", n)
	}
}

// A server that never sends its headers is stopped the same way.
func TestSilentServerStopsAfterIdleTimeout(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body) // then the server notices the client leave
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	c := newClient(t, srv.URL+"/v1", func(cfg *provider.Config) { cfg.IdleTimeout = 50 * time.Millisecond })
	r := collect(t, c, userReq("hi"))
	var idle *provider.IdleError
	if !errors.As(r.Err, &idle) {
		t.Fatalf("Stream error = %v; want an IdleError", r.Err)
	}
}

func TestIdleErrorMessage(t *testing.T) {
	for d, want := range map[time.Duration]string{
		provider.DefaultIdleTimeout: "the model sent nothing for 120 s: the stream was stopped (setting provider.idleTimeout)",
		1500 * time.Millisecond:     "the model sent nothing for 1.5 s:",
	} {
		if got := (&provider.IdleError{After: d}).Error(); !strings.HasPrefix(got, want) {
			t.Errorf("IdleError{%v} = %q; want %q", d, got, want)
		}
	}
}
