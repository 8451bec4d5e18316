package server_test

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"foya/backend/llm"
	"foya/backend/server"
	"foya/backend/store"
)

// BenchmarkSSELatency measures how long an event takes from being stored
// (the moment the kernel publishes it, which is after its transaction
// committed) to being read by each of 10 SSE clients of its session, and
// reports the p50 and p99 (docs/benchmarks.md). Events are
// session.mode switches, one a millisecond, recorded through the kernel's
// one publisher.
func BenchmarkSSELatency(b *testing.B) {
	f := start(b, server.Options{})
	sess := f.session("manual")
	const clients = 10
	var mu sync.Mutex
	var lat []time.Duration
	stored := map[int64]time.Time{}
	f.k.Subscribe(func(ev llm.Event) {
		now := time.Now()
		mu.Lock()
		stored[ev.Seq] = now
		mu.Unlock()
	})
	var wg sync.WaitGroup
	n := int64(b.N)
	streams := make([]*sse, clients)
	for i := range streams {
		streams[i] = f.stream("/api/sessions/"+sess.ID+"/events", nil)
	}
	for _, s := range streams {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer s.close()
			for {
				ev, err := s.next()
				if err != nil {
					b.Error(err)
					return
				}
				now := time.Now()
				mu.Lock()
				// Read before the benchmark's own subscriber ran: about 0.
				if at, ok := stored[ev.Seq]; ok {
					lat = append(lat, now.Sub(at))
				} else {
					lat = append(lat, 0)
				}
				mu.Unlock()
				if ev.Seq == n {
					return
				}
			}
		}()
	}
	// One event a millisecond, as a model's stream brings them (text
	// deltas are coalesced to a few per millisecond at most), straight
	// through the kernel so that the producer's HTTP is not measured.
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	b.ResetTimer()
	for i := range b.N {
		<-tick.C
		if err := f.k.SetMode(context.Background(), sess.ID, []string{"auto", "manual"}[i%2]); err != nil {
			b.Fatal(err)
		}
	}
	wg.Wait()
	b.StopTimer()
	slices.Sort(lat)
	if len(lat) > 0 {
		b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
		b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
	}
}

// BenchmarkReplay10000 measures one SSE client replaying 10,000 stored
// events from Last-Event-ID 0 to the last one.
func BenchmarkReplay10000(b *testing.B) {
	f := start(b, server.Options{})
	sess := f.session("manual")
	const total = 10000
	st, err := store.Open(context.Background(), f.k.Info().DBPath)
	if err != nil {
		b.Fatal(err)
	}
	evs := make([]llm.Event, total)
	for i := range evs {
		evs[i] = llm.Event{SessionID: sess.ID, RunID: "run_bench", Type: "text.delta",
			Data: llm.Data(map[string]any{"step": 1, "text": fmt.Sprintf("word %d of a long answer, ", i)})}
	}
	if _, err := st.Apply(context.Background(), llm.Commit{Events: evs}); err != nil {
		b.Fatal(err)
	}
	st.Close()
	b.ResetTimer()
	for range b.N {
		s := f.stream("/api/sessions/"+sess.ID+"/events", map[string]string{"Last-Event-ID": strconv.Itoa(0)})
		for want := int64(1); want <= total; want++ {
			ev, err := s.next()
			if err != nil || ev.Seq != want {
				b.Fatalf("seq %d, %v; want %d", ev.Seq, err, want)
			}
		}
		s.close()
	}
}
