package tests

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"foya/backend/kernel"
	pt "foya/backend/provider/providertest"
)

// BenchmarkLargeArguments streams one write call's arguments in 256 KiB
// pieces through the kernel (scripted model over loopback HTTP, real SQLite
// file) and reports the arguments' throughput, the bytes of events stored
// for the call and the database's size. "written" is a 32 MiB write that
// goes through; "refused" is a 100 MiB one over the 64 MiB limit. The time
// includes the scripted server encoding its chunks.
func BenchmarkLargeArguments(b *testing.B) {
	for _, bc := range []struct {
		name string
		size int
	}{{"written-32MiB", 32 << 20}, {"refused-100MiB", 100 << 20}} {
		b.Run(bc.name, func(b *testing.B) {
			args := writeArgs("big.txt", bigContent(bc.size))
			b.SetBytes(int64(len(args)))
			var eventBytes, db int64
			for b.Loop() {
				b.StopTimer()
				t := &testing.T{}
				h := newBenchHarness(b, t, nil, pt.Calls(pt.Call{ID: "c1", Name: "write", Arguments: args, Chunk: 256 << 10}), pt.Say("done"))
				sess, err := h.k.CreateSession(context.Background(), kernel.NewSession{Workdir: h.dir, ApprovalMode: "auto", Model: "m"})
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				run := h.runIn(context.Background(), sess.ID, "write it")
				b.StopTimer()
				if run.Status != kernel.RunCompleted {
					b.Fatalf("run %s: %s", run.Status, run.Error)
				}
				eventBytes = 0
				for _, ev := range h.eventList() {
					if field(ev, "id") == "c1" {
						eventBytes += int64(len(ev.Data))
					}
				}
				h.k.Close()
				db = dbSize(t, h.db)
				b.StartTimer()
			}
			b.ReportMetric(float64(eventBytes), "event-bytes")
			b.ReportMetric(float64(db)/float64(bc.size), "db/content")
		})
	}
}

// BenchmarkExecLargeWritePeakRSS runs the real foya exec with a scripted
// model whose one call is a 100 MiB write streamed in 256 KiB pieces (over
// the 64 MiB limit, so refused), and reports the process's peak resident
// set (VmHWM) against the arguments' size.
func BenchmarkExecLargeWritePeakRSS(b *testing.B) {
	t := &testing.T{}
	bin := foyaBinary(t)
	const size = 100 << 20
	args := writeArgs("big.txt", bigContent(size))
	var peak int64
	for b.Loop() {
		srv := pt.New(b, pt.Calls(pt.Call{ID: "c1", Name: "write", Arguments: args, Chunk: 256 << 10}), pt.Say("done"))
		_, _, code, p := execEvents(t, bin, "exec", "--base-url", srv.URL, "--api-key", "x", "--model", "m",
			"--db", filepath.Join(b.TempDir(), "foya.db"), "--workdir", b.TempDir(), "--approval", "auto", "--json", "write")
		if code != 0 {
			b.Fatal(fmt.Sprintf("foya exec: exit %d", code))
		}
		peak = max(peak, p)
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-RSS-MiB")
	b.ReportMetric(float64(peak)/size, "peak/content")
}
