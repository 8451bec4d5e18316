package provider_test

import (
	"fmt"
	"testing"

	"foya/backend/llm"
	"foya/backend/provider/providertest"
)

// BenchmarkStream measures delta throughput over real HTTP: each iteration
// streams one scripted answer of 200 tool calls (an opening delta and three
// argument fragments each) and assembles it.
func BenchmarkStream(b *testing.B) {
	calls := make([]providertest.Call, 200)
	for i := range calls {
		calls[i] = providertest.Call{
			ID:        fmt.Sprintf("call_%d", i),
			Name:      "read",
			Arguments: fmt.Sprintf(`{"path":"src/file_%03d.go","offset":%d,"limit":200}`, i, i*10),
		}
	}
	turn := providertest.Calls(calls...)
	srv, err := providertest.Start()
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	c := newClient(b, srv.URL)
	req := userReq("read them all")
	deltas := 0
	b.ReportAllocs()
	for b.Loop() {
		srv.Append(turn)
		n, done := 0, false
		for d, err := range c.Stream(b.Context(), req) {
			if err != nil {
				b.Fatal(err)
			}
			n++
			done = done || d.Kind == llm.DeltaDone
		}
		if !done || n != 200*4+1 {
			b.Fatalf("got %d deltas, done %v; want %d and done", n, done, 200*4+1)
		}
		deltas += n
	}
	b.ReportMetric(float64(deltas)/b.Elapsed().Seconds(), "deltas/s")
	b.ReportMetric(float64(deltas)/float64(b.N), "deltas/op")
}
