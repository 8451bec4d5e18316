package files

import (
	"bytes"
	"container/heap"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"

	"foya/backend/tools"
)

//go:embed tool_grep.md
var grepDescription string

// Caps of one grep call: matching lines shown, bytes of output, bytes of
// one shown line, context lines, and the largest file searched.
const (
	GrepMaxMatches = 200
	GrepMaxBytes   = 50 << 10
	GrepMaxLineLen = 500
	GrepMaxContext = 10
	GrepMaxFile    = 64 << 20
)

type grepTool struct{ e *env }

func (grepTool) Spec() tools.Spec {
	return tools.Spec{
		Name:        GrepName,
		Description: strings.TrimSpace(grepDescription),
		Exposure:    tools.Direct,
		ReadOnly:    true,
		Schema:      grepSchema,
	}
}

// ParallelSafe implements tools.Parallel: searching changes nothing.
func (grepTool) ParallelSafe(tools.Call) bool { return true }

type grepArgs struct {
	Pattern    string  `json:"pattern" jsonschema:"required" jsonschema_description:"RE2, e.g. \\bfoo\\( or (?i)todo"`
	Path       *string `json:"path" jsonschema_description:"Folder or file (default: the working directory)."`
	Glob       *string `json:"glob" jsonschema_description:"Only files matching it: *.go (names, any folder) or src/**/*.ts."`
	IgnoreCase bool    `json:"ignore_case"`
	Context    *int    `json:"context" jsonschema:"minimum=0,maximum=10" jsonschema_description:"Lines around each match."`
}

var grepSchema = tools.SchemaOf[grepArgs]()

func (t grepTool) Run(ctx context.Context, rc *tools.RunContext, call tools.Call) (tools.Result, error) {
	var a grepArgs
	if err := tools.Decode(call, &a); err != nil {
		return tools.Errorf("grep: %v", err), nil
	}
	switch {
	case a.Pattern == "":
		return tools.Errorf("grep: pattern is empty: give the text or regular expression to search for"), nil
	case strings.ContainsAny(a.Pattern, "\n\x00"):
		return tools.Errorf("grep: the pattern contains a line break or NUL byte: grep matches one line at a time, so search for one line's text"), nil
	}
	cx := 0
	if a.Context != nil {
		if *a.Context < 0 || *a.Context > GrepMaxContext {
			return tools.Errorf("grep: context must be from 0 to %d, not %d", GrepMaxContext, *a.Context), nil
		}
		cx = *a.Context
	}
	glob := ""
	if a.Glob != nil {
		glob = strings.TrimPrefix(strings.ReplaceAll(*a.Glob, "\\", "/"), "./")
		if glob == "" || !doublestar.ValidatePattern(glob) {
			return tools.Errorf("grep: glob %q is not a valid glob (for example *.go or src/**/*.ts)", *a.Glob), nil
		}
	}
	s, err := newSearcher(a.Pattern, a.IgnoreCase)
	if err != nil {
		return tools.Errorf("grep: the pattern is not a valid regular expression (RE2 syntax): %v; to search for the text itself, escape special characters with a backslash", err), nil
	}
	p := "."
	if a.Path != nil {
		p = *a.Path
	}
	_, dir := sessionOf(rc)
	tg, err := resolve(dir, p, true)
	if err != nil {
		return tools.Errorf("grep: %v", err), nil
	}
	defer tg.close()
	fc := t.e.fence(rc)
	if msg := fc.readRefusal(GrepName, "searched", tg.Real); msg != "" {
		return tools.Errorf("%s", msg), nil
	}
	if res, err := ask(ctx, rc, call, readKind(tg), "search "+tg.Show()+" for "+a.Pattern, "", tg.Real); res != nil || err != nil {
		return deref(res), err
	}
	l := tg.loc()
	fi, err := l.stat()
	if err != nil {
		return tools.Errorf("grep: %s", openError(tg.Show(), err)), nil
	}
	g := &grepRun{s: s, context: cx, glob: glob, fc: fc}
	var stats *walkStats
	if fi.IsDir() {
		prefix := showPrefix(tg)
		stats, err = walk(ctx, l, tg.Real, tg.Workdir, func(e entry) bool {
			if fc.hides(e.abs) {
				g.leave(prefix + e.rel)
				return false
			}
			if e.typ.IsRegular() {
				g.file(e.dir, e.name, prefix+e.rel, e.rel)
			}
			return true
		})
		if stats == nil {
			return tools.Errorf("grep: %s", openError(tg.Show(), err)), nil
		}
		if err != nil {
			return tools.Errorf("grep: stopped: %v", err), nil
		}
	} else {
		g.glob = ""
		dir, err := openDirHandle(l.parent())
		if err != nil {
			return tools.Errorf("grep: %s", openError(tg.Show(), err)), nil
		}
		g.file(dir, l.base(), tg.Show(), path.Base(tg.Real))
		dir.close()
	}
	return tools.Text(g.render(a, tg, stats)), nil
}

// grepRun is one search: the searcher, and what it found so far.
type grepRun struct {
	s       *searcher
	context int
	glob    string

	mu      sync.Mutex
	kept    fileHeap // the files shown so far, largest name on top
	keptN   int      // matching lines they show
	matches int      // matching lines in every file
	files   int      // files with a match
	big     []string // files too large to search
	errs    []string // files that could not be read
	fc      fence
	left    []string // paths the fence left out
}

// leave notes a path the fence left out.
func (g *grepRun) leave(name string) {
	g.mu.Lock()
	g.left = append(g.left, name)
	g.mu.Unlock()
}

// fileHits is what one file contributed.
type fileHits struct {
	name  string
	count int      // matching lines
	shown int      // matching lines in out
	out   []string // rendered lines (matches, context and "--")
}

var bufPool = sync.Pool{New: func() any { return new([2][]byte) }}

// file searches the file base of the open folder dir; name is how results
// show it, rel its path below the walk's root, for the glob.
func (g *grepRun) file(dir *dirHandle, base, name, rel string) {
	if g.glob != "" {
		target := rel
		if !strings.Contains(g.glob, "/") {
			target = path.Base(rel)
		}
		if ok, _ := doublestar.Match(g.glob, target); !ok {
			return
		}
	}
	bufs := bufPool.Get().(*[2][]byte)
	defer bufPool.Put(bufs)
	buf, err := dir.readFile(base, bufs[0], GrepMaxFile)
	bufs[0] = buf[:0]
	switch {
	case errors.Is(err, errTooLarge):
		g.mu.Lock()
		g.big = append(g.big, name)
		g.mu.Unlock()
		return
	case isEscape(err):
		g.failed(name + " (a link leading outside the workspace)")
		return
	case err != nil:
		g.failed(name)
		return
	}
	if bytes.IndexByte(buf, 0) >= 0 {
		return // binary: skipped, as ripgrep does
	}
	var spans [][2]int
	count := 0
	bufs[1] = g.s.each(buf, bufs[1], func(start, end int) bool {
		count++
		if len(spans) < GrepMaxMatches {
			spans = append(spans, [2]int{start, end})
		}
		return true
	})
	if count == 0 {
		return
	}
	h := &fileHits{name: name, count: count, shown: len(spans), out: g.renderFile(buf, name, spans)}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.matches += count
	g.files++
	heap.Push(&g.kept, h)
	g.keptN += h.shown
	// Keep only the files that come first by name and hold the lines
	// shown; the rest are counted, not kept.
	for g.kept.Len() > 1 && g.keptN-g.kept[0].shown >= GrepMaxMatches {
		top := heap.Pop(&g.kept).(*fileHits)
		g.keptN -= top.shown
	}
}

func (g *grepRun) failed(name string) {
	g.mu.Lock()
	g.errs = append(g.errs, name)
	g.mu.Unlock()
}

// renderFile renders the matching lines at spans with their line numbers
// and g.context lines of context around them, as ripgrep prints them.
func (g *grepRun) renderFile(buf []byte, name string, spans [][2]int) []string {
	var out []string
	lineNo, counted := 1, 0 // lineNo is the number of the line starting at counted
	numberAt := func(start int) int {
		lineNo += bytes.Count(buf[counted:start], []byte{'\n'})
		counted = start
		return lineNo
	}
	last := 0 // the last line number printed
	for i, sp := range spans {
		no := numberAt(sp[0])
		// Lines before, back to the last one printed.
		var before []string
		s := sp[0]
		for k := 1; k <= g.context && no-k > last && s > 0; k++ {
			ps := bytes.LastIndexByte(buf[:s-1], '\n') + 1
			before = append(before, renderLine(name, '-', no-k, buf[ps:s-1]))
			s = ps
		}
		first := no - len(before)
		if g.context > 0 && last > 0 && first > last+1 {
			out = append(out, "--")
		}
		slices.Reverse(before)
		out = append(out, before...)
		out = append(out, renderLine(name, ':', no, buf[sp[0]:sp[1]]))
		last = no
		// Lines after, up to the next match.
		next := -1
		if i+1 < len(spans) {
			next = spans[i+1][0]
		}
		e := sp[1]
		for k := 1; k <= g.context && e < len(buf); k++ {
			ls := e + 1
			if ls >= len(buf) || ls == next {
				break
			}
			le := bytes.IndexByte(buf[ls:], '\n')
			if le < 0 {
				le = len(buf)
			} else {
				le += ls
			}
			out = append(out, renderLine(name, '-', no+k, buf[ls:le]))
			last = no + k
			e = le
		}
	}
	return out
}

// renderLine renders one line: name, separator, number, separator, text
// (cut at GrepMaxLineLen bytes, without a CR, invalid UTF-8 replaced).
func renderLine(name string, sep byte, no int, text []byte) string {
	text = trimCR(text)
	cut := 0
	if len(text) > GrepMaxLineLen {
		cut = len(text) - GrepMaxLineLen
		text = cutUTF8(text[:GrepMaxLineLen])
		cut = cut + (GrepMaxLineLen - len(text))
	}
	t := string(text)
	if !utf8.ValidString(t) {
		t = strings.ToValidUTF8(t, "\uFFFD")
	}
	if cut > 0 {
		t += fmt.Sprintf(" … [%d more bytes on this line]", cut)
	}
	return fmt.Sprintf("%s%c%d%c%s", name, sep, no, sep, t)
}

// render puts the kept files together within the caps and says what was
// left out.
func (g *grepRun) render(a grepArgs, tg target, stats *walkStats) string {
	files := slices.Clone(g.kept)
	slices.SortFunc(files, func(x, y *fileHits) int { return strings.Compare(x.name, y.name) })
	var b strings.Builder
	shown, leftFiles, full := 0, g.files-len(files), false
	for _, f := range files {
		inFile := 0
		for _, line := range f.out {
			if full {
				break
			}
			isMatch := line != "--" && strings.HasPrefix(line[len(f.name):], ":")
			if isMatch && shown == GrepMaxMatches || b.Len()+len(line)+1 > GrepMaxBytes {
				full = true
				break
			}
			if isMatch {
				shown++
				inFile++
			}
			b.WriteString(line)
			b.WriteByte('\n')
		}
		if inFile < f.count {
			leftFiles++
		}
	}
	var notes []string
	if g.matches == 0 {
		notes = append(notes, fmt.Sprintf("No matches for %q in %s.", quoted(a.Pattern), tg.Show()))
		if !a.IgnoreCase {
			notes = append(notes, "Try ignore_case, a shorter pattern, or another path.")
		}
		notes = append(notes, "Files ignored by .gitignore and binary files are not searched.")
	} else if shown < g.matches {
		notes = append(notes, fmt.Sprintf("%s in %s; shown: the first %d, by file name. Not shown: %s in %s. One grep shows at most %d matching lines and %d KiB: narrow it with path, glob or a more specific pattern.",
			plural(g.matches, "matching line", "matching lines"), plural(g.files, "file", "files"), shown,
			plural(g.matches-shown, "matching line", "matching lines"), plural(leftFiles, "file", "files"),
			GrepMaxMatches, GrepMaxBytes>>10))
	}
	if len(g.big) > 0 {
		slices.Sort(g.big)
		notes = append(notes, fmt.Sprintf("Not searched, larger than %d MiB: %s.", GrepMaxFile>>20, strings.Join(g.big, ", ")))
	}
	if len(g.errs) > 0 {
		slices.Sort(g.errs)
		notes = append(notes, fmt.Sprintf("Could not be read: %s.", strings.Join(g.errs, ", ")))
	}
	if note := g.fc.hiddenNote(g.left); note != "" {
		notes = append(notes, note)
	}
	notes = append(notes, unreadableNote(stats)...)
	if len(notes) > 0 {
		fmt.Fprintf(&b, "[%s]\n", strings.Join(notes, " "))
	}
	return b.String()
}

// fileHeap is a max-heap of files by name.
type fileHeap []*fileHits

func (h fileHeap) Len() int           { return len(h) }
func (h fileHeap) Less(i, j int) bool { return h[i].name > h[j].name }
func (h fileHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *fileHeap) Push(x any)        { *h = append(*h, x.(*fileHits)) }
func (h *fileHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

var (
	_ tools.Tool     = grepTool{}
	_ tools.Parallel = grepTool{}
)
