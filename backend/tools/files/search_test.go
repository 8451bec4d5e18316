package files

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"foya/backend/testwait"
)

// A small repository: ignored folders and files, a nested .gitignore with
// a negation, a .git folder and a binary file.
func searchTree(f *fixture) {
	f.put(".git/HEAD", "needle in git\n", 0o644)
	f.put(".gitignore", "node_modules/\n*.log\nbuild\n", 0o644)
	f.put("node_modules/pkg/index.js", "needle in deps\n", 0o644)
	f.put("build/out.txt", "needle in build\n", 0o644)
	f.put("debug.log", "needle in log\n", 0o644)
	f.put("src/main.go", "package main\n\n// needle one\nfunc main() {}\n", 0o644)
	f.put("src/util.go", "package main\n\nvar Needle = 1 // NEEDLE\n", 0o644)
	f.put("src/.gitignore", "*.tmp\n!keep.tmp\n", 0o644)
	f.put("src/x.tmp", "needle in tmp\n", 0o644)
	f.put("src/keep.tmp", "needle kept\n", 0o644)
	f.put("docs/a.md", "a needle\n", 0o644)
	f.put("img.bin", "needle\x00binary", 0o644)
}

// grep and glob respect .gitignore (nested, with negation), skip .git and
// binaries, and ls names what it hides.
func TestSearchRespectsGitignore(t *testing.T) {
	f := newFixture(t)
	searchTree(f)
	res := f.ok("grep", map[string]any{"pattern": "needle"})
	want := "docs/a.md:1:a needle\nsrc/keep.tmp:1:needle kept\nsrc/main.go:3:// needle one\n"
	if res.Text != want {
		t.Fatalf("grep needle =\n%s\nwant\n%s", res.Text, want)
	}
	res = f.ok("grep", map[string]any{"pattern": "needle", "ignore_case": true, "glob": "*.go"})
	if res.Text != "src/main.go:3:// needle one\nsrc/util.go:3:var Needle = 1 // NEEDLE\n" {
		t.Fatalf("grep -i --glob *.go =\n%s", res.Text)
	}
	// A path given by name is searched even inside an ignored folder.
	res = f.ok("grep", map[string]any{"pattern": "needle", "path": "node_modules"})
	if res.Text != "node_modules/pkg/index.js:1:needle in deps\n" {
		t.Fatalf("grep in ignored folder =\n%s", res.Text)
	}
	res = f.ok("glob", map[string]any{"pattern": "**/*.go"})
	if res.Text != "src/main.go\nsrc/util.go\n" {
		t.Fatalf("glob =\n%s", res.Text)
	}
	res = f.ok("glob", map[string]any{"pattern": "*.go", "path": "src"})
	if res.Text != "src/main.go\nsrc/util.go\n" {
		t.Fatalf("glob in src =\n%s", res.Text)
	}
	res = f.ok("glob", map[string]any{"pattern": "*.go"})
	if !strings.Contains(res.Text, "No files match") || !strings.Contains(res.Text, "**/*.go") {
		t.Fatalf("glob miss =\n%s", res.Text)
	}
	res = f.ok("ls", map[string]any{})
	for _, want := range []string{".git/\n", "src/\n", ".gitignore  (", "Ignored by .gitignore and not listed: build/, debug.log, node_modules/."} {
		if !strings.Contains(res.Text, want) {
			t.Errorf("ls lacks %q:\n%s", want, res.Text)
		}
	}
}

// grep's context lines, separators and line numbers follow ripgrep.
func TestGrepContext(t *testing.T) {
	f := newFixture(t)
	f.put("c.txt", numbered(1, 20), 0o644)
	res := f.ok("grep", map[string]any{"pattern": `^line (3|5|15)$`, "context": 1})
	want := "c.txt-2-line 2\nc.txt:3:line 3\nc.txt-4-line 4\nc.txt:5:line 5\nc.txt-6-line 6\n--\nc.txt-14-line 14\nc.txt:15:line 15\nc.txt-16-line 16\n"
	if res.Text != want {
		t.Fatalf("context =\n%s\nwant\n%s", res.Text, want)
	}
	res = f.ok("grep", map[string]any{"pattern": "line 1$", "path": "c.txt"})
	if res.Text != "c.txt:1:line 1\n" {
		t.Fatalf("one file =\n%s", res.Text)
	}
	res = f.ok("grep", map[string]any{"pattern": "nothing like this"})
	if !strings.Contains(res.Text, "No matches") {
		t.Fatalf("no match =\n%s", res.Text)
	}
}

// spec: O1, O3
// grep and glob are bounded and count exactly what they left out.
func TestSearchBounds(t *testing.T) {
	f := newFixture(t)
	for i := range 30 {
		f.put(fmt.Sprintf("d/f%02d.txt", i), strings.Repeat("hit\n", 10), 0o644)
	}
	res := f.ok("grep", map[string]any{"pattern": "hit"})
	if got := strings.Count(res.Text, ":hit\n"); got != GrepMaxMatches {
		t.Fatalf("%d lines shown; want %d", got, GrepMaxMatches)
	}
	if !strings.HasPrefix(res.Text, "d/f00.txt:1:hit\n") || !strings.Contains(res.Text, "d/f19.txt:10:hit\n") || strings.Contains(res.Text, "d/f20.txt") {
		t.Fatalf("not the first files by name:\n%s", res.Text[:200])
	}
	if !strings.Contains(res.Text, "300 matching lines in 30 files; shown: the first 200, by file name. Not shown: 100 matching lines in 10 files.") {
		t.Fatalf("grep notice:\n%s", res.Text[strings.LastIndex(res.Text, "["):])
	}
	for i := range GlobMaxResults + 7 {
		f.put(fmt.Sprintf("g/%04d.c", i), "", 0o644)
	}
	res = f.ok("glob", map[string]any{"pattern": "g/*.c"})
	if strings.Count(res.Text, ".c\n") != GlobMaxResults || !strings.Contains(res.Text, fmt.Sprintf("%d matches; the first %d (by path) are shown, 7 left out", GlobMaxResults+7, GlobMaxResults)) {
		t.Fatalf("glob notice:\n%s", res.Text[strings.LastIndex(res.Text, "["):])
	}
	// Long lines are cut, and say by how much.
	f.put("long.txt", "hit"+strings.Repeat("z", 1000)+"\n", 0o644)
	res = f.ok("grep", map[string]any{"pattern": "hitz", "path": "long.txt"})
	if !strings.Contains(res.Text, "[503 more bytes on this line]") {
		t.Fatalf("long line: %s", res.Text)
	}
}

// The literal fast path and the regexp path find the same lines.
func TestSearcherPaths(t *testing.T) {
	buf := []byte("foo bar\nFOO baz\nbarfoo\n\nend")
	cases := []struct {
		pattern string
		fold    bool
		want    []string
	}{
		{"foo", false, []string{"foo bar", "barfoo"}},
		{"foo", true, []string{"foo bar", "FOO baz", "barfoo"}},
		{"ba[rz]", false, []string{"foo bar", "FOO baz", "barfoo"}},
		{`foo\b`, false, []string{"foo bar", "barfoo"}},
		{"^$", false, []string{""}},
		{"end$", false, []string{"end"}},
		{`o\sb`, false, []string{"foo bar"}},
		{"x*", false, []string{"foo bar", "FOO baz", "barfoo", "", "end"}},
	}
	for _, c := range cases {
		s, err := newSearcher(c.pattern, c.fold)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		s.each(buf, nil, func(a, b int) bool { got = append(got, string(buf[a:b])); return true })
		if strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("%q fold=%v: %q; want %q", c.pattern, c.fold, got, c.want)
		}
	}
}

// grep skips files larger than GrepMaxFile and says so.
func TestGrepSkipsHugeFiles(t *testing.T) {
	f := newFixture(t)
	fh, err := os.Create(f.path("huge.txt"))
	if err != nil {
		t.Fatal(err)
	}
	fh.WriteString("needle\n")
	if err := fh.Truncate(GrepMaxFile + 1); err != nil {
		testwait.Missing(t, "sparse files ("+err.Error()+")", "grep leaving out huge files")
	}
	fh.Close()
	f.put("small.txt", "needle\n", 0o644)
	res := f.ok("grep", map[string]any{"pattern": "needle"})
	if !strings.HasPrefix(res.Text, "small.txt:1:needle\n") || !strings.Contains(res.Text, "Not searched, larger than 64 MiB: huge.txt.") {
		t.Fatalf("grep =\n%s", res.Text)
	}
}
