package files

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/sergi/go-diff/diffmatchpatch"

	"foya/backend/fspath"
	"foya/backend/llm"
)

// Context is how many unchanged lines a hunk shows around each change, as
// diff -u does.
const Context = 3

// Diff is a unified diff between two contents.
type Diff struct {
	// Text is the diff with its --- and +++ header; empty when the
	// contents are equal. For binary contents it is GNU diff's one line
	// "Binary files a and b differ".
	Text           string
	Added, Removed int
	Binary         bool
}

// DiffNames returns the names a diff's header gives a path: a/REL and
// b/REL inside the workspace, the absolute path otherwise.
func DiffNames(path, workdir string) (string, string) {
	if workdir != "" {
		if wd, err := realPath(workdir); err == nil {
			if rel, ok := fspath.Rel(wd, path); ok && rel != "." {
				rel = strings.ReplaceAll(rel, "\\", "/")
				return "a/" + rel, "b/" + rel
			}
		}
	}
	return path, path
}

// MaxDiff bounds the contents, before and after together, that Unified
// compares line by line. A line diff takes many times its inputs in memory
// (go-diff also panics past about a million distinct lines), and the diff
// is stored and sent to clients several times; past MaxDiff, Unified
// returns a one-line note instead, which patch does not apply.
const MaxDiff = 8 << 20

// Unified returns the unified diff that turns before into after, made with
// go-diff at line level. existed and exists say whether there was a file
// before and after: a missing side is named /dev/null, as diff -N does.
// GNU patch applied to before gives exactly after: lines keep their own
// endings (CRLF included) and a last line without a newline is marked
// "\ No newline at end of file".
func Unified(oldName, newName string, before, after []byte, existed, exists bool) Diff {
	if existed == exists && bytes.Equal(before, after) {
		return Diff{}
	}
	if !existed {
		oldName = "/dev/null"
	}
	if !exists {
		newName = "/dev/null"
	}
	if isBinary(before) || isBinary(after) {
		return Diff{Text: fmt.Sprintf("Binary files %s and %s differ\n", oldName, newName), Binary: true}
	}
	if len(before)+len(after) > MaxDiff {
		d := Diff{Text: fmt.Sprintf("Files %s and %s differ: too large to compare line by line (%s); the change is kept whole and can be reverted\n",
			oldName, newName, Size(int64(len(before)+len(after))))}
		if !existed {
			d.Added = lineCount(after)
		}
		if !exists {
			d.Removed = lineCount(before)
		}
		return d
	}
	ops := lineOps(before, after)
	var b strings.Builder
	fmt.Fprintf(&b, "--- %s\n+++ %s\n", oldName, newName)
	d := Diff{}
	for _, h := range hunks(ops, Context) {
		h.write(&b)
		d.Added += h.added
		d.Removed += h.removed
	}
	if d.Added == 0 && d.Removed == 0 {
		// Same bytes, but one side is missing: an empty file created or
		// deleted. diff -N prints a header only; so do we.
		d.Text = b.String()
		return d
	}
	d.Text = b.String()
	return d
}

// lineOp is one line of a line-level diff: ' ' kept, '-' removed, '+'
// added. Text includes the line's ending, if it has one.
type lineOp struct {
	kind byte
	text string
}

// DiffTimeout bounds how long go-diff looks for a minimal diff; after it a
// correct but longer diff is returned.
const DiffTimeout = 5 * time.Second

func lineOps(before, after []byte) []lineOp {
	dmp := diffmatchpatch.New()
	dmp.DiffTimeout = DiffTimeout
	r1, r2, lines := dmp.DiffLinesToRunes(string(before), string(after))
	diffs := dmp.DiffCharsToLines(dmp.DiffMainRunes(r1, r2, false), lines)
	var ops []lineOp
	for _, d := range diffs {
		kind := byte(' ')
		switch d.Type {
		case diffmatchpatch.DiffDelete:
			kind = '-'
		case diffmatchpatch.DiffInsert:
			kind = '+'
		}
		for _, l := range splitLines(d.Text) {
			ops = append(ops, lineOp{kind, l})
		}
	}
	return ops
}

// splitLines splits s after each "\n"; a last line without one is kept.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	out := strings.SplitAfter(s, "\n")
	if out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}

// hunk is one @@ section of a unified diff.
type hunk struct {
	oldStart, oldCount int // oldStart is 1-based; for an empty range, the line before
	newStart, newCount int
	ops                []lineOp
	added, removed     int
}

// hunks groups ops into hunks with ctx lines of context, joining changes
// separated by at most 2*ctx unchanged lines, as diff -u does.
func hunks(ops []lineOp, ctx int) []hunk {
	// oldAt[i] and newAt[i] are the 0-based line numbers before ops[i].
	oldAt, newAt := make([]int, len(ops)+1), make([]int, len(ops)+1)
	for i, op := range ops {
		oldAt[i+1], newAt[i+1] = oldAt[i], newAt[i]
		if op.kind != '+' {
			oldAt[i+1]++
		}
		if op.kind != '-' {
			newAt[i+1]++
		}
	}
	var out []hunk
	n := len(ops)
	for i := 0; i < n; {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		start, end := max(i-ctx, 0), i
		for {
			for end < n && ops[end].kind != ' ' {
				end++
			}
			k := end
			for k < n && ops[k].kind == ' ' {
				k++
			}
			if k == n || k-end > 2*ctx {
				end = min(end+ctx, k)
				break
			}
			end = k
		}
		h := hunk{ops: ops[start:end]}
		for _, op := range h.ops {
			switch op.kind {
			case ' ':
				h.oldCount++
				h.newCount++
			case '-':
				h.oldCount++
				h.removed++
			case '+':
				h.newCount++
				h.added++
			}
		}
		h.oldStart, h.newStart = oldAt[start]+1, newAt[start]+1
		if h.oldCount == 0 {
			h.oldStart--
		}
		if h.newCount == 0 {
			h.newStart--
		}
		out = append(out, h)
		i = end
	}
	return out
}

func rangeText(start, count int) string {
	if count == 1 {
		return strconv.Itoa(start)
	}
	return strconv.Itoa(start) + "," + strconv.Itoa(count)
}

func (h hunk) write(b *strings.Builder) {
	fmt.Fprintf(b, "@@ -%s +%s @@\n", rangeText(h.oldStart, h.oldCount), rangeText(h.newStart, h.newCount))
	for _, op := range h.ops {
		b.WriteByte(op.kind)
		b.WriteString(op.text)
		if !strings.HasSuffix(op.text, "\n") {
			b.WriteString("\n\\ No newline at end of file\n")
		}
	}
}

// HunkCount returns how many hunks a change's diff has that a revert can
// pick one by one: 0 for a folder, binary contents, a deletion or a
// change without a diff.
func HunkCount(c llm.FileChange) int {
	if c.IsDir || c.Binary || c.Diff == "" || !c.ExistsAfter {
		return 0
	}
	hs, err := parseHunks(c.Diff)
	if err != nil {
		return 0
	}
	return len(hs)
}

// parseHunks reads the hunks of a unified diff made by Unified.
func parseHunks(diff string) ([]hunk, error) {
	var out []hunk
	var cur *hunk
	for _, line := range splitLines(diff) {
		switch {
		case strings.HasPrefix(line, "@@ "):
			h, err := parseHeader(line)
			if err != nil {
				return nil, err
			}
			out = append(out, h)
			cur = &out[len(out)-1]
		case cur == nil:
			// the --- and +++ header
		case strings.HasPrefix(line, `\`):
			if len(cur.ops) == 0 {
				return nil, errors.New("diff: a no-newline marker before any line")
			}
			last := &cur.ops[len(cur.ops)-1]
			last.text = strings.TrimSuffix(last.text, "\n")
		case line[0] == ' ' || line[0] == '-' || line[0] == '+':
			cur.ops = append(cur.ops, lineOp{line[0], line[1:]})
			switch line[0] {
			case '-':
				cur.removed++
			case '+':
				cur.added++
			}
		default:
			return nil, fmt.Errorf("diff: unexpected line %q", strings.TrimRight(line, "\n"))
		}
	}
	return out, nil
}

func parseHeader(line string) (hunk, error) {
	var h hunk
	fields := strings.Fields(line)
	if len(fields) < 4 || fields[0] != "@@" || fields[3] != "@@" || fields[1][0] != '-' || fields[2][0] != '+' {
		return h, fmt.Errorf("diff: bad hunk header %q", strings.TrimSpace(line))
	}
	var err1, err2 error
	h.oldStart, h.oldCount, err1 = parseRange(fields[1][1:])
	h.newStart, h.newCount, err2 = parseRange(fields[2][1:])
	if err := errors.Join(err1, err2); err != nil {
		return h, fmt.Errorf("diff: bad hunk header %q: %w", strings.TrimSpace(line), err)
	}
	return h, nil
}

func parseRange(s string) (start, count int, err error) {
	a, b, ok := strings.Cut(s, ",")
	if start, err = strconv.Atoi(a); err != nil {
		return 0, 0, err
	}
	count = 1
	if ok {
		count, err = strconv.Atoi(b)
	}
	return start, count, err
}

// side returns the lines of one side of a hunk: old ('-' and ' ') or new
// ('+' and ' ').
func (h hunk) side(old bool) []string {
	var out []string
	for _, op := range h.ops {
		if op.kind == ' ' || (old && op.kind == '-') || (!old && op.kind == '+') {
			out = append(out, op.text)
		}
	}
	return out
}

// errHunk means a hunk's lines are not in the content any more.
var errHunk = errors.New("hunk does not apply")

// ErrBadHunk means a hunk revert asked for hunks a change does not have.
var ErrBadHunk = errors.New("no such hunk")

// unapply reverses the hunks numbered in which (1-based) of diff in
// content, which the diff's after side should be: each hunk's new lines
// are found (at their recorded place, else the nearest place they match)
// and replaced by its old lines.
func unapply(content []byte, diff string, which []int) ([]byte, error) {
	hs, err := parseHunks(diff)
	if err != nil {
		return nil, err
	}
	lines := splitLines(string(content))
	picked := make([]bool, len(hs))
	for _, n := range which {
		if n < 1 || n > len(hs) {
			return nil, fmt.Errorf("%w: %d (the change has %d)", ErrBadHunk, n, len(hs))
		}
		picked[n-1] = true
	}
	// Last hunk first, so the places of earlier ones stay valid.
	for i := len(hs) - 1; i >= 0; i-- {
		if !picked[i] {
			continue
		}
		h := hs[i]
		want, repl := h.side(false), h.side(true)
		at := h.newStart - 1
		if h.newCount == 0 {
			at = h.newStart
		}
		pos := findBlock(lines, want, at)
		if pos < 0 {
			return nil, fmt.Errorf("hunk %d (@@ -%s +%s @@): %w", i+1, rangeText(h.oldStart, h.oldCount), rangeText(h.newStart, h.newCount), errHunk)
		}
		next := make([]string, 0, len(lines)-len(want)+len(repl))
		next = append(next, lines[:pos]...)
		next = append(next, repl...)
		next = append(next, lines[pos+len(want):]...)
		lines = next
	}
	return []byte(strings.Join(lines, "")), nil
}

// findBlock returns where want occurs in lines, nearest to at, or -1.
func findBlock(lines, want []string, at int) int {
	match := func(p int) bool {
		if p < 0 || p+len(want) > len(lines) {
			return false
		}
		for i, w := range want {
			if lines[p+i] != w {
				return false
			}
		}
		return true
	}
	for d := 0; d <= len(lines); d++ {
		if match(at - d) {
			return at - d
		}
		if d > 0 && match(at+d) {
			return at + d
		}
	}
	return -1
}
