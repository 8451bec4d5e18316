package files

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"foya/backend/llm"
	"foya/backend/store"
	"foya/backend/tools"
)

// benchFixture is newFixture for benchmarks.
func benchFixture(b *testing.B) *fixture {
	t := &testing.T{}
	dir, _ := filepath.EvalSymlinks(b.TempDir())
	home := b.TempDir()
	f := &fixture{t: t, dir: dir, home: home, reads: NewMemReads(), tools: map[string]tools.Tool{}}
	for _, tl := range Tools(Options{Reads: f.reads}) {
		f.tools[tl.Spec().Name] = tl
	}
	f.rc = &tools.RunContext{SessionID: "ses_bench", Workdir: dir}
	return f
}

func benchCall(b *testing.B, f *fixture, name string, args any) tools.Result {
	b.Helper()
	res := f.call(name, args)
	if res.IsError {
		b.Fatalf("%s: %s", name, res.Text)
	}
	return res
}

// spec: O1
// read with a limit costs the same on a 1 GiB file as on a 1 MiB one: it
// reads only the page it returns (the 1 GiB file is sparse: text, then a
// hole).
func BenchmarkReadWithLimit(b *testing.B) {
	for _, size := range []int64{1 << 20, 1 << 30} {
		b.Run(fmt.Sprintf("%dMiB", size>>20), func(b *testing.B) {
			f := benchFixture(b)
			fh, err := os.Create(f.path("big.log"))
			if err != nil {
				b.Fatal(err)
			}
			fh.WriteString(numbered(1, 20000)) // 229 KiB of text
			if err := fh.Truncate(size); err != nil {
				b.Skip(err)
			}
			fh.Close()
			b.ResetTimer()
			for b.Loop() {
				benchCall(b, f, "read", map[string]any{"path": "big.log", "offset": 1000, "limit": 100})
			}
		})
	}
}

// grepTree is a generated source tree of n files in n/100 folders, with
// a .gitignore and an ignored folder, made once per process (or kept in
// $FOYA_GREP_TREE between runs).
func grepTree(b *testing.B, n int) string {
	b.Helper()
	dir := os.Getenv("FOYA_GREP_TREE")
	if dir == "" {
		dir = filepath.Join(b.TempDir(), "tree")
	}
	stamp := filepath.Join(dir, fmt.Sprintf(".complete-%d", n))
	if _, err := os.Stat(stamp); err == nil {
		return dir
	}
	r := rand.New(rand.NewPCG(7, 7))
	words := strings.Fields("func return if else for range var const type struct interface map chan go defer select case switch package import handler request response error context value string int bool nil true false")
	os.MkdirAll(filepath.Join(dir, ".git"), 0o755)
	os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("*.gen.go\nvendor/\n"), 0o644)
	var body strings.Builder
	for i := range n {
		d := filepath.Join(dir, fmt.Sprintf("pkg%03d", i/100), fmt.Sprintf("sub%d", i%7))
		if i%5000 == 0 {
			d = filepath.Join(dir, "vendor", fmt.Sprint(i))
		}
		os.MkdirAll(d, 0o755)
		body.Reset()
		lines := 40 + r.IntN(80)
		for l := range lines {
			for w := range 3 + r.IntN(8) {
				if w > 0 {
					body.WriteByte(' ')
				}
				body.WriteString(words[r.IntN(len(words))])
			}
			if r.IntN(4000) == 0 {
				body.WriteString(" needle")
			}
			if l%50 == 0 {
				fmt.Fprintf(&body, " func Serve%dHandler()", r.IntN(1000))
			}
			body.WriteByte('\n')
		}
		name := fmt.Sprintf("file%05d.go", i)
		if i%97 == 0 {
			name = fmt.Sprintf("file%05d.gen.go", i)
		}
		if err := os.WriteFile(filepath.Join(d, name), []byte(body.String()), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	os.WriteFile(stamp, nil, 0o644)
	return dir
}

// The patterns grep is measured with, and the ripgrep flags that ask the
// same question.
var grepPatterns = []struct {
	name    string
	args    map[string]any
	rgFlags []string
}{
	{"literal", map[string]any{"pattern": "needle"}, []string{"needle"}},
	{"regexp", map[string]any{"pattern": `func Serve\d+Handler`}, []string{`func Serve\d+Handler`}},
	{"ignore-case", map[string]any{"pattern": "NEEDLE", "ignore_case": true}, []string{"-i", "NEEDLE"}},
}

// grep over a 50,000-file tree: compare with BenchmarkGrepRipgrep (within
// 3x is the target).
func BenchmarkGrep(b *testing.B) {
	dir := grepTree(b, 50_000)
	f := benchFixture(b)
	f.rc.Workdir = dir
	for _, p := range grepPatterns {
		b.Run(p.name, func(b *testing.B) {
			for b.Loop() {
				benchCall(b, f, "grep", p.args)
			}
		})
	}
}

// ripgrep on the same tree and questions, as the reference: line numbers,
// .gitignore respected, output discarded.
func BenchmarkGrepRipgrep(b *testing.B) {
	rg, err := exec.LookPath("rg")
	if err != nil {
		b.Skip("ripgrep is not installed (apt-get install ripgrep)")
	}
	dir := grepTree(b, 50_000)
	for _, p := range grepPatterns {
		b.Run(p.name, func(b *testing.B) {
			for b.Loop() {
				cmd := exec.Command(rg, append([]string{"-n", "--no-messages"}, append(p.rgFlags, dir)...)...)
				if err := cmd.Run(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// openStore opens a store with one session for benchmarks.
func openStore(b *testing.B) *store.Store {
	st, err := store.Open(context.Background(), filepath.Join(b.TempDir(), "foya.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	if _, err := st.CreateSession(context.Background(), llm.Session{ID: "ses_bench", Workdir: "/w", ApprovalMode: "auto"}); err != nil {
		b.Fatal(err)
	}
	return st
}

// keepChange stores a tool's File Changes as the engine does: blobs and
// records in one transaction.
func keepChange(b *testing.B, st *store.Store, res tools.Result, n int) {
	var c llm.Commit
	for i, fc := range res.FileChanges {
		rec := fc.FileChange
		rec.ID, rec.SessionID = fmt.Sprintf("chg_%d_%d", n, i), "ses_bench"
		c.Blobs = append(c.Blobs, fc.Before, fc.After)
		c.FileChanges = append(c.FileChanges, rec)
	}
	if _, err := st.Apply(context.Background(), c); err != nil {
		b.Fatal(err)
	}
}

// spec: F1
// An edit of one line in a 10,000-line file: the edit tool's whole call
// (read the file, diff with go-diff, atomic write) and storing its change
// with both blobs (target: under 20 ms).
func BenchmarkEditDiffAndStore(b *testing.B) {
	f := benchFixture(b)
	st := openStore(b)
	f.put("big.go", numbered(1, 10000), 0o644)
	benchCall(b, f, "read", map[string]any{"path": "big.go", "limit": 1})
	i := 0
	for b.Loop() {
		i++
		res := benchCall(b, f, "edit", map[string]any{"path": "big.go", "old_string": "line 5000\nline 5001\n",
			"new_string": fmt.Sprintf("line 5000 edit %d\nline 5001\n", i)})
		keepChange(b, st, res, i)
		// Put the line back outside the timing, so each edit is the same size.
		b.StopTimer()
		os.WriteFile(f.path("big.go"), []byte(numbered(1, 10000)), 0o644)
		benchCall(b, f, "read", map[string]any{"path": "big.go", "limit": 1})
		b.StartTimer()
	}
}

// Ten edits of one 1 MiB file store each distinct content once: eleven
// blobs (the original and ten versions) for twenty before/after contents.
func TestTenEditsStoreEachContentOnce(t *testing.T) {
	f := newFixture(t)
	dbPath := filepath.Join(t.TempDir(), "foya.db")
	st, err := store.Open(context.Background(), dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.CreateSession(context.Background(), llm.Session{ID: "ses_test", Workdir: f.dir, ApprovalMode: "auto"}); err != nil {
		t.Fatal(err)
	}
	var body strings.Builder
	body.WriteString("version 0\n")
	for body.Len() < 1<<20 {
		fmt.Fprintf(&body, "row %07d of a one mebibyte file\n", body.Len())
	}
	f.put("m.txt", body.String(), 0o644)
	f.ok("read", map[string]any{"path": "m.txt", "limit": 1})
	seen := 0
	for i := range 10 {
		res := f.ok("edit", map[string]any{"path": "m.txt", "old_string": fmt.Sprintf("version %d\n", i), "new_string": fmt.Sprintf("version %d\n", i+1)})
		var c llm.Commit
		for j, fc := range res.FileChanges {
			rec := fc.FileChange
			rec.ID, rec.SessionID = fmt.Sprintf("chg_%d_%d", i, j), "ses_test"
			c.Blobs = append(c.Blobs, fc.Before, fc.After)
			c.FileChanges = append(c.FileChanges, rec)
			seen += 2
		}
		if _, err := st.Apply(context.Background(), c); err != nil {
			t.Fatal(err)
		}
	}
	db, err := sql.Open("sqlite", "file:"+dbPath+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var blobs int
	var bytes int64
	if err := db.QueryRow(`SELECT count(*), sum(size) FROM blobs`).Scan(&blobs, &bytes); err != nil {
		t.Fatal(err)
	}
	if seen != 20 || blobs != 11 {
		t.Fatalf("%d contents kept as %d blobs; want 20 as 11", seen, blobs)
	}
	t.Logf("20 contents of %d bytes kept as %d blobs, %d bytes", body.Len(), blobs, bytes)
}
