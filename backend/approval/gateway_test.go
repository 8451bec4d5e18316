package approval

import (
	"context"
	"errors"
	"testing"
	"time"

	"foya/backend/testwait"
)

func pending(id string) Pending {
	return Pending{ID: id, SessionID: "s", AskedAt: time.Now(),
		Request: Request{Action: Action{Kind: Shell, Tool: "bash", Command: "go test ./..."}}}
}

func TestGatewayFirstAnswerWins(t *testing.T) {
	g := NewGateway()
	var got Answer
	waited := make(chan struct{})
	go func() {
		defer close(waited)
		var err error
		g.Open(pending("a1"))
		got, err = g.Wait(context.Background(), "a1")
		if err != nil {
			t.Error(err)
		}
	}()
	testwait.Until(t, "the request to be pending", func() bool { return len(g.Pending("s")) > 0 })
	if err := g.Answer("a1", Answer{Choice: "maybe"}); err == nil {
		t.Error("an unknown choice was accepted")
	}
	if err := g.Answer("a1", Answer{Choice: AllowSession, Scope: &Grant{Kind: Shell, Prefix: []string{"rm"}}}); err == nil {
		t.Error("a scope that does not cover the request was accepted")
	}
	if err := g.Answer("a1", Answer{Choice: Deny, Message: "not now"}); err != nil {
		t.Fatal(err)
	}
	if err := g.Answer("a1", Answer{Choice: AllowOnce}); !errors.Is(err, ErrAnswered) {
		t.Errorf("second answer: %v; want ErrAnswered", err)
	}
	testwait.Receive(t, waited, "Wait to return the answer")
	if got.Choice != Deny || got.Message != "not now" {
		t.Fatalf("waiter got %+v", got)
	}
	if err := g.Answer("nope", Answer{Choice: AllowOnce}); !errors.Is(err, ErrUnknownRequest) {
		t.Errorf("unknown request: %v", err)
	}
}

func TestGatewayCancelWithdraws(t *testing.T) {
	g := NewGateway()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() {
		g.Open(pending("a2"))
		_, err := g.Wait(ctx, "a2")
		done <- err
	}()
	testwait.Until(t, "the request to be pending", func() bool { return len(g.Pending("")) > 0 })
	cancel()
	if err := testwait.Receive(t, done, "Wait to return after the cancel"); !errors.Is(err, context.Canceled) {
		t.Fatalf("Wait after cancel: %v", err)
	}
	if err := g.Answer("a2", Answer{Choice: AllowOnce}); !errors.Is(err, ErrAnswered) {
		t.Errorf("late answer: %v; want ErrAnswered", err)
	}
	if n := len(g.Pending("")); n != 0 {
		t.Errorf("%d requests still pending", n)
	}
}

func TestScopes(t *testing.T) {
	s := Scopes(Action{Kind: Shell, Tool: "bash", Command: "cd x && go test ./..."})
	if len(s) != 2 || s[0].String() != "command prefix `go test`" || s[1].Tool != "bash" {
		t.Fatalf("Scopes = %v", s)
	}
	s = Scopes(Action{Kind: ReadOutside, Tool: "read", Paths: []string{"/data/a/x", "/data/b/y"}})
	if s[0].Folder != "/data" {
		t.Fatalf("Scopes folder = %v", s)
	}
}
