package engine

import (
	"context"
	"errors"
	"strings"
	"testing"

	"foya/backend/llm"
	"foya/backend/provider"
)

// A held session starts no run, and a session is held by one holder at a
// time: what keeps a revert and a run from changing a session's files at
// once.
//
// spec: C2, W4
func TestHoldKeepsRunsOut(t *testing.T) {
	e := New(Config{})
	model, err := provider.New(provider.Config{BaseURL: "http://127.0.0.1:9/v1", Model: "m", MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	release, err := e.Hold("ses_a", "a revert is being made")
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.Run(context.Background(), RunRequest{Session: llm.Session{ID: "ses_a"}, Prompt: "go", Model: model})
	if !errors.Is(err, ErrBusy) || !strings.Contains(err.Error(), "a revert is being made") {
		t.Errorf("run of a held session: %v; want ErrBusy saying what holds it", err)
	}
	if _, err := e.Hold("ses_a", "another"); !errors.Is(err, ErrBusy) {
		t.Errorf("second hold: %v; want ErrBusy", err)
	}
	other, err := e.Hold("ses_b", "x")
	if err != nil {
		t.Errorf("another session's hold: %v", err)
	} else {
		other()
	}
	release()
	release() // a second release changes nothing
	again, err := e.Hold("ses_a", "x")
	if err != nil {
		t.Fatalf("hold after release: %v", err)
	}
	again()
}
