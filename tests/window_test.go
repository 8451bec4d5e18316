package tests

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"foya/backend/event"
	"foya/backend/kernel"
	"foya/backend/llm"
	"foya/backend/profiles"
	"foya/backend/provider/providertest"
)

// Issue 28, item 1: the model's context window, and what a run does with
// it.

// windowServer is the scripted model behind a front that answers GET
// /v1/models with a recorded list giving model m the window maxLen, as
// vLLM does.
func windowServer(t *testing.T, h *harness, maxLen int) string {
	t.Helper()
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && r.URL.Path == "/v1/models" {
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(map[string]any{"object": "list",
				"data": []map[string]any{{"id": "m", "object": "model", "max_model_len": maxLen}}})
			return
		}
		h.srv.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	return front.URL + "/v1"
}

// runWithProfile runs a turn whose model the kernel builds from the
// default profile (no client of the test's own), as the app's runs are.
func runWithProfile(t *testing.T, h *harness, prompt string) kernel.Run {
	t.Helper()
	r, err := h.k.Run(context.Background(), kernel.RunOptions{SessionID: h.session("auto").ID, Prompt: prompt})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func chatRequests(h *harness) int { return len(h.srv.Requests()) }

// A server that says its model's window is smaller than the system prompt
// and the tools: the run fails, saying so, before any request is sent.
func TestWindowTooSmallForSystemPromptAndTools(t *testing.T) {
	h := newHarness(t, nil, providertest.Say("never asked"))
	base := windowServer(t, h, 400)
	if _, err := h.k.Profiles().Add(context.Background(), profiles.ProviderInput{Name: "tiny", BaseURL: base, Model: "m"}); err != nil {
		t.Fatal(err)
	}
	run := runWithProfile(t, h, "hello")
	if run.Status != kernel.RunFailed || !strings.Contains(run.Error, "context window is 400 tokens (from the server's /models (max_model_len))") ||
		!strings.Contains(run.Error, "system prompt and tools alone") || !strings.Contains(run.Error, "no request was sent") {
		t.Fatalf("run %s: %q; want it failed for the window", run.Status, run.Error)
	}
	if n := chatRequests(h); n != 0 {
		t.Fatalf("%d model requests sent; want none", n)
	}
	// The same server with room: the run goes.
	h2 := newHarness(t, nil, providertest.Say("fine"))
	base = windowServer(t, h2, 262144)
	if _, err := h2.k.Profiles().Add(context.Background(), profiles.ProviderInput{Name: "big", BaseURL: base, Model: "m"}); err != nil {
		t.Fatal(err)
	}
	if run := runWithProfile(t, h2, "hello"); run.Status != kernel.RunCompleted {
		t.Fatalf("run %s: %s", run.Status, run.Error)
	}
	w, err := h2.k.ContextWindow(context.Background(), h2.session("auto").ID)
	if err != nil || w.Window != 262144 || w.Source != profiles.WindowFromServer {
		t.Fatalf("ContextWindow = %+v, %v", w, err)
	}
}

// A server that reports far fewer prompt tokens than were sent cut the
// conversation without saying so (Ollama past its num_ctx): the run fails
// with an error that says what happened and what to do, and the answer's
// calls are not run.
func TestSilentCutIsAnError(t *testing.T) {
	long := strings.Repeat("Here is a long paragraph of the conversation that the model must see whole. ", 600) // about 11,000 tokens
	cut := providertest.Turn{Text: "I only saw the end.", Usage: &llm.Usage{PromptTokens: 2048, CompletionTokens: 7, TotalTokens: 2055},
		Calls: []providertest.Call{{Name: "read", Arguments: `{"path":"a.txt"}`}}}
	h := newHarness(t, nil, cut)
	run := h.run(long)
	if run.Status != kernel.RunFailed || !strings.Contains(run.Error, "the server cut the conversation to 2048 tokens") ||
		!strings.Contains(run.Error, "num_ctx") {
		t.Fatalf("run %s: %q; want the silent cut told", run.Status, run.Error)
	}
	var stepErr string
	for _, ev := range h.eventList() {
		switch ev.Type {
		case event.TypeStepEnd:
			var d event.StepEndData
			_ = json.Unmarshal(ev.Data, &d)
			stepErr = d.Error
		case event.TypeToolEnd:
			var d event.ToolEndData
			_ = json.Unmarshal(ev.Data, &d)
			if d.Status == llm.CallDone {
				t.Errorf("a call of the cut answer ran: %+v", d)
			}
		}
	}
	if !strings.Contains(stepErr, "cut the conversation") {
		t.Errorf("step.end error = %q; want the cut", stepErr)
	}

	// A server that counts about what was sent: no cut.
	h = newHarness(t, nil, providertest.Turn{Text: "all seen", Usage: &llm.Usage{PromptTokens: 11500, CompletionTokens: 2, TotalTokens: 11502}})
	if run := h.run(long); run.Status != kernel.RunCompleted {
		t.Fatalf("run %s: %s", run.Status, run.Error)
	}
	// A short conversation is not judged: the estimate is too rough.
	h = newHarness(t, nil, providertest.Turn{Text: "hi", Usage: &llm.Usage{PromptTokens: 3, CompletionTokens: 1, TotalTokens: 4}})
	if run := h.run("hello"); run.Status != kernel.RunCompleted {
		t.Fatalf("run %s: %s", run.Status, run.Error)
	}
}

// ContextWindow for a session without a profile: the guess, said to be one.
func TestContextWindowWithoutProfile(t *testing.T) {
	h := newHarness(t, nil)
	w, err := h.k.ContextWindow(context.Background(), h.session("auto").ID)
	if err != nil || w.Source != profiles.WindowDefault || w.Window != profiles.DefaultContextWindow || !strings.Contains(w.Detail, "a guess") {
		t.Fatalf("ContextWindow = %+v, %v; want the guess", w, err)
	}
	if _, err := h.k.ContextWindow(context.Background(), "nope"); err == nil {
		t.Fatal("ContextWindow of no session: no error")
	}
}

// foya exec with a profile whose server gives a window too small for the
// system prompt and tools: the run fails before any request, as in the
// app; with --base-url naming another server, that server's window is not
// the profile's and nothing is checked.
func TestExecWindowTooSmall(t *testing.T) {
	bin := foyaBinary(t)
	dir := t.TempDir()
	env := append(doctorEnv(dir), "FOYA_DB="+filepath.Join(dir, "foya.db"))
	srv := providertest.New(t, providertest.Say("from the other server"))
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/models" {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"data":[{"id":"m","max_model_len":400}]}`))
			return
		}
		srv.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	if res := runFoyaIn(t, bin, env, "", "providers", "add", "tiny", "--base-url", front.URL+"/v1", "--model", "m"); res.code != 0 {
		t.Fatalf("providers add: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	res := runFoya(t, bin, env, "exec", "--workdir", dir, "hello")
	if res.code == 0 || !strings.Contains(res.stdout+res.stderr, "context window is 400 tokens") {
		t.Fatalf("exec: exit %d; want the window refused\n%s%s", res.code, res.stdout, res.stderr)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("%d model requests sent; want none", n)
	}
	res = runFoya(t, bin, env, "exec", "--workdir", dir, "--provider", "tiny", "--base-url", srv.URL, "hello")
	if res.code != 0 || !strings.Contains(res.stdout, "from the other server") {
		t.Fatalf("exec --base-url: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
}
