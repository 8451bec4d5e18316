package server_test

import (
	"strings"
	"testing"

	"foya/backend/kernel"
	"foya/backend/server"
)

// ForkSession over HTTP, as the browser's "Fork from here" calls it: the
// fork and its parent in the answer; bad input a clear {code, message}.
func TestForkSessionCall(t *testing.T) {
	f := start(t, server.Options{})
	sess := f.session("auto")
	for _, c := range []struct {
		name, body string
		status     int
		code, says string
	}{
		{"no session", `["", 1]`, 400, "invalid", "sessionId"},
		{"unknown session", `["ses_nope", 1]`, 404, "not_found", "ses_nope"},
		{"no prompts yet", `["` + sess.ID + `", 1]`, 400, "invalid", "has no prompts yet"},
		{"negative prompt", `["` + sess.ID + `", -2]`, 400, "invalid", "give a prompt number from 1"},
		{"prompt not a number", `["` + sess.ID + `", "two"]`, 400, "invalid", "argument 2 of ForkSession must be int"},
	} {
		t.Run(c.name, func(t *testing.T) {
			msg := apiError(t, f.request("POST", "/api/call/ForkSession", c.body, nil), c.status, c.code)
			if !strings.Contains(msg, c.says) {
				t.Fatalf("ForkSession %s: message %q; want it to say %q", c.body, msg, c.says)
			}
		})
	}
	var got kernel.Forked
	f.call(&got, "ForkSession", sess.ID, 0)
	if got.Session.ForkedFrom != sess.ID || got.Session.ForkedAt != 0 || got.Session.Title != "t (fork)" || got.Draft != "" {
		t.Fatalf("ForkSession(%s, 0) = %+v; want a fork of the whole session", sess.ID, got)
	}
	// ForkSessionWith takes the options as one object.
	for _, c := range []struct {
		name, body string
		status     int
		code, says string
	}{
		{"with: no session", `[{"atPrompt": 1}]`, 400, "invalid", "sessionId"},
		{"with: not an object", `["` + sess.ID + `"]`, 400, "invalid", "argument 1 of ForkSessionWith"},
		{"with: prompt out of range", `[{"sessionId": "` + sess.ID + `", "atPrompt": 3, "filesNow": true}]`, 400, "invalid", "has no prompts yet"},
	} {
		t.Run(c.name, func(t *testing.T) {
			msg := apiError(t, f.request("POST", "/api/call/ForkSessionWith", c.body, nil), c.status, c.code)
			if !strings.Contains(msg, c.says) {
				t.Fatalf("ForkSessionWith %s: message %q; want it to say %q", c.body, msg, c.says)
			}
		})
	}
	var with kernel.Forked
	f.call(&with, "ForkSessionWith", kernel.ForkOptions{SessionID: sess.ID, FilesNow: true})
	if with.Session.ForkedFrom != sess.ID || with.Session.ID == got.Session.ID {
		t.Fatalf("ForkSessionWith = %+v; want another fork", with)
	}
	var listed kernel.Session
	f.call(&listed, "Session", got.Session.ID)
	if listed.ForkedFrom != sess.ID {
		t.Errorf("Session(%s) = %+v; want its parent named", got.Session.ID, listed)
	}
}
