package server

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"foya/backend/event"
	"foya/backend/kernel"
	"foya/backend/llm"
)

// client is one SSE stream's subscription: a bounded buffer that the
// kernel's publisher fills without ever blocking. When it is full the
// client is dropped: gone is closed and the stream ends; the browser
// reconnects with Last-Event-ID and gets what it missed from the store.
type client struct {
	session string // "" for every session
	ch      chan framed
	gone    chan struct{}
	once    sync.Once
}

func (c *client) drop() { c.once.Do(func() { close(c.gone) }) }

// framed is an event in its SSE framing, encoded once for every client.
type framed struct {
	seq   int64
	bytes []byte
}

// fanout is the server's kernel subscription, to its events and its
// notices: it hands each one to the clients that want it (a notice only
// to the all-sessions streams). It runs inside the kernel's publisher, so
// it never blocks.
func (s *Server) fanout(ev llm.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var fr framed
	for c := range s.clients {
		if c.session != "" && (c.session != ev.SessionID || event.IsNotice(ev.Type)) {
			continue
		}
		if fr.bytes == nil {
			b, err := frame(nil, ev)
			if err != nil {
				return // an event that does not encode was not stored either
			}
			fr = framed{seq: ev.Seq, bytes: b}
		}
		select {
		case c.ch <- fr:
		default:
			if _, ok := s.clients[c]; ok {
				delete(s.clients, c)
				s.dropped++
				c.drop()
			}
		}
	}
}

func (s *Server) subscribe(session string) *client {
	c := &client{session: session, ch: make(chan framed, s.opts.ClientBuffer), gone: make(chan struct{})}
	s.mu.Lock()
	s.clients[c] = struct{}{}
	s.mu.Unlock()
	return c
}

func (s *Server) unsubscribe(c *client) {
	s.mu.Lock()
	delete(s.clients, c)
	s.mu.Unlock()
}

// resumePoint is the seq a stream starts after: the Last-Event-ID header
// (what EventSource sends when it reconnects), else ?after=, else 0.
func resumePoint(r *http.Request) (int64, error) {
	v, from := r.Header.Get("Last-Event-ID"), "Last-Event-ID"
	if v == "" {
		v, from = r.URL.Query().Get("after"), "after"
	}
	if v == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%s %q is not an event seq: give the seq of the last event seen (a whole number, 0 for all)", from, v)
	}
	return n, nil
}

// stream writes SSE frames with a deadline per write, so that a client
// that stopped reading cannot hold its handler for longer than that.
type stream struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
	buf     []byte
}

func (s *Server) startStream(w http.ResponseWriter) *stream {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	st := &stream{w: w, rc: http.NewResponseController(w), timeout: s.opts.WriteTimeout}
	// A client whose connection breaks retries after a second.
	st.buf = append(st.buf, "retry: 1000\n\n"...)
	return st
}

func (st *stream) add(ev llm.Event) error {
	var err error
	st.buf, err = frame(st.buf, ev)
	return err
}

// flush writes what is buffered.
func (st *stream) flush() error {
	if len(st.buf) == 0 {
		return nil
	}
	_ = st.rc.SetWriteDeadline(time.Now().Add(st.timeout))
	_, err := st.w.Write(st.buf)
	st.buf = st.buf[:0]
	if err == nil {
		err = st.rc.Flush()
	}
	return err
}

// sessionEvents is GET /api/sessions/{id}/events: the session's stored
// events after the resume point, then its live ones. The subscription is
// made before the store is read, and live events at or below the last seq
// sent are dropped, so that nothing falls between replay and live and
// nothing comes twice.
func (s *Server) sessionEvents(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	after, err := resumePoint(r)
	if err != nil {
		writeError(w, http.StatusBadRequest, kernel.CodeInvalid, err.Error())
		return
	}
	c := s.subscribe(id)
	defer s.unsubscribe(c)
	sess, err := s.k.Session(r.Context(), id)
	if err != nil {
		writeAPIError(w, err)
		return
	}
	if after > sess.LastSeq {
		writeError(w, http.StatusBadRequest, kernel.CodeInvalid, fmt.Sprintf(
			"the stream was asked to resume after event %d, but session %s has %d events: reload the session", after, id, sess.LastSeq))
		return
	}
	evs, err := s.k.Events(r.Context(), id, after)
	if err != nil {
		writeAPIError(w, err)
		return
	}
	st := s.startStream(w)
	last := after
	for _, ev := range evs {
		if err := st.add(ev); err != nil {
			return
		}
		last = ev.Seq
	}
	if st.flush() != nil {
		return
	}
	s.live(r, st, c, last)
}

// allEvents is GET /api/events: every session's live events from now on.
func (s *Server) allEvents(w http.ResponseWriter, r *http.Request) {
	c := s.subscribe("")
	defer s.unsubscribe(c)
	st := s.startStream(w)
	if st.flush() != nil {
		return
	}
	s.live(r, st, c, -1)
}

// live streams c's events until the client goes, is dropped, or the server
// shuts down. last >= 0 drops events at or below it (per-session streams).
func (s *Server) live(r *http.Request, st *stream, c *client, last int64) {
	beat := time.NewTicker(s.opts.Heartbeat)
	defer beat.Stop()
	for {
		select {
		case fr := <-c.ch:
			// Take what else is waiting, then write it all at once.
			for more := true; more; {
				if last < 0 || fr.seq > last {
					st.buf = append(st.buf, fr.bytes...)
					if last >= 0 {
						last = fr.seq
					}
				}
				select {
				case fr = <-c.ch:
				default:
					more = false
				}
			}
			if st.flush() != nil {
				return
			}
		case <-beat.C:
			st.buf = append(st.buf, ": ping\n\n"...)
			if st.flush() != nil {
				return
			}
		case <-c.gone:
			return
		case <-s.done:
			return
		case <-r.Context().Done():
			return
		}
	}
}
