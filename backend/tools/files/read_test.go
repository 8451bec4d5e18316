package files

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"strings"
	"testing"

	"foya/backend/testwait"
)

func numbered(from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

// spec: O1, O2, O3
// read caps lines and bytes, keeps the head, and says exactly how many
// lines and bytes were left out and where to read on.
func TestReadCapsAndSaysWhatWasLeftOut(t *testing.T) {
	f := newFixture(t)
	body := numbered(1, 2500) // "line N\n": 2500 lines
	f.put("big.txt", body, 0o644)
	res := f.ok("read", map[string]any{"path": "big.txt"})
	lines := strings.Split(res.Text, "\n")
	if lines[0] != "1:line 1" || lines[1999] != "2000:line 2000" {
		t.Fatalf("head not kept: %q … %q", lines[0], lines[1999])
	}
	if strings.Contains(res.Text, "line 2001\n") {
		t.Fatal("line 2001 shown past the line cap")
	}
	shownBytes := len(numbered(1, 2000))
	want := fmt.Sprintf("Not shown: lines 2001-2500 after (500 lines, %d bytes).", len(body)-shownBytes)
	if !strings.Contains(res.Text, want) || !strings.Contains(res.Text, "offset=2001") {
		t.Fatalf("notice missing %q:\n%s", want, res.Text[len(res.Text)-400:])
	}

	// The byte cap: long lines stop the page before 2000 lines.
	long := strings.Repeat("x", 999) + "\n" // 1000 bytes a line
	f.put("wide.txt", strings.Repeat(long, 100), 0o644)
	res = f.ok("read", map[string]any{"path": "wide.txt"})
	shown := ReadMaxBytes / 1000
	if !strings.Contains(res.Text, fmt.Sprintf("Showing lines 1-%d of 100", shown)) ||
		!strings.Contains(res.Text, fmt.Sprintf("lines %d-100 after (%d lines, %d bytes)", shown+1, 100-shown, (100-shown)*1000)) {
		t.Fatalf("byte cap notice wrong:\n%s", res.Text[strings.LastIndex(res.Text, "["):])
	}

	// One line longer than the byte cap: its head is shown, the rest counted.
	f.put("one.txt", strings.Repeat("y", 100_000)+"\nnext\n", 0o644)
	res = f.ok("read", map[string]any{"path": "one.txt"})
	if !strings.Contains(res.Text, fmt.Sprintf("%d bytes of line 1, which is 100001 bytes long: only its first %d bytes", 100_001-ReadMaxBytes, ReadMaxBytes)) ||
		!strings.Contains(res.Text, "lines 2-2 after (1 line, 5 bytes)") {
		t.Fatalf("cut line notice wrong:\n%s", res.Text[strings.LastIndex(res.Text, "["):])
	}
}

// spec: O1, O3
// Paging: offset and limit pick lines, and the notice counts the lines and
// bytes before and after exactly.
func TestReadPages(t *testing.T) {
	f := newFixture(t)
	f.put("p.txt", numbered(1, 50), 0o644)
	res := f.ok("read", map[string]any{"path": "p.txt", "offset": 11, "limit": 5})
	if !strings.HasPrefix(res.Text, "11:line 11\n12:line 12\n") || strings.Contains(res.Text, "line 16\n") {
		t.Fatalf("page wrong:\n%s", res.Text)
	}
	before, after := len(numbered(1, 10)), len(numbered(16, 50))
	for _, want := range []string{
		"Showing lines 11-15 of 50",
		fmt.Sprintf("lines 1-10 before (10 lines, %d bytes)", before),
		fmt.Sprintf("lines 16-50 after (35 lines, %d bytes)", after),
		"offset=16",
	} {
		if !strings.Contains(res.Text, want) {
			t.Errorf("missing %q in\n%s", want, res.Text)
		}
	}
	// The last page says nothing is left after it.
	res = f.ok("read", map[string]any{"path": "p.txt", "offset": 48})
	if strings.Contains(res.Text, "after") || !strings.Contains(res.Text, "\n50:line 50\n") {
		t.Fatalf("last page:\n%s", res.Text)
	}
	// Past the end is an error that says how long the file is.
	res = f.fail("read", map[string]any{"path": "p.txt", "offset": 51})
	if !strings.Contains(res.Text, "the file has 50 lines") {
		t.Fatalf("past end: %s", res.Text)
	}
	// A last line without a newline counts.
	f.put("nonl.txt", "a\nb\nc", 0o644)
	res = f.ok("read", map[string]any{"path": "nonl.txt", "limit": 1})
	if !strings.Contains(res.Text, "lines 2-3 after (2 lines, 3 bytes)") {
		t.Fatalf("no-newline count:\n%s", res.Text)
	}
}

// spec: O1
// read with a limit on a huge sparse file reads only what it returns: it
// answers at once and says the rest was not read.
func TestReadHugeFileWithLimit(t *testing.T) {
	f := newFixture(t)
	p := f.path("huge.log")
	fh, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	fh.WriteString(numbered(1, 5000)) // text past the 8 KiB read sniffs
	if err := fh.Truncate(1 << 30); err != nil {
		testwait.Missing(t, "sparse files ("+err.Error()+")", "reading a huge file")
	}
	fh.Close()
	res := f.ok("read", map[string]any{"path": "huge.log", "limit": 10})
	if !strings.Contains(res.Text, "\n10:line 10\n") || !strings.Contains(res.Text, "not counted in lines") ||
		!strings.Contains(res.Text, fmt.Sprintf("%d bytes after line 10", (1<<30)-len(numbered(1, 10)))) {
		t.Fatalf("huge read:\n%s", res.Text)
	}
}

// spec: I1
// Images come back as image parts; other binaries are described, not
// dumped; text that is not UTF-8 is shown with replacement characters.
func TestReadImagesAndBinaries(t *testing.T) {
	f := newFixture(t)
	img := image.NewRGBA(image.Rect(0, 0, 3, 2))
	img.Set(0, 0, color.RGBA{255, 0, 0, 255})
	var buf bytes.Buffer
	png.Encode(&buf, img)
	f.put("pic.png", buf.String(), 0o644)
	res := f.ok("read", map[string]any{"path": "pic.png"})
	if len(res.Images) != 1 || res.Images[0].MIME != "image/png" || !bytes.Equal(res.Images[0].Data, buf.Bytes()) ||
		!strings.Contains(res.Text, "PNG 3x2") {
		t.Fatalf("image result: %q, %d images", res.Text, len(res.Images))
	}
	f.put("blob.bin", "\x7fELF\x00\x01\x02garbage", 0o755)
	res = f.ok("read", map[string]any{"path": "blob.bin"})
	if !strings.Contains(res.Text, "binary file") || strings.Contains(res.Text, "garbage") {
		t.Fatalf("binary: %s", res.Text)
	}
	f.put("latin1.txt", "caf\xe9\r\nna\xefve\r\n", 0o644)
	res = f.ok("read", map[string]any{"path": "latin1.txt"})
	if !strings.HasPrefix(res.Text, "1:caf\uFFFD\n") || !strings.Contains(res.Text, "not valid UTF-8") || !strings.Contains(res.Text, "CRLF") {
		t.Fatalf("latin1: %q", res.Text)
	}
	f.put("empty.txt", "", 0o644)
	if res := f.ok("read", map[string]any{"path": "empty.txt"}); !strings.Contains(res.Text, "empty file") {
		t.Fatalf("empty: %q", res.Text)
	}
}
