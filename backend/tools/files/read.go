package files

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"image"
	_ "image/gif" // image.DecodeConfig for GIF
	_ "image/jpeg"
	_ "image/png"
	"io"
	"io/fs"
	"net/http"
	"strings"
	"unicode/utf8"

	_ "golang.org/x/image/webp" // image.DecodeConfig for WebP

	"foya/backend/tools"
)

//go:embed tool_read.md
var readDescription string

// Caps of one read (spec O1): at most ReadMaxLines lines and ReadMaxBytes
// bytes of file content, keeping the head (spec O2).
const (
	ReadMaxLines = 2000
	ReadMaxBytes = 50 << 10
	// MaxImage is the largest image read returns as an image.
	MaxImage = 10 << 20
	// countBudget is how much of a file read reads past a page whose
	// limit the model chose, to count the lines it left out; past it only
	// bytes are counted (from the file's size) and the rest is not read.
	countBudget = 16 << 20
)

type readTool struct{ e *env }

func (readTool) Spec() tools.Spec {
	return tools.Spec{
		Name:        ReadName,
		Description: strings.TrimSpace(readDescription),
		Exposure:    tools.Direct,
		ReadOnly:    true,
		Schema:      readSchema,
	}
}

// ParallelSafe implements tools.Parallel: reading changes nothing.
func (readTool) ParallelSafe(tools.Call) bool { return true }

type readArgs struct {
	Path   string `json:"path" jsonschema:"required"`
	Offset *int   `json:"offset" jsonschema:"minimum=1" jsonschema_description:"First line, from 1."`
	Limit  *int   `json:"limit" jsonschema:"minimum=1" jsonschema_description:"Most lines (default and cap 2000)."`
}

var readSchema = tools.SchemaOf[readArgs]()

func (t readTool) Run(ctx context.Context, rc *tools.RunContext, call tools.Call) (tools.Result, error) {
	var a readArgs
	if err := tools.Decode(call, &a); err != nil {
		return tools.Errorf("read: %v", err), nil
	}
	offset, limit, chosen := 1, ReadMaxLines, false
	if a.Offset != nil {
		if *a.Offset < 1 {
			return tools.Errorf("read: offset must be 1 or more (the first line is 1), not %d", *a.Offset), nil
		}
		offset = *a.Offset
	}
	if a.Limit != nil {
		if *a.Limit < 1 {
			return tools.Errorf("read: limit must be 1 or more, not %d", *a.Limit), nil
		}
		limit, chosen = min(*a.Limit, ReadMaxLines), true
	}
	sid, dir := sessionOf(rc)
	tg, err := resolve(dir, a.Path, true)
	if err != nil {
		return tools.Errorf("read: %v", err), nil
	}
	defer tg.close()
	if msg := t.e.fence(rc).readRefusal(ReadName, "read", tg.Real); msg != "" {
		return tools.Errorf("%s", msg), nil
	}
	if res, err := ask(ctx, rc, call, readKind(tg), "read "+tg.Show(), "", tg.Real); res != nil || err != nil {
		return deref(res), err
	}
	l := tg.loc()
	fi, err := l.stat()
	if err != nil {
		return tools.Errorf("read: %s", openError(tg.Show(), err)), nil
	}
	switch {
	case fi.IsDir():
		return tools.Errorf("read: %s is a folder: use ls to list it, or glob to find files in it", tg.Show()), nil
	case !fi.Mode().IsRegular():
		return tools.Errorf("read: %s is not a regular file (%s); only files can be read", tg.Show(), fi.Mode().Type()), nil
	}
	f, err := l.open()
	if err != nil {
		return tools.Errorf("read: %s", openError(tg.Show(), err)), nil
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return tools.Errorf("read: %s changed while it was opened (it is no longer a regular file); nothing was read: try again", tg.Show()), nil
	}
	h := sha256.New()
	br := bufio.NewReaderSize(io.TeeReader(f, h), 64<<10)
	head, err := br.Peek(8 << 10)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return tools.Errorf("read: %s", openError(tg.Show(), err)), nil
	}
	seen := state{Exists: true, Size: fi.Size(), ModTime: fi.ModTime()}
	whole := false
	var res tools.Result
	kind := http.DetectContentType(head)
	switch {
	case isImage(kind) && fi.Size() <= MaxImage:
		data, err := io.ReadAll(br)
		if err != nil {
			return tools.Errorf("read: %s", openError(tg.Show(), err)), nil
		}
		whole = true
		desc := strings.ToUpper(strings.TrimPrefix(kind, "image/"))
		if cfg, _, err := image.DecodeConfig(bytes.NewReader(data)); err == nil {
			desc += fmt.Sprintf(" %dx%d", cfg.Width, cfg.Height)
		}
		res = tools.Result{
			Text:   fmt.Sprintf("%s is a %s image (%s), attached.", tg.Show(), desc, Size(int64(len(data)))),
			Images: []tools.Image{{MIME: kind, Data: data}},
		}
	case isImage(kind):
		res = tools.Text(fmt.Sprintf("%s is a %s image of %s, larger than the %s read returns; it is not shown.",
			tg.Show(), strings.ToUpper(strings.TrimPrefix(kind, "image/")), Size(fi.Size()), Size(MaxImage)))
	case isBinary(head):
		res = tools.Text(fmt.Sprintf("%s is a binary file (%s, detected as %s); its bytes are not shown because they are not text.",
			tg.Show(), Size(fi.Size()), kind))
	default:
		var text string
		text, whole, err = readLines(br, fi.Size(), offset, limit, chosen)
		if err != nil {
			var past errPastEnd
			if errors.As(err, &past) {
				return tools.Errorf("read: %s: %v", tg.Show(), err), nil
			}
			return tools.Errorf("read: %s", openError(tg.Show(), err)), nil
		}
		res = tools.Text(text)
	}
	if whole {
		seen.SHA = hex.EncodeToString(h.Sum(nil))
	}
	if err := record(ctx, t.e.reads, sid, tg.Real, seen, whole); err != nil {
		return tools.Result{}, err
	}
	return res, nil
}

func isImage(kind string) bool {
	switch kind {
	case "image/png", "image/jpeg", "image/gif", "image/webp":
		return true
	}
	return false
}

func deref(r *tools.Result) tools.Result {
	if r == nil {
		return tools.Result{}
	}
	return *r
}

// openError words a failure to open or read a file for the model.
func openError(show string, err error) string {
	switch {
	case isEscape(err):
		return escapeMessage(show)
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Sprintf("%s does not exist (check the path with ls or glob)", show)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Sprintf("%s cannot be read: permission denied", show)
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return fmt.Sprintf("%s cannot be read: %v", show, err)
}

// errPastEnd says the offset lies after the last line.
type errPastEnd struct{ offset, lines int }

func (e errPastEnd) Error() string {
	return fmt.Sprintf("offset %d is past the end: the file has %s; use an offset from 1 to %d", e.offset, plural(e.lines, "line", "lines"), max(e.lines, 1))
}

// lineReader reads lines and counts the bytes it consumed.
type lineReader struct {
	r   *bufio.Reader
	pos int64
}

// next reads one line and returns at most keep bytes of it (with its
// ending, when that fits) and its whole length. It returns io.EOF only
// when there is no line left.
func (lr *lineReader) next(keep int) (head []byte, n int64, err error) {
	for {
		chunk, err := lr.r.ReadSlice('\n')
		n += int64(len(chunk))
		if room := keep - len(head); room > 0 {
			head = append(head, chunk[:min(len(chunk), room)]...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		lr.pos += n
		if errors.Is(err, io.EOF) {
			if n == 0 {
				return nil, 0, io.EOF
			}
			return head, n, nil
		}
		return head, n, err
	}
}

// readLines renders lines offset.. of a text file, each as its number, a
// colon and the line (as grep -n prints them: the cheapest numbering, since
// every byte of a result is sent again at each later step),
// within limit lines and ReadMaxBytes bytes, and ends with a notice saying
// exactly what was left out and how to read on (spec O1-O3). whole reports
// whether the reader reached the end of the file.
func readLines(br *bufio.Reader, fileSize int64, offset, limit int, chosen bool) (text string, whole bool, err error) {
	lr := &lineReader{r: br}
	lineNo := 0
	var beforeBytes int64
	for lineNo < offset-1 {
		_, n, err := lr.next(0)
		if errors.Is(err, io.EOF) {
			return "", true, errPastEnd{offset, lineNo}
		}
		if err != nil {
			return "", false, err
		}
		beforeBytes += n
		lineNo++
	}
	var (
		out        strings.Builder
		shown      int
		shownBytes int64
		crlf, bad  bool
		eof        bool
		cutLine    int   // a line longer than the byte cap, shown cut
		cutLeft    int64 // bytes of it left out
		cutShown   int64 // bytes of it shown
		afterLines int
		afterBytes int64
		capped     bool // the caps, not the model's limit, ended the page
	)
	for shown < limit {
		room := ReadMaxBytes - int(shownBytes)
		head, n, err := lr.next(room)
		if errors.Is(err, io.EOF) {
			eof = true
			break
		}
		if err != nil {
			return "", false, err
		}
		lineNo++
		if n > int64(room) {
			capped = true
			if shown > 0 {
				// It does not fit: it is the first line left out.
				afterLines, afterBytes = 1, n
				break
			}
			head = cutUTF8(head)
			cutLine, cutLeft, cutShown = lineNo, n-int64(len(head)), int64(len(head))
			n = cutShown
		}
		line := string(head)
		line = strings.TrimSuffix(line, "\n")
		if strings.HasSuffix(line, "\r") {
			line, crlf = strings.TrimSuffix(line, "\r"), true
		}
		if !utf8.ValidString(line) {
			line, bad = strings.ToValidUTF8(line, "\uFFFD"), true
		}
		fmt.Fprintf(&out, "%d:%s\n", lineNo, line)
		shown++
		shownBytes += n
		if cutLine != 0 {
			break
		}
	}
	if shown == 0 && offset > 1 && eof {
		return "", true, errPastEnd{offset, lineNo}
	}
	if shown == limit && limit == ReadMaxLines && !eof {
		capped = true
	}
	lastShown := offset + shown - 1
	counted := true
	if !eof {
		rest := fileSize - lr.pos
		if chosen && !capped && rest > countBudget {
			counted = false
			afterBytes += max(rest, 0)
		} else {
			n, lines, err := countRest(br)
			if err != nil {
				return "", false, err
			}
			afterBytes += n
			afterLines += lines
			eof = true
		}
	}
	if shown == 0 && offset == 1 && afterBytes == 0 {
		return "(empty file: 0 lines, 0 bytes)\n", eof, nil
	}
	var notes []string
	total := lastShown + afterLines
	if cutLine != 0 {
		total = cutLine + afterLines
		lastShown = cutLine
	}
	switch {
	case !counted:
		notes = append(notes, fmt.Sprintf("Showing lines %d-%d of a file of %d bytes.", offset, lastShown, fileSize))
	case offset > 1 || afterLines > 0 || cutLine != 0:
		notes = append(notes, fmt.Sprintf("Showing lines %d-%d of %d (the file is %d bytes).", offset, lastShown, total, fileSize))
	}
	var left []string
	if offset > 1 {
		left = append(left, fmt.Sprintf("lines 1-%d before (%s, %d bytes)", offset-1, plural(offset-1, "line", "lines"), beforeBytes))
	}
	if cutLeft > 0 {
		left = append(left, fmt.Sprintf("%d bytes of line %d, which is %d bytes long: only its first %d bytes are shown, and read cannot show the rest of that line",
			cutLeft, cutLine, cutShown+cutLeft, cutShown))
	}
	switch {
	case !counted:
		left = append(left, fmt.Sprintf("%d bytes after line %d (not counted in lines: the rest of the file is larger than %d MiB and was not read)", afterBytes, lastShown, countBudget>>20))
	case afterLines > 0:
		left = append(left, fmt.Sprintf("lines %d-%d after (%s, %d bytes)", lastShown+1, lastShown+afterLines, plural(afterLines, "line", "lines"), afterBytes))
	}
	if len(left) > 0 {
		notes = append(notes, "Not shown: "+strings.Join(left, "; ")+".")
	}
	if capped {
		notes = append(notes, fmt.Sprintf("One read returns at most %d lines and %d KiB.", ReadMaxLines, ReadMaxBytes>>10))
	}
	if afterLines > 0 || !counted {
		notes = append(notes, fmt.Sprintf("To read on, call read with offset=%d.", lastShown+1))
	}
	if crlf {
		notes = append(notes, "The file has CRLF line endings (shown without the CR; edit keeps them).")
	}
	if bad {
		notes = append(notes, "The file is not valid UTF-8: bytes that are not UTF-8 are shown as U+FFFD.")
	}
	if len(notes) > 0 {
		fmt.Fprintf(&out, "\n[%s]\n", strings.Join(notes, " "))
	}
	return out.String(), eof, nil
}

// countRest reads the rest of br and counts its bytes and lines (a last
// line without a newline counts).
func countRest(br *bufio.Reader) (n int64, lines int, err error) {
	buf := make([]byte, 256<<10)
	var last byte = '\n'
	for {
		k, err := br.Read(buf)
		if k > 0 {
			n += int64(k)
			lines += bytes.Count(buf[:k], []byte{'\n'})
			last = buf[k-1]
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return n, lines, err
		}
	}
	if n > 0 && last != '\n' {
		lines++
	}
	return n, lines, nil
}

// cutUTF8 drops an incomplete UTF-8 sequence at the end of b.
func cutUTF8(b []byte) []byte {
	for i := 1; i <= utf8.UTFMax && i <= len(b); i++ {
		c := b[len(b)-i]
		if utf8.RuneStart(c) {
			if !utf8.FullRune(b[len(b)-i:]) {
				return b[:len(b)-i]
			}
			break
		}
	}
	return b
}

var (
	_ tools.Tool     = readTool{}
	_ tools.Parallel = readTool{}
)
