package mcp_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"foya/backend/event"
	"foya/backend/mcp"
	"foya/backend/mcp/mcptest"
	"foya/backend/tools"
)

// asked is what a fake user was asked.
type asked struct {
	rc     *tools.RunContext
	callID string
	e      mcp.Elicitation
}

// fakeUser answers every elicitation with answer(e), recording it.
type fakeUser struct {
	mu     sync.Mutex
	asks   []asked
	answer func(ctx context.Context, e mcp.Elicitation) (mcp.ElicitAnswer, error)
}

func (u *fakeUser) elicit(ctx context.Context, rc *tools.RunContext, callID string, e mcp.Elicitation) (mcp.ElicitAnswer, error) {
	u.mu.Lock()
	u.asks = append(u.asks, asked{rc, callID, e})
	u.mu.Unlock()
	return u.answer(ctx, e)
}

func (u *fakeUser) last(t *testing.T) asked {
	t.Helper()
	u.mu.Lock()
	defer u.mu.Unlock()
	if len(u.asks) == 0 {
		t.Fatal("the user was asked nothing")
	}
	return u.asks[len(u.asks)-1]
}

// serverSaw is the elicitation result as the server got it (the ask
// tool's JSON text).
type serverSaw struct {
	Action  string         `json:"action"`
	Content map[string]any `json:"content"`
	Meta    map[string]any `json:"_meta"`
}

func saw(t *testing.T, r tools.Result) serverSaw {
	t.Helper()
	var s serverSaw
	if err := json.Unmarshal([]byte(r.Text), &s); err != nil || r.IsError {
		t.Fatalf("the server's answer %q (error %v) is not the elicitation result: %v", r.Text, r.IsError, err)
	}
	return s
}

// elicitServers runs the elicit test server over stdio and over
// streamable HTTP, each with a Manager whose Elicit is u's.
func elicitServers(t *testing.T, u *fakeUser) map[string]*tools.Registry {
	out := map[string]*tools.Registry{}
	m, reg := newManager(t, mcp.Options{Elicit: u.elicit})
	m.Set("", []mcp.Entry{stdioEntry(t, "el", mcptest.ElicitMode)})
	m.Wait(context.Background(), "")
	out["stdio"] = reg
	srv := mcptest.NewElicitHTTP()
	t.Cleanup(srv.Close) // after the manager's Close: the listening stream stays open until then
	m2, reg2 := newManager(t, mcp.Options{Elicit: u.elicit})
	m2.Set("", []mcp.Entry{{Name: "el", URL: srv.URL}})
	m2.Wait(context.Background(), "")
	out["http"] = reg2
	return out
}

// TestElicitation: a server's elicitation/create during a tool call
// reaches Options.Elicit with the call's RunContext and the form read from
// its schema, and the user's answer (accept with values, the schema's
// defaults, decline, cancel) goes back to the server; a schema Foya cannot
// show, or values that do not fit it, are declined with a note. Over
// stdio and streamable HTTP.
// spec: M1
func TestElicitation(t *testing.T) {
	var answer mcp.ElicitAnswer
	u := &fakeUser{answer: func(ctx context.Context, e mcp.Elicitation) (mcp.ElicitAnswer, error) {
		if answer.Action == "defaults" {
			return mcp.ElicitAnswer{Action: mcp.Accept, Content: mcp.Defaults(e.Fields)}, nil
		}
		return answer, nil
	}}
	form := `{"type":"object","properties":{"name":{"type":"string","title":"Name","minLength":1},` +
		`"age":{"type":"integer","minimum":0,"maximum":150},"color":{"type":"string","oneOf":[{"const":"r","title":"Red"},{"const":"g","title":"Green"}]},` +
		`"ok":{"type":"boolean","default":false}},"required":["name","age"]}`
	args := func(schema string) string {
		b, _ := json.Marshal(map[string]string{"message": "Who are you?", "schema": schema})
		return string(b)
	}
	for transport, reg := range elicitServers(t, u) {
		t.Run(transport, func(t *testing.T) {
			rc := &tools.RunContext{SessionID: "ses_1", RunID: "run_1"}
			answer = mcp.ElicitAnswer{Action: mcp.Accept, Content: map[string]any{"name": "Ada", "age": 36.0, "color": "g", "ok": true}}
			s := saw(t, call(t, reg, rc, "mcp__el__ask", args(form)))
			if s.Action != "accept" || s.Content["name"] != "Ada" || s.Content["age"] != 36.0 || s.Content["color"] != "g" || s.Content["ok"] != true {
				t.Errorf("accept: the server saw %+v", s)
			}
			a := u.last(t)
			if a.rc != rc || a.callID != "call_1" || a.e.Server != "el" || a.e.Message != "Who are you?" || a.e.Mode != event.ElicitForm {
				t.Errorf("asked with rc %p (want %p), call %q, %+v", a.rc, rc, a.callID, a.e)
			}
			names := []string{}
			for _, f := range a.e.Fields {
				names = append(names, f.Name)
			}
			if got := strings.Join(names, ","); got != "name,age,color,ok" {
				t.Errorf("fields %s; want the required in their order, then by name: name,age,color,ok", got)
			}
			if f := a.e.Fields[2]; len(f.Options) != 2 || f.Options[0] != (event.ElicitOption{Value: "r", Title: "Red"}) {
				t.Errorf("the enum's options are %+v", f.Options)
			}
			if !a.e.Fields[0].Required || a.e.Fields[3].Required || a.e.Fields[3].Default != false {
				t.Errorf("required and defaults: %+v", a.e.Fields)
			}

			answer = mcp.ElicitAnswer{Action: "defaults"}
			s = saw(t, call(t, reg, rc, "mcp__el__ask", `{}`))
			want := map[string]any{"name": "John Doe", "age": 30.0, "score": 95.5, "status": "active", "verified": true}
			if s.Action != "accept" || len(s.Content) != len(want) {
				t.Errorf("defaults: the server saw %+v; want %v", s, want)
			}
			for k, v := range want {
				if s.Content[k] != v {
					t.Errorf("defaults: %s = %v; want %v", k, s.Content[k], v)
				}
			}

			for _, action := range []string{mcp.Decline, mcp.Cancel} {
				answer = mcp.ElicitAnswer{Action: action, Content: map[string]any{"name": "leak"}}
				if s := saw(t, call(t, reg, rc, "mcp__el__ask", args(form))); s.Action != action || s.Content != nil {
					t.Errorf("%s: the server saw %+v; want the action and no content", action, s)
				}
			}

			// Values that do not fit: declined, with a note naming the fields.
			answer = mcp.ElicitAnswer{Action: mcp.Accept, Content: map[string]any{"name": "", "age": 3.5, "extra": 1.0}}
			s = saw(t, call(t, reg, rc, "mcp__el__ask", args(form)))
			note, _ := s.Meta[mcp.NoteKey].(string)
			if s.Action != "decline" || s.Content != nil || !strings.Contains(note, "age must be a whole number") ||
				!strings.Contains(note, "name must be at least 1 characters") || !strings.Contains(note, `no field "extra"`) {
				t.Errorf("bad values: the server saw %+v", s)
			}

			// A schema that is not flat: declined whatever the user says, and
			// the user is told why.
			answer = mcp.ElicitAnswer{Action: mcp.Accept, Content: map[string]any{}}
			nested := `{"type":"object","properties":{"address":{"type":"object","properties":{"city":{"type":"string"}}}}}`
			s = saw(t, call(t, reg, rc, "mcp__el__ask", args(nested)))
			note, _ = s.Meta[mcp.NoteKey].(string)
			if s.Action != "decline" || !strings.Contains(note, `the field "address" is an object`) {
				t.Errorf("nested schema: the server saw %+v", s)
			}
			if a := u.last(t); !strings.Contains(a.e.Unshowable, "address") || a.e.Fields != nil {
				t.Errorf("nested schema: the user was asked %+v; want it unshowable", a.e)
			}

			// URL mode: an agreement carries no content.
			answer = mcp.ElicitAnswer{Action: mcp.Accept, Content: map[string]any{"x": 1.0}}
			s = saw(t, call(t, reg, rc, "mcp__el__ask", `{"url":"https://example.com/connect?x=1"}`))
			if a := u.last(t); s.Action != "accept" || s.Content != nil || a.e.Mode != event.ElicitURL || a.e.URL != "https://example.com/connect?x=1" {
				t.Errorf("url: the server saw %+v; the user was asked %+v", s, a.e)
			}
			s = saw(t, call(t, reg, rc, "mcp__el__ask", `{"url":"javascript:alert(1)"}`))
			if note, _ := s.Meta[mcp.NoteKey].(string); s.Action != "decline" || !strings.Contains(note, "not an http") {
				t.Errorf("a javascript: URL: the server saw %+v", s)
			}
		})
	}
}

// TestElicitationCancelled: cancelling the call (the run) ends the user's
// wait with the context's error, the server is told cancel and the call
// returns; nothing waits on. A Manager with no Elicit declines with a
// note.
// spec: M1
func TestElicitationCancelled(t *testing.T) {
	waiting := make(chan struct{}, 1)
	ended := make(chan error, 1)
	u := &fakeUser{answer: func(ctx context.Context, e mcp.Elicitation) (mcp.ElicitAnswer, error) {
		waiting <- struct{}{}
		<-ctx.Done()
		ended <- ctx.Err()
		return mcp.ElicitAnswer{}, ctx.Err()
	}}
	for transport, reg := range elicitServers(t, u) {
		t.Run(transport, func(t *testing.T) {
			tool, _, _ := reg.Lookup("mcp__el__ask")
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan tools.Result, 1)
			go func() {
				res, _ := tool.Run(ctx, &tools.RunContext{}, tools.Call{ID: "call_9", Name: "mcp__el__ask", Arguments: json.RawMessage(`{}`)})
				done <- res
			}()
			<-waiting
			cancel()
			if err := <-ended; err == nil {
				t.Error("the user's wait ended with no error")
			}
			if r := <-done; !strings.Contains(r.Text, "cancelled") {
				t.Errorf("the call returned %q; want it cancelled", r.Text)
			}
		})
	}
	t.Run("no one to ask", func(t *testing.T) {
		m, reg := newManager(t, mcp.Options{})
		m.Set("", []mcp.Entry{stdioEntry(t, "el", mcptest.ElicitMode)})
		m.Wait(context.Background(), "")
		s := saw(t, call(t, reg, nil, "mcp__el__ask", `{}`))
		if note, _ := s.Meta[mcp.NoteKey].(string); s.Action != "decline" || note == "" {
			t.Errorf("the server saw %+v; want decline with a note", s)
		}
	})
}

// TestFormFields reads the schemas a form can show and refuses the others
// with what is wrong; Validate names each field at fault.
// spec: M1
func TestFormFields(t *testing.T) {
	good := []string{
		`{"type":"object","properties":{}}`,
		`{"properties":{"a":{"type":"string","format":"email","minLength":1,"maxLength":9,"default":"x"}}}`,
		`{"type":"object","properties":{"a":{"enum":["x","y"],"enumNames":["X","Y"]},"b":{"type":"number","minimum":-1.5}}}`,
	}
	for _, s := range good {
		var v any
		json.Unmarshal([]byte(s), &v)
		if _, err := mcp.FormFields(v); err != nil {
			t.Errorf("%s: %v", s, err)
		}
	}
	bad := map[string]string{
		`null`:             "not a JSON object",
		`[]`:               "not a JSON object",
		`{"type":"array"}`: "not an object",
		`{"properties":{"a":{"type":"array","items":{"type":"string"}}}}`: "is a list",
		`{"properties":{"a":{"type":"string","format":"hostname"}}}`:      "format hostname",
		`{"properties":{"a":{"type":"integer","default":1.5}}}`:           "not an integer",
		`{"properties":{"a":{"type":"boolean","default":"yes"}}}`:         "not true or false",
		`{"properties":{"a":{"type":"string","enum":[1,2]}}}`:             "not a list of strings",
		`{"properties":{"a":{}}}`:                                         "has no type",
		`{"properties":{"a":"string"}}`:                                   "not described by an object",
		`{"properties":{"a":{"type":"string"}},"required":["b"]}`:         `"b" is required but not described`,
		`{"properties":{"a":{"type":"string","minLength":-1}}}`:           "minLength",
		`{"properties":{"a":{"$ref":"#/x"}}}`:                             "has no type",
	}
	for s, want := range bad {
		var v any
		if err := json.Unmarshal([]byte(s), &v); err != nil {
			t.Fatal(err)
		}
		if _, err := mcp.FormFields(v); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v; want one saying %q", s, err, want)
		}
	}
	var v any
	json.Unmarshal([]byte(`{"properties":{"e":{"type":"string","format":"email"},"u":{"type":"string","format":"uri"},`+
		`"d":{"type":"string","format":"date"},"t":{"type":"string","format":"date-time"},"n":{"type":"number","maximum":2},`+
		`"b":{"type":"boolean"},"s":{"type":"string","enum":["a"]}},"required":["b"]}`), &v)
	fields, err := mcp.FormFields(v)
	if err != nil {
		t.Fatal(err)
	}
	errs := mcp.Validate(fields, map[string]any{"e": "nope", "u": "no scheme", "d": "31/12/2026", "t": "2026-12-31", "n": 3.0, "s": "b"})
	for k, want := range map[string]string{"e": "email", "u": "URI", "d": "date", "t": "date and time", "n": "at most 2", "s": "one of", "b": "required"} {
		if !strings.Contains(errs[k], want) {
			t.Errorf("%s: %q; want it to say %q", k, errs[k], want)
		}
	}
	if errs := mcp.Validate(fields, map[string]any{"e": "a@b.example", "u": "https://x", "d": "2026-12-31", "t": "2026-12-31T09:00:00Z", "n": 1.0, "s": "a", "b": false}); errs != nil {
		t.Errorf("good values: %v", errs)
	}
}

// TestElicitationHoldsTheCallTimeout: a person who takes longer to answer
// than the entry's call timeout does not get the call cut as a hung
// server: the timeout is held while the question waits. (The fake user's
// delay is the behaviour under test, not a wait for an event.)
// spec: M1
func TestElicitationHoldsTheCallTimeout(t *testing.T) {
	u := &fakeUser{answer: func(ctx context.Context, e mcp.Elicitation) (mcp.ElicitAnswer, error) {
		select {
		case <-time.After(300 * time.Millisecond): // six call timeouts
		case <-ctx.Done():
			return mcp.ElicitAnswer{}, ctx.Err()
		}
		return mcp.ElicitAnswer{Action: mcp.Decline}, nil
	}}
	m, reg := newManager(t, mcp.Options{Elicit: u.elicit})
	e := stdioEntry(t, "el", mcptest.ElicitMode)
	e.Timeout = "50ms"
	m.Set("", []mcp.Entry{e})
	m.Wait(context.Background(), "")
	if s := saw(t, call(t, reg, nil, "mcp__el__ask", `{}`)); s.Action != "decline" {
		t.Errorf("the server saw %+v; want the user's decline", s)
	}
	if st := status(m, "el"); st.Restarts != 0 || st.State != mcp.Ready {
		t.Errorf("status %+v; want the server ready, never restarted", st)
	}
}
