package tests

import (
	"context"
	"iter"
	"slices"
	"sync"
	"testing"

	"foya/backend/engine"
	"foya/backend/event"
	"foya/backend/kernel"
	"foya/backend/llm"
	"foya/backend/provider"
	"foya/backend/tools"
)

// countingModel notes, for each request, how many messages the provider
// encoded for it (the growth of the run's kept encodings) and how many it
// had to: the new positions and those whose key changed (a result the
// projection replaced).
type countingModel struct {
	inner engine.Model

	mu       sync.Mutex
	keys     []uint64
	encoded  []int
	expected []int
	sizes    []int
}

func (m *countingModel) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Delta, error] {
	return func(yield func(llm.Delta, error) bool) {
		m.mu.Lock()
		changed := 0
		for i, k := range req.Keys {
			if i >= len(m.keys) || m.keys[i] != k {
				changed++
			}
		}
		m.keys = append(m.keys[:0], req.Keys...)
		before := -1
		if req.Encodings != nil {
			before = req.Encodings.Kept()
		}
		m.mu.Unlock()
		for d, err := range m.inner.Stream(ctx, req) {
			if !yield(d, err) {
				return
			}
		}
		m.mu.Lock()
		defer m.mu.Unlock()
		n := -1
		if before >= 0 {
			n = req.Encodings.Kept() - before
		}
		m.encoded = append(m.encoded, n)
		m.expected = append(m.expected, changed)
		m.sizes = append(m.sizes, len(req.Messages))
	}
}

// spec: O5, R2 — through the kernel and the real provider,
// a step encodes only the messages that are new or that the projection
// replaced, never the history again: over a 300-step session of 5 KB
// results (the projection moves several times), each request encodes
// exactly its new and changed messages, and the whole session encodes each
// message at most twice (verbatim, then projected).
func TestStepEncodesOnlyNewMessages(t *testing.T) {
	const steps = 300
	srv := stepServer(t, steps)
	calls := 0
	h := newHarness(t, []tools.Tool{fiveKB{&calls}})
	client, err := provider.New(provider.Config{BaseURL: srv.URL + "/v1", APIKey: "x", Model: "m", MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	m := &countingModel{inner: client}
	s := h.session("full-access")
	run, err := h.k.Run(context.Background(), kernel.RunOptions{SessionID: s.ID, Prompt: "go", Model: m, MaxSteps: steps + 1})
	if err != nil || run.Status != kernel.RunCompleted || calls != steps {
		t.Fatalf("run %s: %s (%v), %d calls", run.Status, run.Error, err, calls)
	}
	total, moves := 0, 0
	for i, n := range m.encoded {
		if n != m.expected[i] {
			t.Fatalf("request %d (%d messages) encoded %d messages; want %d (new or changed)", i+1, m.sizes[i], n, m.expected[i])
		}
		if i > 0 && n > 2 {
			moves++
		}
		total += n
	}
	last := m.sizes[len(m.sizes)-1]
	if moves == 0 || total > 2*last {
		t.Fatalf("the session encoded %d messages for a last request of %d, with %d projection moves; want at most twice, and some moves", total, last, moves)
	}
	t.Logf("%d requests, %d messages encoded for a last request of %d messages, %d projection moves", len(m.encoded), total, last, moves)
}

// spec: L4 — a step of one call costs few store
// transactions: the end of the batch's last call, the step's results and
// the next step's start are stored together, and so are the model's answer
// and its first call's start, since nothing happens between them. Each
// transaction gives its events one time, so the distinct times of a run's
// events count its transactions (that store events: all of them now).
func TestStepTransactions(t *testing.T) {
	const steps = 20
	srv := stepServer(t, steps)
	calls := 0
	h := newHarness(t, []tools.Tool{fiveKB{&calls}})
	client, err := provider.New(provider.Config{BaseURL: srv.URL + "/v1", APIKey: "x", Model: "m", MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	s := h.session("full-access")
	run, err := h.k.Run(context.Background(), kernel.RunOptions{SessionID: s.ID, Prompt: "go", Model: client, MaxSteps: steps + 1})
	if err != nil || run.Status != kernel.RunCompleted || calls != steps {
		t.Fatalf("run %s: %s (%v), %d calls", run.Status, run.Error, err, calls)
	}
	// A transaction of streamed deltas alone is the coalescer's timer
	// (a few ms), which a loaded machine may fire between two commits:
	// timing, not the commit structure this test holds, so it is not
	// counted.
	streamed := map[string]bool{event.TypeTextDelta: true, event.TypeReasoningDelta: true, event.TypeToolUpdate: true}
	byTime := map[int64][]string{}
	var order []int64
	for _, ev := range h.eventList() {
		if ev.RunID == run.ID {
			at := ev.Time.UnixNano()
			if _, ok := byTime[at]; !ok {
				order = append(order, at)
			}
			byTime[at] = append(byTime[at], ev.Type)
		}
	}
	times := map[int64]bool{}
	var kinds [][]string // the event types of each transaction, for the failure message
	for _, at := range order {
		kinds = append(kinds, byTime[at])
		if !slices.ContainsFunc(byTime[at], func(t string) bool { return !streamed[t] }) {
			continue
		}
		times[at] = true
	}
	// Per step, besides the streamed deltas: its start, with the previous
	// step's results and its last call's end; the answer with the call's
	// start. Then the run's start, the last step and the run's end. (A
	// transaction per change was six per step, five of them with events:
	// 104 here.)
	if want := 2*steps + 4; len(times) > want {
		t.Fatalf("%d transactions for %d steps of one call; want at most %d; events by transaction: %v", len(times), steps, want, kinds)
	}
	t.Logf("%d transactions for %d steps of one call", len(times), steps)
}
