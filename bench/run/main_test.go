package main

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

const sample = `goos: linux
goarch: amd64
pkg: foya/backend/tools/files
cpu: AMD EPYC
BenchmarkReadWithLimit-2   	       1	    812345 ns/op	   40960 B/op	      35 allocs/op
BenchmarkGrep/literal-2    	       1	  91000000 ns/op	        27.50 files/ms	 1200 B/op	 9 allocs/op
--- SKIP: BenchmarkGrepRipgrep
    bench_test.go:151: ripgrep is not installed (apt-get install ripgrep)
BenchmarkStepCost-2        	       1	 950000000 ns/op	         0.4700 step1000-ms	         1.290 ratio
--- FAIL: BenchmarkPut
    bench_test.go:40: put: disk full
FAIL
exit status 1
`

// spec: O4 — make bench reads every result line of go
// test -bench, with its own metrics, and the skips and failures with their
// reasons, whatever the benchmark's name (none is listed anywhere).
func TestParseText(t *testing.T) {
	got := parseText("foya/backend/tools/files", sample)
	p := "foya/backend/tools/files"
	want := []result{
		{Pkg: p, Name: "BenchmarkReadWithLimit", Iterations: 1, Metrics: []metric{{812345, "ns/op"}, {40960, "B/op"}, {35, "allocs/op"}}},
		{Pkg: p, Name: "BenchmarkGrep/literal", Iterations: 1, Metrics: []metric{{91000000, "ns/op"}, {27.5, "files/ms"}, {1200, "B/op"}, {9, "allocs/op"}}},
		{Pkg: p, Name: "BenchmarkGrepRipgrep", Status: "SKIP", Note: "ripgrep is not installed (apt-get install ripgrep)"},
		{Pkg: p, Name: "BenchmarkStepCost", Iterations: 1, Metrics: []metric{{950000000, "ns/op"}, {0.47, "step1000-ms"}, {1.29, "ratio"}}},
		{Pkg: p, Name: "BenchmarkPut", Status: "FAIL", Note: "put: disk full"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("parseText =\n%+v\nwant\n%+v", got, want)
	}
}

// spec: O4 — the generated block is replaced between its
// markers and the prose around it stays byte for byte; a file without the
// markers gets a section with them at the end; broken markers are an error,
// never a guess.
func TestRewrite(t *testing.T) {
	doc := "# Benchmarks\n\nHand-written prose.\n\n" + beginMarker + "\nold figures\n" + endMarker + "\n\nMore prose.\n"
	got, err := rewrite(doc, "new figures\n")
	if err != nil {
		t.Fatal(err)
	}
	if want := "# Benchmarks\n\nHand-written prose.\n\n" + beginMarker + "\nnew figures\n" + endMarker + "\n\nMore prose.\n"; got != want {
		t.Errorf("rewrite =\n%s\nwant\n%s", got, want)
	}
	again, err := rewrite(got, "new figures\n")
	if err != nil || again != got {
		t.Errorf("rewriting the same block changed the file: %v\n%s", err, again)
	}

	appended, err := rewrite("# Benchmarks\n\nProse", "figures\n")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(appended, "# Benchmarks\n\nProse\n") || !strings.HasSuffix(appended, beginMarker+"\nfigures\n"+endMarker+"\n") {
		t.Errorf("rewrite without markers =\n%s", appended)
	}

	for _, bad := range []string{
		"x " + endMarker + " " + beginMarker,
		beginMarker + " only",
		endMarker + " only",
		beginMarker + endMarker + beginMarker + endMarker,
	} {
		if _, err := rewrite(bad, "figures\n"); err == nil {
			t.Errorf("rewrite(%q) gave no error", bad)
		}
	}
}

// spec: O4 — the block names the date, the cores and the
// session's wall, CPU and peak RSS, and a row per benchmark with its own
// metrics; failures are listed first.
func TestMarkdown(t *testing.T) {
	r := report{Date: time.Date(2026, 12, 1, 15, 4, 0, 0, time.UTC), Cores: 2, CPU: "AMD EPYC", Load: "1.00 / 2.00 / 3.00",
		Go: "go1.26.8", Commit: "abc1234", Benchtime: "1x",
		Results: parseText("foya/backend/tools/files", sample),
		Exec:    &execSummary{Calls: 200, PerStep: 10, Runs: 3, Tool: "ls", Approval: "auto", WallMS: 171.4, CPUMS: 230.9, MaxRSSKB: 25190},
		Failed:  []string{"foya/backend/trash: exit status 1"}}
	md := r.markdown()
	for _, want := range []string{
		"on 2026-12-01 15:04 UTC: 2 cores (AMD EPYC)",
		"**Failed:**\n\n- foya/backend/trash: exit status 1",
		"| 171 ms | 231 ms | 24.6 MB |",
		"| backend/tools/files | BenchmarkReadWithLimit | 1 | 812,345 | 40,960 | 35 |  |",
		"| backend/tools/files | BenchmarkGrep/literal | 1 | 91,000,000 | 1,200 | 9 | 27.5 files/ms |",
		"| backend/tools/files | BenchmarkGrepRipgrep | — | — | — | — | SKIP: ripgrep is not installed (apt-get install ripgrep) |",
		"| BenchmarkStepCost | 1 | 950,000,000 | — | — | 0.47 step1000-ms, 1.29 ratio |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
}
