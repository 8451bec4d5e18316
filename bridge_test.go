package main

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"foya/backend/llm"
)

// emitLog records the bridge's emits with the (fake) time of each.
type emitLog struct {
	mu      sync.Mutex
	at      []time.Time
	batches [][]llm.Event
}

func (l *emitLog) emit(evs []llm.Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.at = append(l.at, time.Now())
	l.batches = append(l.batches, evs)
}

func (l *emitLog) seqs() []int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	var s []int64
	for _, b := range l.batches {
		for _, ev := range b {
			s = append(s, ev.Seq)
		}
	}
	return s
}

func delta(seq int64) llm.Event {
	return llm.Event{Type: llm.EventTextDelta, SessionID: "s", Seq: seq}
}

// TestBridgeBatchesDeltas feeds the bridge 1,000 text deltas a second for
// three seconds of fake time (testing/synctest) and counts the emits: at
// most 60 in any second, every delta once and in order, none held longer
// than bridgeInterval: a fast stream must not flood the window, nor
// hold an event back.
//
// spec: W3
func TestBridgeBatchesDeltas(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var log emitLog
		b := newBridge(log.emit)
		defer b.close()
		const perSecond, seconds = 1000, 3
		start := time.Now()
		added := map[int64]time.Time{}
		for i := range int64(perSecond * seconds) {
			added[i+1] = time.Now()
			b.add(delta(i + 1))
			time.Sleep(time.Second / perSecond)
		}
		time.Sleep(bridgeInterval) // the last batch's wait
		synctest.Wait()

		want := make([]int64, perSecond*seconds)
		for i := range want {
			want[i] = int64(i + 1)
		}
		if got := log.seqs(); !slices.Equal(got, want) {
			t.Fatalf("the window got %d deltas (first %v); want seq 1 to %d, once each, in order", len(got), got[:min(len(got), 10)], len(want))
		}
		perSec := make([]int, seconds+1)
		for i, at := range log.at {
			perSec[int(at.Sub(start)/time.Second)]++
			for _, ev := range log.batches[i] {
				if wait := at.Sub(added[ev.Seq]); wait > bridgeInterval {
					t.Errorf("delta %d waited %v; want at most %v", ev.Seq, wait, bridgeInterval)
				}
			}
		}
		for s, n := range perSec[:seconds] {
			if n > 60 {
				t.Errorf("second %d: %d emits for %d deltas; want at most 60", s, n, perSecond)
			}
		}
		t.Logf("%d deltas a second: %v emits in each second, %d in all", perSecond, perSec[:seconds], len(log.at))
	})
}

// TestBridgeKeepsOrder checks that an event other than a delta goes out at
// once, after the deltas before it and in the same emit, and that deltas
// after it wait for the next batch.
//
// spec: W3
func TestBridgeKeepsOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var log emitLog
		b := newBridge(log.emit)
		defer b.close()
		b.add(delta(1))
		b.add(llm.Event{Type: llm.EventReasoningDelta, SessionID: "s", Seq: 2})
		b.add(llm.Event{Type: llm.EventToolBegin, SessionID: "s", Seq: 3})
		b.add(delta(4))
		b.add(llm.Event{Type: llm.EventToolEnd, SessionID: "s", Seq: 5})
		b.add(delta(6))
		if got := batches(&log); got != "[1 2 3] [4 5]" {
			t.Errorf("before the interval the window got %s; want [1 2 3] [4 5] (delta 6 waits)", got)
		}
		time.Sleep(bridgeInterval)
		synctest.Wait()
		if got := batches(&log); got != "[1 2 3] [4 5] [6]" {
			t.Errorf("after the interval the window got %s; want [1 2 3] [4 5] [6]", got)
		}
		// A timer armed before a flush must not send the next deltas early.
		b.add(delta(7))
		time.Sleep(bridgeInterval / 2)
		b.add(llm.Event{Type: llm.EventRunEnd, SessionID: "s", Seq: 8})
		b.add(delta(9))
		time.Sleep(bridgeInterval / 2)
		synctest.Wait()
		if got := batches(&log); got != "[1 2 3] [4 5] [6] [7 8]" {
			t.Errorf("half an interval after run.end the window got %s; want delta 9 still waiting", got)
		}
		time.Sleep(bridgeInterval / 2)
		synctest.Wait()
		if got := batches(&log); got != "[1 2 3] [4 5] [6] [7 8] [9]" {
			t.Errorf("a full interval after run.end the window got %s; want [9] last", got)
		}
	})
}

// TestBridgeClose checks that a closed bridge sends nothing more: neither
// the deltas that waited nor later events.
//
// spec: W3
func TestBridgeClose(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var log emitLog
		b := newBridge(log.emit)
		b.add(delta(1))
		b.close()
		b.add(llm.Event{Type: llm.EventRunEnd, SessionID: "s", Seq: 2})
		b.close() // twice is harmless
		time.Sleep(time.Second)
		synctest.Wait()
		if got := batches(&log); got != "" {
			t.Errorf("a closed bridge emitted %s; want nothing", got)
		}
	})
}

func batches(l *emitLog) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := ""
	for i, b := range l.batches {
		if i > 0 {
			s += " "
		}
		seqs := make([]int64, len(b))
		for j, ev := range b {
			seqs[j] = ev.Seq
		}
		s += fmt.Sprint(seqs)
	}
	return s
}

// BenchmarkBridgeDeltas measures the cost of one delta through the bridge
// on the real clock, as fast as the loop can add them, and reports the
// emits a second that reach the window (still at most 60).
func BenchmarkBridgeDeltas(b *testing.B) {
	var mu sync.Mutex
	emits, events := 0, 0
	br := newBridge(func(evs []llm.Event) {
		mu.Lock()
		emits++
		events += len(evs)
		mu.Unlock()
	})
	defer br.close()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		br.add(delta(int64(i)))
	}
	elapsed := b.Elapsed()
	mu.Lock()
	defer mu.Unlock()
	b.ReportMetric(float64(emits)/elapsed.Seconds(), "emits/s")
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "deltas/s")
}
