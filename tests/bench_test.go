package tests

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"foya/backend/event"
	"foya/backend/kernel"
	pt "foya/backend/provider/providertest"
	"foya/backend/tools"
)

// stamp is a no-op serial tool that notes when it was called.
type stamp struct {
	mu    *sync.Mutex
	times *[]time.Time
}

func (s stamp) Spec() tools.Spec { return tools.Spec{Name: "noop", Description: "Does nothing."} }
func (s stamp) Run(context.Context, *tools.RunContext, tools.Call) (tools.Result, error) {
	s.mu.Lock()
	*s.times = append(*s.times, time.Now())
	s.mu.Unlock()
	return tools.Text("ok"), nil
}

// BenchmarkPipelinePerCall measures the engine's overhead per tool call: a
// no-op tool in the serial lane, every state change persisted. The gap
// between two consecutive calls is the whole pipeline of one call (end of
// the previous: result stored with its tool.end event; start of the next:
// lookup, JSON and schema checks, running state stored).
func BenchmarkPipelinePerCall(b *testing.B) {
	const calls = 500
	var mu sync.Mutex
	var gaps []time.Duration
	for b.Loop() {
		b.StopTimer()
		var times []time.Time
		var cs []pt.Call
		for i := range calls {
			cs = append(cs, pt.Call{ID: fmt.Sprintf("c%d", i), Name: "noop", Arguments: `{}`})
		}
		t := &testing.T{}
		h := newBenchHarness(b, t, []tools.Tool{stamp{&mu, &times}}, pt.Calls(cs...), pt.Say("done"))
		b.StartTimer()
		run := h.run("go")
		b.StopTimer()
		if run.Status != kernel.RunCompleted {
			b.Fatalf("run %s: %s", run.Status, run.Error)
		}
		for i := 1; i < len(times); i++ {
			gaps = append(gaps, times[i].Sub(times[i-1]))
		}
		h.k.Close()
		b.StartTimer()
	}
	slices.Sort(gaps)
	b.ReportMetric(float64(gaps[len(gaps)/2].Microseconds()), "p50-µs/call")
	b.ReportMetric(float64(gaps[len(gaps)*99/100].Microseconds()), "p99-µs/call")
}

// BenchmarkParallelSleepers measures a batch of parallel-safe calls that
// each sleep 200ms: five should take one round, ten two.
func BenchmarkParallelSleepers(b *testing.B) {
	for _, n := range []int{5, 10} {
		b.Run(fmt.Sprintf("calls=%d", n), func(b *testing.B) {
			var total time.Duration
			for b.Loop() {
				b.StopTimer()
				var cs []pt.Call
				for i := range n {
					cs = append(cs, pt.Call{ID: fmt.Sprintf("s%d", i), Name: "sleep", Arguments: `{"ms":200}`})
				}
				tr := &tracker{}
				h := newBenchHarness(b, &testing.T{}, []tools.Tool{sleeper{tr}}, pt.Calls(cs...), pt.Say("done"))
				b.StartTimer()
				h.run("go")
				b.StopTimer()
				evs := h.eventList()
				var first, last time.Time
				for _, ev := range evs {
					if ev.Type == event.TypeToolUpdate && field(ev, "status") == "running" && first.IsZero() {
						first = ev.Time
					}
					if ev.Type == event.TypeToolEnd {
						last = ev.Time
					}
				}
				total += last.Sub(first)
				h.k.Close()
				b.StartTimer()
			}
			b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "batch-ms")
		})
	}
}
