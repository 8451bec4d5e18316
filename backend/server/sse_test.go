package server_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"foya/backend/llm"
	"foya/backend/provider/providertest"
	"foya/backend/server"
)

// TestEventsBadInput: a resume point that is not a seq, or one the session
// has not reached, and an unknown session each get a clear status.
func TestEventsBadInput(t *testing.T) {
	f := start(t, server.Options{})
	sess := f.session("manual")
	f.call(nil, "SetMode", sess.ID, "auto") // seq 1
	path := "/api/sessions/" + sess.ID + "/events"
	for _, c := range []struct {
		name, path string
		header     map[string]string
		status     int
		code, says string
	}{
		{"Last-Event-ID not a number", path, map[string]string{"Last-Event-ID": "abc"}, 400, "invalid", `Last-Event-ID "abc" is not an event seq`},
		{"Last-Event-ID negative", path, map[string]string{"Last-Event-ID": "-3"}, 400, "invalid", "not an event seq"},
		{"Last-Event-ID in the future", path, map[string]string{"Last-Event-ID": "99"}, 400, "invalid", "has 1 events"},
		{"after not a number", path + "?after=1.5", nil, 400, "invalid", `after "1.5"`},
		{"after in the future", path + "?after=2", nil, 400, "invalid", "resume after event 2"},
		{"unknown session", "/api/sessions/ses_nope/events", nil, 404, "not_found", "ses_nope"},
		{"unknown artifact", "/api/sessions/" + sess.ID + "/artifacts/art_nope", nil, 404, "not_found", "art_nope"},
	} {
		t.Run(c.name, func(t *testing.T) {
			msg := apiError(t, f.request("GET", c.path, "", c.header), c.status, c.code)
			if !strings.Contains(msg, c.says) {
				t.Fatalf("message %q; want it to say %q", msg, c.says)
			}
		})
	}
	// The header wins over ?after=, as when EventSource reconnects to the
	// URL it was opened with.
	s := f.stream(path+"?after=0", map[string]string{"Last-Event-ID": "1"})
	defer s.close()
	f.call(nil, "SetMode", sess.ID, "manual") // seq 2
	ev, err := s.next()
	if err != nil || ev.Seq != 2 {
		t.Fatalf("first event after Last-Event-ID 1 = %d, %v; want seq 2", ev.Seq, err)
	}
}

// TestEventsResumeAcrossDisconnect: a run started through POST
// /api/call/Run streams over SSE; the connection is cut in the middle of
// the run, the run goes on, and a stream resumed from Last-Event-ID gets
// every later event exactly once, in order.
//
// spec: L1
func TestEventsResumeAcrossDisconnect(t *testing.T) {
	hold := make(chan struct{})
	f := start(t, server.Options{},
		providertest.Turn{Calls: []providertest.Call{{Name: "write", Arguments: `{"path":"a.txt","content":"one\n"}`}}, Hold: hold},
		providertest.Say("All done, the file is written."),
	)
	sess := f.session("auto")
	s := f.stream("/api/sessions/"+sess.ID+"/events", nil)
	var runID string
	f.call(&runID, "Run", sess.ID, "write a.txt")
	var got []llm.Event
	for {
		ev, err := s.next()
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, ev)
		if ev.Type == "step.start" {
			break // the model is held: the run is in the middle
		}
	}
	s.close() // the forced disconnect
	// A second run while this one goes is refused, not queued.
	apiError(t, f.request("POST", "/api/call/Run", `["`+sess.ID+`", "again"]`, nil), 409, "busy")
	close(hold)
	f.waitEvent(func(ev llm.Event) bool { return ev.Type == "run.end" && ev.RunID == runID })

	last := got[len(got)-1].Seq
	s = f.stream("/api/sessions/"+sess.ID+"/events", map[string]string{"Last-Event-ID": strconv.FormatInt(last, 10)})
	defer s.close()
	for {
		ev, err := s.next()
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, ev)
		if ev.Type == "run.end" {
			break
		}
	}
	var stored []llm.Event
	f.call(&stored, "Events", sess.ID, 0)
	if len(got) != len(stored) {
		t.Fatalf("got %d events over two streams; the store has %d", len(got), len(stored))
	}
	for i, ev := range got {
		if ev.Seq != int64(i+1) || ev.Type != stored[i].Type || ev.RunID != stored[i].RunID {
			t.Fatalf("event %d = seq %d %s; want seq %d %s", i, ev.Seq, ev.Type, i+1, stored[i].Type)
		}
	}
	if end := string(got[len(got)-1].Data); !strings.Contains(end, `"completed"`) {
		t.Fatalf("run.end = %s; want completed", end)
	}
}

// TestSlowClientIsDropped: a client that never reads is dropped once its
// bounded buffer is full (the kernel never waits for it), and resumes
// from Last-Event-ID with nothing lost.
func TestSlowClientIsDropped(t *testing.T) {
	f := start(t, server.Options{ClientBuffer: 8, SendBuffer: 4096, WriteTimeout: 200 * time.Millisecond})
	sess := f.session("manual")
	conn, err := net.Dial("tcp", strings.TrimPrefix(f.base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.(*net.TCPConn).SetReadBuffer(4096)
	fmt.Fprintf(conn, "GET /api/sessions/%s/events HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\n\r\n",
		sess.ID, strings.TrimPrefix(f.base, "http://"), f.token)
	// Many events while the client reads nothing; every SetMode returns,
	// so the publisher never waits for the stuck client.
	const n = 1500
	for i := range n {
		mode := []string{"auto", "manual"}[i%2]
		f.call(nil, "SetMode", sess.ID, mode)
	}
	// Now read: the stream ends (the server dropped the client) before
	// the last event.
	r := bufio.NewReader(conn)
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := &sse{resp: resp, r: bufio.NewReader(resp.Body)}
	var last int64
	for {
		ev, err := s.next()
		if err != nil {
			break
		}
		if ev.Seq != last+1 {
			t.Fatalf("seq %d after %d", ev.Seq, last)
		}
		last = ev.Seq
	}
	if last >= n {
		t.Fatalf("the client that did not read got all %d events: it was not dropped", n)
	}
	if f.srv.Dropped() != 1 {
		t.Fatalf("Dropped = %d; want 1", f.srv.Dropped())
	}
	// It resumes where it was.
	s = f.stream("/api/sessions/"+sess.ID+"/events", map[string]string{"Last-Event-ID": strconv.FormatInt(last, 10)})
	defer s.close()
	for want := last + 1; want <= n; want++ {
		ev, err := s.next()
		if err != nil || ev.Seq != want {
			t.Fatalf("resumed stream: seq %d, %v; want %d", ev.Seq, err, want)
		}
	}
}

// TestManySSEClients: 100 clients on one session and 100 on /api/events
// each get every event, in order.
func TestManySSEClients(t *testing.T) {
	f := start(t, server.Options{})
	sess := f.session("manual")
	const clients = 100
	var streams []*sse
	for i := range 2 * clients {
		path := "/api/sessions/" + sess.ID + "/events"
		if i%2 == 1 {
			path = "/api/events"
		}
		streams = append(streams, f.stream(path, nil))
	}
	for _, mode := range []string{"auto", "manual", "full-access"} {
		f.call(nil, "SetMode", sess.ID, mode)
	}
	var wg sync.WaitGroup
	errs := make(chan error, len(streams))
	for i, s := range streams {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer s.close()
			for want := int64(1); want <= 3; want++ {
				ev, err := s.next()
				if err != nil || ev.Seq != want || ev.Type != "session.mode" {
					errs <- fmt.Errorf("client %d: seq %d %s, %v; want %d", i, ev.Seq, ev.Type, err, want)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestServeShutsDownWithStreamsOpen: ending Serve's context ends the open
// streams and Serve returns.
func TestServeShutsDownWithStreamsOpen(t *testing.T) {
	f := start(t, server.Options{})
	sess := f.session("manual")
	s := f.stream("/api/sessions/"+sess.ID+"/events", nil)
	ctx, cancel := context.WithCancel(context.Background())
	srv, err := server.Listen(server.Options{Kernel: f.k})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx) }()
	req, _ := http.NewRequest("GET", srv.Base()+"/api/sessions/"+sess.ID+"/events", nil)
	req.Header.Set("Authorization", "Bearer "+srv.Token())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Serve after cancel = %v; want nil", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("Serve did not return within a minute of the cancel")
	}
	if _, err := io.ReadAll(resp.Body); err != nil {
		t.Fatalf("the stream did not end cleanly: %v", err)
	}
	s.close()
}

// TestHeartbeat: an idle stream gets comment lines, which EventSource
// ignores and proxies take as life.
func TestHeartbeat(t *testing.T) {
	f := start(t, server.Options{Heartbeat: 10 * time.Millisecond})
	sess := f.session("manual")
	for _, path := range []string{"/api/sessions/" + sess.ID + "/events", "/api/events"} {
		s := f.stream(path, nil)
		for beats := 0; beats < 2; {
			line, err := s.r.ReadString('\n')
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			if line == ": ping\n" {
				beats++
			}
		}
		s.close()
	}
}
