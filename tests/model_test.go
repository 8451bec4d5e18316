package tests

import (
	"context"
	"strings"
	"testing"

	"foya/backend/event"
	"foya/backend/kernel"
	"foya/backend/profiles"
	pt "foya/backend/provider/providertest"
)

// The model picker: choosing a profile and model for a session makes its
// next run ask that model; a run already going keeps its own; the choice
// is a session.model event of the session's log, found again after a
// restart.
//
// spec: C1 — the session's provider and model are the ones its runs use.
func TestSetModelNamesTheNextRunsModel(t *testing.T) {
	noKeyring(t)
	hold := make(chan struct{})
	h := newHarness(t, nil,
		pt.Turn{Calls: []pt.Call{{ID: "c1", Name: "nope", Arguments: `{}`}}, Hold: hold},
		pt.Say("first run done"), pt.Say("second run done"))
	ctx := context.Background()
	for _, name := range []string{"a", "b"} {
		if _, err := h.k.Profiles().Add(ctx, profiles.ProviderInput{Name: name, BaseURL: h.srv.URL, Model: "m-" + name, APIKey: "sk-0123456789"}); err != nil {
			t.Fatal(err)
		}
	}
	sess, err := h.k.CreateSession(ctx, kernel.NewSession{Workdir: h.dir, ApprovalMode: "auto", Provider: "a", Model: "m-a"})
	if err != nil {
		t.Fatal(err)
	}
	started := make(chan string, 1)
	runDone := make(chan kernel.Run, 1)
	go func() {
		r, err := h.k.Run(ctx, kernel.RunOptions{SessionID: sess.ID, Prompt: "one", Started: func(id string) { started <- id }})
		if err != nil {
			t.Error(err)
		}
		runDone <- r
	}()
	<-started
	got, err := h.k.SetModel(ctx, kernel.ModelChoice{SessionID: sess.ID, Provider: "b", Model: " big-model "})
	if err != nil || got.Provider != "b" || got.Model != "big-model" {
		t.Fatalf("SetModel = %s/%s, %v; want b/big-model", got.Provider, got.Model, err)
	}
	close(hold)
	if r := <-runDone; r.Status != kernel.RunCompleted {
		t.Fatalf("first run %s: %s", r.Status, r.Error)
	}
	if _, err := h.k.Run(ctx, kernel.RunOptions{SessionID: sess.ID, Prompt: "two"}); err != nil {
		t.Fatal(err)
	}
	var models []string
	for _, r := range h.srv.Requests() {
		models = append(models, r.Model)
	}
	if strings.Join(models, ",") != "m-a,m-a,big-model" {
		t.Fatalf("requests asked %q; want the running run's m-a twice, then the chosen big-model", models)
	}

	// A restart finds the choice and its record.
	h.k.Close()
	h.open(nil)
	if s, _ := h.k.Session(ctx, sess.ID); s.Provider != "b" || s.Model != "big-model" {
		t.Fatalf("after a restart the session has %s/%s; want b/big-model", s.Provider, s.Model)
	}
	evs, _ := h.k.Events(ctx, sess.ID, 0)
	var picks []string
	for _, ev := range evs {
		if ev.Type == event.TypeSessionModel {
			picks = append(picks, ev.RunID+"|"+string(ev.Data))
		}
	}
	want := `|{"fromModel":"m-a","fromProvider":"a","model":"big-model","provider":"b"}`
	if len(picks) != 1 || !strings.HasSuffix(picks[0], want) {
		t.Fatalf("session.model events %q; want one: %s", picks, want)
	}
}

// An unknown profile or an empty model is refused in words and changes
// nothing; a profile whose server is down still takes a typed model name.
func TestSetModelRefusals(t *testing.T) {
	noKeyring(t)
	h := newHarness(t, nil)
	ctx := context.Background()
	down := pt.New(t)
	downURL := down.URL
	down.Close()
	if _, err := h.k.Profiles().Add(ctx, profiles.ProviderInput{Name: "offline", BaseURL: downURL, Model: "x", APIKey: "sk-0123456789"}); err != nil {
		t.Fatal(err)
	}
	sess := h.session("manual")
	for _, tc := range []struct {
		name string
		c    kernel.ModelChoice
		want string
	}{
		{"unknown profile", kernel.ModelChoice{SessionID: sess.ID, Provider: "nowhere", Model: "m"}, `there is no provider profile "nowhere"`},
		{"no profile", kernel.ModelChoice{SessionID: sess.ID, Model: "m"}, "no provider profile given"},
		{"empty model", kernel.ModelChoice{SessionID: sess.ID, Provider: "offline", Model: "  "}, "the model name is empty"},
		{"two lines", kernel.ModelChoice{SessionID: sess.ID, Provider: "offline", Model: "a\nb"}, "one line"},
	} {
		_, err := h.k.SetModel(ctx, tc.c)
		if kernel.Code(err) != kernel.CodeInvalid || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: SetModel = %v (%s); want invalid saying %q", tc.name, err, kernel.Code(err), tc.want)
		}
	}
	if _, err := h.k.SetModel(ctx, kernel.ModelChoice{SessionID: "ses_none", Provider: "offline", Model: "m"}); !kernel.IsNotFound(err) {
		t.Errorf("SetModel of no session = %v; want not found", err)
	}
	if evs, _ := h.k.Events(ctx, sess.ID, 0); len(evs) != 0 {
		t.Fatalf("refusals stored %d events; want none", len(evs))
	}
	if _, err := h.k.Profiles().Models(ctx, "offline"); err == nil {
		t.Fatal("the offline profile's server listed models; want it down")
	}
	s, err := h.k.SetModel(ctx, kernel.ModelChoice{SessionID: sess.ID, Provider: "offline", Model: "typed-by-hand"})
	if err != nil || s.Provider != "offline" || s.Model != "typed-by-hand" {
		t.Fatalf("SetModel on a server that is down = %s/%s, %v; want offline/typed-by-hand", s.Provider, s.Model, err)
	}
	// The same choice again is no change: one record.
	if _, err := h.k.SetModel(ctx, kernel.ModelChoice{SessionID: sess.ID, Provider: "offline", Model: "typed-by-hand"}); err != nil {
		t.Fatal(err)
	}
	if evs, _ := h.k.Events(ctx, sess.ID, 0); len(evs) != 1 || evs[0].Type != event.TypeSessionModel {
		t.Fatalf("events %v; want one session.model", evs)
	}
}
