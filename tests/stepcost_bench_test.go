package tests

import (
	"context"
	"fmt"
	"io"
	"iter"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"foya/backend/engine"
	"foya/backend/kernel"
	"foya/backend/llm"
	"foya/backend/provider"
	"foya/backend/tools"
)

// fiveKB is a serial tool whose result is 5 KB of text that differs at
// every call, as a file read would be.
type fiveKB struct{ n *int }

func (f fiveKB) Spec() tools.Spec {
	return tools.Spec{Name: "five", Description: "Returns 5 KB.", ReadOnly: true}
}

func (f fiveKB) Run(context.Context, *tools.RunContext, tools.Call) (tools.Result, error) {
	*f.n++
	var b strings.Builder
	for line := 0; b.Len() < 5000; line++ {
		fmt.Fprintf(&b, "call %d line %d: the quick brown fox jumps over the lazy dog\n", *f.n, line)
	}
	return tools.Text(b.String()), nil
}

// stepServer is an OpenAI-compatible endpoint that answers every request
// with one call of "five", and the last one with text. It reads and drops
// each request body: unlike providertest it keeps nothing, so a session of
// a thousand steps stays small in memory.
func stepServer(tb testing.TB, steps int) *httptest.Server {
	var mu sync.Mutex
	served := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		mu.Lock()
		served++
		n := served
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		if n > steps {
			io.WriteString(w, `data: {"choices":[{"index":0,"delta":{"role":"assistant","content":"done"},"finish_reason":"stop"}]}`+"\n\n")
		} else {
			fmt.Fprintf(w, `data: {"choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"c%d","type":"function","function":{"name":"five","arguments":"{}"}}]},"finish_reason":"tool_calls"}]}`+"\n\n", n)
		}
		io.WriteString(w, "data: [DONE]\n\n")
	}))
	tb.Cleanup(srv.Close)
	return srv
}

// timedModel notes, for each step, when the model's answer ended and when
// the next request's headers were written: the gap between the two is the
// engine's and the provider's work between steps (storing the answer,
// running the tool, storing its result, compiling and encoding the next
// request), without the time to write the request body, which starts after
// the headers.
type timedModel struct {
	inner  engine.Model
	mu     sync.Mutex
	ends   []time.Time // end of step i's answer
	starts []time.Time // headers of step i's request written
}

func (m *timedModel) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Delta, error] {
	return func(yield func(llm.Delta, error) bool) {
		ctx := httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{WroteHeaders: func() {
			m.mu.Lock()
			m.starts = append(m.starts, time.Now())
			m.mu.Unlock()
		}})
		for d, err := range m.inner.Stream(ctx, req) {
			if err == nil && d.Kind == llm.DeltaDone {
				m.mu.Lock()
				m.ends = append(m.ends, time.Now())
				m.mu.Unlock()
			}
			if !yield(d, err) {
				return
			}
		}
	}
}

// BenchmarkStepCost measures the overhead between model steps at steps 10,
// 100 and 1,000 of one scripted session whose every step reads 5 KB: the
// median, over the ten steps up to each, of the time from
// the end of the model's answer to the start of the next request's body.
// Each iteration is one session of 1,000 tool steps and a final answer,
// through the real kernel, SQLite file, HTTP client and projection.
func BenchmarkStepCost(b *testing.B) {
	const steps = 1000
	marks := []int{10, 100, 1000}
	got := map[int][]time.Duration{}
	for b.Loop() {
		b.StopTimer()
		srv := stepServer(b, steps)
		calls := 0
		h := newBenchHarness(b, &testing.T{}, []tools.Tool{fiveKB{&calls}})
		client, err := provider.New(provider.Config{BaseURL: srv.URL + "/v1", APIKey: "x", Model: "m", MaxRetries: -1})
		if err != nil {
			b.Fatal(err)
		}
		m := &timedModel{inner: client}
		s, err := h.k.CreateSession(context.Background(), kernel.NewSession{Workdir: h.dir, ApprovalMode: "full-access", Model: "m", Title: "bench"})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		run, err := h.k.Run(context.Background(), kernel.RunOptions{SessionID: s.ID, Prompt: "go", Model: m, MaxSteps: steps + 1})
		b.StopTimer()
		if err != nil || run.Status != kernel.RunCompleted || calls != steps {
			b.Fatalf("run %s: %s (%v), %d calls", run.Status, run.Error, err, calls)
		}
		if len(m.starts) != steps+1 || len(m.ends) != steps+1 {
			b.Fatalf("%d requests and %d answers, want %d", len(m.starts), len(m.ends), steps+1)
		}
		for _, mark := range marks {
			// Gap k is between the answer of step k and the request of
			// step k+1 (both 1-based).
			for k := mark - 9; k <= mark; k++ {
				got[mark] = append(got[mark], m.starts[k].Sub(m.ends[k-1]))
			}
		}
		h.k.Close()
		b.StartTimer()
	}
	for _, mark := range marks {
		g := got[mark]
		slices.Sort(g)
		b.ReportMetric(float64(g[len(g)/2].Microseconds()), fmt.Sprintf("step%d-µs", mark))
	}
}
