package mcp

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/mark3labs/mcp-go/client/transport"
)

// resumer is the HTTP transport of a streamable HTTP connection. It
// resumes the listening stream: mcp-go v1.2.1 reopens that stream when it
// ends, but without Last-Event-ID, so what the server sent meanwhile would
// be lost. resumer keeps the ID of the last event the stream delivered
// whole and sends it as Last-Event-ID when the stream opens again on the
// same session; a server that keeps events (mcp-go's WithEventStore)
// replays what came after. A server that does not know the ID refuses the
// stream: the ID is then forgotten, and mcp-go's next attempt opens it
// afresh. Requests other than the listening stream's GET pass untouched,
// the GETs mcp-go itself sends with a Last-Event-ID (resuming a call's
// stream) included.
type resumer struct {
	base http.RoundTripper

	mu      sync.Mutex
	session string // the session lastID belongs to
	lastID  string
}

// RoundTrip implements http.RoundTripper.
func (r *resumer) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodGet || req.Header.Get("Last-Event-ID") != "" ||
		!strings.Contains(req.Header.Get("Accept"), "text/event-stream") {
		return r.base.RoundTrip(req)
	}
	session := req.Header.Get(transport.HeaderKeySessionID)
	r.mu.Lock()
	if r.session != session {
		r.session, r.lastID = session, ""
	}
	id := r.lastID
	r.mu.Unlock()
	if id != "" {
		req = req.Clone(req.Context())
		req.Header.Set("Last-Event-ID", id)
	}
	resp, err := r.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		if id != "" {
			r.remember(session, id, "")
		}
		return resp, nil
	}
	resp.Body = &eventIDs{ReadCloser: resp.Body, seen: func(id string) { r.remember(session, "", id) }}
	return resp, nil
}

// remember records id as the last event of session's stream; with old
// set, only if the last one is still old (a refused ID is forgotten, not
// a newer one).
func (r *resumer) remember(session, old, id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.session != session || (old != "" && r.lastID != old) {
		return
	}
	r.lastID = id
}

// eventIDs reads an event stream through and tells seen the ID of each
// event once the event is complete (its closing blank line read), so that
// an event cut off mid-way is asked for again.
type eventIDs struct {
	io.ReadCloser
	seen    func(id string)
	line    []byte
	pending string
}

func (e *eventIDs) Read(p []byte) (int, error) {
	n, err := e.ReadCloser.Read(p)
	data := p[:n]
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			if len(e.line) < 4096 { // an id line is short; a data line need not be kept
				e.line = append(e.line, data...)
			}
			break
		}
		e.line = append(e.line, data[:i]...)
		data = data[i+1:]
		line := strings.TrimSuffix(string(e.line), "\r")
		e.line = e.line[:0]
		switch {
		case line == "":
			if e.pending != "" {
				e.seen(e.pending)
				e.pending = ""
			}
		case strings.HasPrefix(line, "id:"):
			e.pending = strings.TrimPrefix(strings.TrimPrefix(line, "id:"), " ")
		}
	}
	return n, err
}

var _ http.RoundTripper = (*resumer)(nil)
