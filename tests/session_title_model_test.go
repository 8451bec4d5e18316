package tests

// Issue 25, item 3: after a session's first run its model may propose a
// better title than the first prompt's line; it replaces that title unless
// the user renamed the session, also while the request was in flight. The
// request goes in the background and never fails the run.

import (
	"context"
	"errors"
	"iter"
	"strings"
	"testing"
	"time"

	"foya/backend/api"
	"foya/backend/engine"
	"foya/backend/event"
	"foya/backend/kernel"
	"foya/backend/llm"
	pt "foya/backend/provider/providertest"
)

// titleResult is what one title request of the kernel ended with
// (kernel.Options.TitleDone).
type titleResult struct {
	session, title string
	err            error
}

// titleHarness is a harness whose kernel reports each title request's end
// on the returned channel. A timeout of 0 is the kernel's default.
func titleHarness(t *testing.T, timeout time.Duration, turns ...pt.Turn) (*harness, <-chan titleResult) {
	t.Helper()
	done := make(chan titleResult, 8)
	h := newHarnessWith(t, kernel.Options{TitleTimeout: timeout, TitleDone: func(sessionID, title string, err error) {
		done <- titleResult{sessionID, title, err}
	}}, nil, turns...)
	return h, done
}

// waitTitle waits for the end of the title request of session id.
func waitTitle(t *testing.T, done <-chan titleResult, id string) titleResult {
	t.Helper()
	select {
	case r := <-done:
		if r.session != id {
			t.Fatalf("a title request of session %s ended; want one of %s", r.session, id)
		}
		return r
	case <-time.After(time.Minute):
		t.Fatal("no title request ended within a minute")
	}
	return titleResult{}
}

// titleEvents are the session.title events published for session id.
func titleEvents(t *testing.T, h *harness, id string) []event.SessionTitleData {
	t.Helper()
	var out []event.SessionTitleData
	for _, ev := range h.eventList() {
		if ev.Type == event.TypeSessionTitle && ev.SessionID == id {
			var d event.SessionTitleData
			decodeData(t, ev, &d)
			out = append(out, d)
		}
	}
	return out
}

func sessionTitle(t *testing.T, h *harness, id string) kernel.Session {
	t.Helper()
	s, err := h.k.Session(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The model's title replaces the first prompt's, is stored and published
// as session.title, and takes no turn of the conversation's script; the
// request offers no tools and quotes the prompt and the answer. A second
// run asks for none.
func TestSessionTitleFromModel(t *testing.T) {
	h, done := titleHarness(t, 0, pt.Say("The test was flaky; fixed."), pt.Say("two"))
	h.srv.Titles(pt.Say("  \"Fix flaky store test.\"\n"))
	s := untitled(t, h)
	h.runIn(context.Background(), s.ID, "Fix the failing test in store\nit fails one time in ten")
	r := waitTitle(t, done, s.ID)
	const want = "Fix flaky store test"
	if r.err != nil || r.title != want {
		t.Fatalf("the title request ended with %q, %v; want %q", r.title, r.err, want)
	}
	if got := sessionTitle(t, h, s.ID); got.Title != want || got.TitleByUser {
		t.Fatalf("the session's title is %q (by user %v); want the model's %q, not the user's", got.Title, got.TitleByUser, want)
	}
	if evs := titleEvents(t, h, s.ID); len(evs) != 1 || evs[0] != (event.SessionTitleData{From: "Fix the failing test in store", Title: want}) {
		t.Errorf("session.title events = %+v; want one from the prompt's title to %q", evs, want)
	}
	reqs := h.srv.TitleRequests()
	if len(reqs) != 1 {
		t.Fatalf("%d title requests; want 1", len(reqs))
	}
	q := reqs[0]
	if len(q.Tools) != 0 || len(q.Messages) != 2 || q.Messages[0].Content != llm.TitlePrompt || q.Messages[1].Role != "user" ||
		!strings.Contains(q.Messages[1].Content, "it fails one time in ten") || !strings.Contains(q.Messages[1].Content, "The test was flaky; fixed.") {
		t.Errorf("the title request is %+v; want the title prompt, then the first message and the answer, and no tools", q)
	}
	if n := len(h.srv.Requests()); n != 1 {
		t.Errorf("the conversation's requests = %d; want 1 (the title request is apart)", n)
	}

	h.runIn(context.Background(), s.ID, "Now something else")
	if n := len(h.srv.TitleRequests()); n != 1 {
		t.Errorf("after a second run %d title requests; want still 1", n)
	}
	if got := sessionTitle(t, h, s.ID); got.Title != want {
		t.Errorf("after a second run the title is %q; want %q", got.Title, want)
	}
}

// renamingModel renames the session through the API when the model's
// title answer has come, before the kernel sees its end: the rename lands
// while the title request is in flight, at the last moment.
type renamingModel struct {
	inner  engine.Model
	rename func()
}

func (m renamingModel) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Delta, error] {
	return func(yield func(llm.Delta, error) bool) {
		title := len(req.Messages) > 0 && req.Messages[0].Content == llm.TitlePrompt
		for d, err := range m.inner.Stream(ctx, req) {
			if title && d.Kind == llm.DeltaDone {
				m.rename()
			}
			if !yield(d, err) {
				return
			}
		}
	}
}

// A rename made while the title request is in flight wins: the model's
// title is not stored and no session.title is published.
func TestSessionTitleRenameInFlightWins(t *testing.T) {
	h, done := titleHarness(t, 0, pt.Say("done"))
	h.srv.Titles(pt.Say("Model title"))
	s := untitled(t, h)
	name := "My own name"
	renamed := false
	m := renamingModel{inner: h.model(), rename: func() {
		if _, err := panelService(h).UpdateSession(s.ID, api.SessionPatch{Title: &name}); err != nil {
			t.Error(err)
		}
		renamed = true
	}}
	if _, err := h.k.Run(context.Background(), kernel.RunOptions{SessionID: s.ID, Prompt: "Fix the failing test", Model: m}); err != nil {
		t.Fatal(err)
	}
	r := waitTitle(t, done, s.ID)
	if !renamed {
		t.Fatal("the title request never came back to rename the session in flight")
	}
	if r.title != "" || !errors.Is(r.err, llm.ErrTitleKept) {
		t.Errorf("the title request ended with %q, %v; want none, the user's title kept", r.title, r.err)
	}
	if got := sessionTitle(t, h, s.ID); got.Title != name || !got.TitleByUser {
		t.Errorf("the title is %q (by user %v); want the user's %q", got.Title, got.TitleByUser, name)
	}
	if evs := titleEvents(t, h, s.ID); len(evs) != 0 {
		t.Errorf("session.title published after a rename: %+v", evs)
	}
}

// A session renamed after its first run and before the model answers
// (the rename stored first, then the answer) keeps the user's title too;
// so does one the user named before its first run, which asks for none.
func TestSessionTitleRenameBeforeAnswerWins(t *testing.T) {
	hold := make(chan struct{})
	h, done := titleHarness(t, 0, pt.Say("done"), pt.Say("done"))
	h.srv.Titles(pt.Turn{Text: "Model title", Hold: hold})
	s := untitled(t, h)
	name := "Renamed meanwhile"
	// The rename happens when the title request is sent: the model's
	// answer is held until the rename is stored.
	m := startHook{inner: h.model(), start: func(req llm.Request) {
		if len(req.Messages) > 0 && req.Messages[0].Content == llm.TitlePrompt {
			if _, err := panelService(h).UpdateSession(s.ID, api.SessionPatch{Title: &name}); err != nil {
				t.Error(err)
			}
			close(hold)
		}
	}}
	if _, err := h.k.Run(context.Background(), kernel.RunOptions{SessionID: s.ID, Prompt: "Fix the failing test", Model: m}); err != nil {
		t.Fatal(err)
	}
	if r := waitTitle(t, done, s.ID); !errors.Is(r.err, llm.ErrTitleKept) {
		t.Errorf("the title request ended with %q, %v; want the user's title kept", r.title, r.err)
	}
	if got := sessionTitle(t, h, s.ID); got.Title != name {
		t.Errorf("the title is %q; want the user's %q", got.Title, name)
	}

	named := h.session("auto") // titled "test" by the user at creation
	h.runIn(context.Background(), named.ID, "Fix it")
	if n := len(h.srv.TitleRequests()); n != 1 {
		t.Errorf("%d title requests; want 1 (none for a session the user named)", n)
	}
}

// startHook calls start with each request before sending it.
type startHook struct {
	inner engine.Model
	start func(llm.Request)
}

func (m startHook) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Delta, error] {
	m.start(req)
	return m.inner.Stream(ctx, req)
}

// A model that answers no title — garbage, nothing, an error, a stream cut
// short, too much text, or nothing until the timeout — leaves the prompt's
// title, publishes nothing, and the run is completed all the same.
func TestSessionTitleBadAnswersKeepPromptTitle(t *testing.T) {
	cases := []struct {
		name string
		turn pt.Turn
		// failure: the request failed (logged), rather than the model
		// proposing no usable title.
		failure bool
		timeout time.Duration
	}{
		{name: "empty", turn: pt.Say("")},
		{name: "only punctuation", turn: pt.Say(" “...!” ")},
		{name: "an explanation over lines", turn: pt.Say("Sure! Here is a title:\n\nFix the store test")},
		{name: "a sentence", turn: pt.Say("This conversation is about a test in the store package that fails now and then for no reason")},
		{name: "too long", turn: pt.Say(strings.Repeat("word", 400))},
		{name: "unfinished think block", turn: pt.Say("<think>a title should")},
		{name: "server error", turn: pt.Turn{Status: 500}, failure: true},
		{name: "refused", turn: pt.Turn{Status: 400, ErrorMessage: "max_tokens is not supported"}, failure: true},
		{name: "cut short", turn: pt.Turn{Text: "Half a title", CutAfter: 1}, failure: true},
		{name: "malformed stream", turn: pt.Turn{Raw: []string{"data: {not json", "data: [DONE]"}}, failure: true},
		{name: "hanging", turn: pt.Turn{Text: "Late title", Hold: make(chan struct{})}, failure: true, timeout: 200 * time.Millisecond},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h, done := titleHarness(t, c.timeout, pt.Say("done"))
			h.srv.Titles(c.turn)
			s := untitled(t, h)
			run := h.runIn(context.Background(), s.ID, "Fix the failing test")
			if run.Status != kernel.RunCompleted {
				t.Fatalf("the run ended %s (%s); want completed", run.Status, run.Error)
			}
			r := waitTitle(t, done, s.ID)
			if r.title != "" || r.err == nil {
				t.Errorf("the title request ended with %q, %v; want no title and why", r.title, r.err)
			}
			if c.failure && strings.Contains(r.err.Error(), "no usable title") {
				t.Errorf("a failed request was taken for a bad answer: %v", r.err)
			}
			if got := sessionTitle(t, h, s.ID); got.Title != "Fix the failing test" || got.TitleByUser {
				t.Errorf("the title is %q (by user %v); want the prompt's", got.Title, got.TitleByUser)
			}
			if evs := titleEvents(t, h, s.ID); len(evs) != 0 {
				t.Errorf("session.title published: %+v", evs)
			}
			if n := len(h.srv.TitleRequests()); n != 1 {
				t.Errorf("%d title requests; want 1", n)
			}
		})
	}
}

// With sessions.autoTitle off no title request is sent.
func TestSessionTitleSettingOff(t *testing.T) {
	h, done := titleHarness(t, 0, pt.Say("done"))
	h.srv.Titles(pt.Say("Model title"))
	ctx := context.Background()
	if on, err := h.k.AutoTitle(ctx); err != nil || !on {
		t.Fatalf("AutoTitle by default = %v, %v; want on", on, err)
	}
	if err := h.k.SetSetting(ctx, "sessions.autoTitle", "false"); err != nil {
		t.Fatal(err)
	}
	if err := h.k.SetSetting(ctx, "sessions.autoTitle", "maybe"); err == nil {
		t.Error("sessions.autoTitle took maybe")
	}
	s := untitled(t, h)
	h.runIn(ctx, s.ID, "Fix the failing test")
	if r := waitTitle(t, done, s.ID); r.title != "" || r.err != nil {
		t.Errorf("with the setting off the title request ended with %q, %v; want nothing done", r.title, r.err)
	}
	if n := len(h.srv.TitleRequests()); n != 0 {
		t.Errorf("%d title requests with the setting off; want none", n)
	}
	if got := sessionTitle(t, h, s.ID); got.Title != "Fix the failing test" {
		t.Errorf("the title is %q; want the prompt's", got.Title)
	}
}

// Closing the kernel cancels a title request in flight, and Close does not
// wait for the model; the prompt's title stays.
func TestSessionTitleCancelledOnClose(t *testing.T) {
	h, done := titleHarness(t, 0, pt.Say("done"))
	h.srv.Titles(pt.Turn{Text: "Late title", Hold: make(chan struct{})}) // never released
	s := untitled(t, h)
	sent := make(chan struct{})
	m := startHook{inner: h.model(), start: func(req llm.Request) {
		if req.Messages[0].Content == llm.TitlePrompt {
			close(sent)
		}
	}}
	if _, err := h.k.Run(context.Background(), kernel.RunOptions{SessionID: s.ID, Prompt: "Fix the failing test", Model: m}); err != nil {
		t.Fatal(err)
	}
	<-sent
	if err := h.k.Close(); err != nil {
		t.Fatal(err)
	}
	if r := waitTitle(t, done, s.ID); r.title != "" || !errors.Is(r.err, context.Canceled) {
		t.Errorf("the title request ended with %q, %v; want it cancelled", r.title, r.err)
	}
	k, err := kernel.Open(context.Background(), kernel.Options{DBPath: h.db})
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	if got, err := k.Session(context.Background(), s.ID); err != nil || got.Title != "Fix the failing test" {
		t.Errorf("after Close the title is %q (%v); want the prompt's", got.Title, err)
	}
}

// ModelTitle keeps the title of an answer and drops what is around it.
func TestModelTitleCleansAnswers(t *testing.T) {
	for _, c := range []struct{ answer, want string }{
		{"Fix flaky store test", "Fix flaky store test"},
		{"  \"Fix flaky store test.\"  \n", "Fix flaky store test"},
		{"**Title:** Refactor the parser!", "Refactor the parser"},
		{"Title - Rename the package", "Rename the package"},
		{"Titles of books", "Titles of books"},
		{"«Réparer le test»", "Réparer le test"},
		{"<think>\nthe user wants\n</think>\n\nAdd dark mode", "Add dark mode"},
		{"Fix\tthe\x1b bug", "Fix the bug"},
		{"Supercalifragilisticexpialidocious " + strings.Repeat("x", 80), "Supercalifragilisticexpialidocious…"},
		{"", ""},
		{"...", ""},
		{"Line one\nLine two", ""},
		{"one two three four five six seven eight nine ten eleven twelve thirteen", ""},
	} {
		if got := kernel.ModelTitle(c.answer); got != c.want {
			t.Errorf("ModelTitle(%q) = %q; want %q", c.answer, got, c.want)
		}
	}
}
