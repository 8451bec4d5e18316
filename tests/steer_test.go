package tests

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"foya/backend/event"
	"foya/backend/kernel"
	"foya/backend/llm"
	"foya/backend/provider"
	pt "foya/backend/provider/providertest"
	"foya/backend/testwait"
)

// steerKernel is a kernel on a temp database whose SteerWait reports each
// message that waits for a step boundary, and a channel of its events.
type steerKernel struct {
	k       *kernel.Kernel
	srv     *pt.Server
	dir     string
	waiting chan string    // IDs of messages in a run's inbox
	events  chan llm.Event // every event, as published
}

func newSteerKernel(t *testing.T, turns ...pt.Turn) *steerKernel {
	t.Helper()
	s := &steerKernel{dir: t.TempDir(), srv: pt.New(t, turns...), waiting: make(chan string, 16), events: make(chan llm.Event, 1024)}
	k, err := kernel.Open(context.Background(), kernel.Options{DBPath: filepath.Join(t.TempDir(), "foya.db"), TextFlush: time.Millisecond,
		SteerWait: func(_, id string) { s.waiting <- id }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { k.Close() })
	s.k = k
	k.Subscribe(func(ev llm.Event) { s.events <- ev })
	return s
}

// until waits for the first event of type typ.
func (s *steerKernel) until(t *testing.T, typ string) llm.Event {
	t.Helper()
	deadline := time.After(testwait.Limit)
	for {
		select {
		case ev := <-s.events:
			if ev.Type == typ {
				return ev
			}
		case <-deadline:
			t.Fatalf("no %s event", typ)
		}
	}
}

// start starts a run in a new session and returns the session and the
// run's outcome, once it ends.
func (s *steerKernel) start(t *testing.T, prompt string) (kernel.Session, <-chan kernel.Run) {
	t.Helper()
	return s.startSteps(t, prompt, 0)
}

// startSteps is start with a step limit (0: the default).
func (s *steerKernel) startSteps(t *testing.T, prompt string, maxSteps int) (kernel.Session, <-chan kernel.Run) {
	t.Helper()
	sess, err := s.k.CreateSession(context.Background(), kernel.NewSession{Workdir: s.dir, ApprovalMode: "auto", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	c, err := provider.New(provider.Config{BaseURL: s.srv.URL, APIKey: "x", Model: "m", MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan kernel.Run, 1)
	go func() {
		r, err := s.k.Run(context.Background(), kernel.RunOptions{SessionID: sess.ID, Prompt: prompt, Model: c, MaxSteps: maxSteps})
		if err != nil {
			t.Error(err)
		}
		done <- r
	}()
	return sess, done
}

// steer sends a message in the background, once the run is in its first
// step, and returns its outcome once the message is in the run's inbox.
func (s *steerKernel) steer(t *testing.T, sessionID, id, text string) <-chan kernel.SteerResult {
	t.Helper()
	s.until(t, event.TypeStepStart)
	out := make(chan kernel.SteerResult, 1)
	go func() {
		r, err := s.k.Steer(context.Background(), kernel.SteerMessage{SessionID: sessionID, ID: id, Text: text})
		if err != nil {
			t.Error(err)
		}
		out <- r
	}()
	select {
	case <-s.waiting:
	case <-time.After(testwait.Limit):
		t.Fatal("the message never reached the run's inbox")
	}
	return out
}

func roles(msgs []kernel.Message) []string {
	var out []string
	for _, m := range msgs {
		out = append(out, string(m.Message.Role)+":"+m.Message.Content)
	}
	return out
}

// A message sent while a run waits for the model ("Send now") is in the
// run's very next model request, after the step's tool results, stored
// once in the session's history in that order, with its run.steer event.
func TestSteerReachesTheNextRequestOfTheSameRun(t *testing.T) {
	hold := make(chan struct{})
	s := newSteerKernel(t,
		pt.Turn{Calls: []pt.Call{{ID: "c1", Name: "nope", Arguments: `{}`}}, Hold: hold},
		pt.Say("done, with tabs"))
	sess, runDone := s.start(t, "indent the file")
	res := s.steer(t, sess.ID, "stg_1", "use tabs, not spaces")
	close(hold)
	if r := <-res; !r.Delivered {
		t.Fatalf("Steer = %+v; want delivered", r)
	}
	run := <-runDone
	if run.Status != kernel.RunCompleted || run.Steps != 2 {
		t.Fatalf("run %s after %d steps; want completed after 2", run.Status, run.Steps)
	}
	reqs := s.srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests; want 2", len(reqs))
	}
	msgs := reqs[1].Messages
	last := msgs[len(msgs)-1]
	if last.Role != "user" || last.Content != "use tabs, not spaces" || msgs[len(msgs)-2].Role != "tool" {
		t.Fatalf("second request ends with %+v, %+v; want the tool result, then the steering message", msgs[len(msgs)-2], last)
	}
	hist, err := s.k.Messages(context.Background(), sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	got := roles(hist)
	if len(got) != 5 || got[0] != "user:indent the file" || got[3] != "user:use tabs, not spaces" || got[4] != "assistant:done, with tabs" {
		t.Fatalf("history %q; want the prompt, the call, its result, the steering message once, the answer", got)
	}
	// Sent again (an answer lost on the way): delivered, stored once.
	if r, err := s.k.Steer(context.Background(), kernel.SteerMessage{SessionID: sess.ID, ID: "stg_1", Text: "use tabs, not spaces"}); err != nil || !r.Delivered {
		t.Fatalf("Steer again = %+v, %v; want delivered", r, err)
	}
	evs, _ := s.k.Events(context.Background(), sess.ID, 0)
	steers := 0
	for _, ev := range evs {
		if ev.Type == event.TypeRunSteer {
			steers++
			if field(ev, "text") != "use tabs, not spaces" || field(ev, "id") != "stg_1" || ev.RunID != run.ID {
				t.Errorf("run.steer %s; want the message of run %s", ev.Data, run.ID)
			}
		}
	}
	if steers != 1 {
		t.Fatalf("%d run.steer events; want 1", steers)
	}
	if hist, _ := s.k.Messages(context.Background(), sess.ID); len(hist) != 5 {
		t.Fatalf("history after sending again: %q; want 5 messages", roles(hist))
	}
}

// A message sent while the model gives its last answer makes the run take
// one more step for it: the same run, not a new one.
func TestSteerAfterTheLastAnswerTakesAnotherStep(t *testing.T) {
	hold := make(chan struct{})
	s := newSteerKernel(t, pt.Turn{Text: "all done", Hold: hold}, pt.Say("also renamed it"))
	sess, runDone := s.start(t, "fix it")
	res := s.steer(t, sess.ID, "stg_2", "and rename it")
	close(hold)
	if r := <-res; !r.Delivered {
		t.Fatalf("Steer = %+v; want delivered", r)
	}
	if run := <-runDone; run.Status != kernel.RunCompleted || run.Steps != 2 {
		t.Fatalf("run %s after %d steps; want completed after 2", run.Status, run.Steps)
	}
	reqs := s.srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests; want 2", len(reqs))
	}
	msgs := reqs[1].Messages
	if n := len(msgs); msgs[n-2].Content != "all done" || msgs[n-1].Role != "user" || msgs[n-1].Content != "and rename it" {
		t.Fatalf("second request ends with %+v; want the answer, then the steering message", msgs[n-2:])
	}
}

// A run that ends before a step takes the message (here: its last
// answer came at its step limit) stores nothing of it and says so: the
// front end sends it as the next prompt, so it is neither lost nor doubled.
func TestSteerNotTakenWhenTheRunEndsFirst(t *testing.T) {
	hold := make(chan struct{})
	s := newSteerKernel(t, pt.Turn{Text: "all done", Hold: hold})
	sess, runDone := s.startSteps(t, "fix it", 1)
	res := s.steer(t, sess.ID, "stg_5", "and rename it")
	close(hold)
	if r := <-res; r.Delivered {
		t.Fatalf("Steer = %+v; want not delivered (the run had no step left)", r)
	}
	if run := <-runDone; run.Status != kernel.RunCompleted || run.Steps != 1 {
		t.Fatalf("run %s after %d steps; want completed after 1", run.Status, run.Steps)
	}
	hist, _ := s.k.Messages(context.Background(), sess.ID)
	if got := roles(hist); len(got) != 2 {
		t.Fatalf("history %q; want the prompt and the answer only", got)
	}
	evs, _ := s.k.Events(context.Background(), sess.ID, 0)
	for _, ev := range evs {
		if ev.Type == event.TypeRunSteer {
			t.Fatalf("a run.steer event was stored: %s", ev.Data)
		}
	}
	// Asked again (the composer does so when an answer was lost): still
	// not delivered, so it goes as the next prompt.
	if r, err := s.k.Steer(context.Background(), kernel.SteerMessage{SessionID: sess.ID, ID: "stg_5", Text: "and rename it"}); err != nil || r.Delivered {
		t.Fatalf("Steer again = %+v, %v; want not delivered", r, err)
	}
}

// With no run going, Steer stores nothing and says so: the front end
// sends the message as the next prompt. Bad messages are refused in words.
func TestSteerWithoutARunOrWithBadInput(t *testing.T) {
	s := newSteerKernel(t)
	ctx := context.Background()
	sess, err := s.k.CreateSession(ctx, kernel.NewSession{Workdir: s.dir, ApprovalMode: "auto", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	if r, err := s.k.Steer(ctx, kernel.SteerMessage{SessionID: sess.ID, ID: "stg_3", Text: "hello"}); err != nil || r.Delivered {
		t.Fatalf("Steer with no run = %+v, %v; want not delivered, no error", r, err)
	}
	for _, tc := range []struct {
		name string
		m    kernel.SteerMessage
		want string
	}{
		{"empty text", kernel.SteerMessage{SessionID: sess.ID, ID: "stg_4", Text: "  "}, "the message is empty"},
		{"no id", kernel.SteerMessage{SessionID: sess.ID, Text: "hi"}, "give each message an ID"},
	} {
		_, err := s.k.Steer(ctx, tc.m)
		if kernel.Code(err) != kernel.CodeInvalid || err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Steer = %v (%s); want invalid saying %q", tc.name, err, kernel.Code(err), tc.want)
		}
	}
	if _, err := s.k.Steer(ctx, kernel.SteerMessage{SessionID: "ses_none", ID: "x", Text: "hi"}); !kernel.IsNotFound(err) {
		t.Errorf("Steer in no session = %v; want not found", err)
	}
	if evs, _ := s.k.Events(ctx, sess.ID, 0); len(evs) != 0 {
		t.Fatalf("events after refused steers: %d; want none", len(evs))
	}
}
