package sandbox

import (
	"bytes"
	"errors"
	"io"
	"sync"
	"unicode/utf8"
)

// ring keeps the last size bytes written to it and counts every byte and
// newline, in memory that never grows after creation (spec O4, B2).
type ring struct {
	mu       sync.Mutex
	buf      []byte // len(buf) == size; byte at stream offset o is buf[o%size]
	total    int64  // bytes written
	newlines int64  // '\n' written
	last     byte   // last byte written
	changed  bool   // written to since the last takeChanged
}

func newRing(size int) *ring {
	return &ring{buf: make([]byte, size)}
}

// Write keeps the tail of p; it never fails.
func (r *ring) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	n := bytes.Count(p, []byte{'\n'})
	r.mu.Lock()
	defer r.mu.Unlock()
	r.total += int64(len(p))
	r.newlines += int64(n)
	r.last = p[len(p)-1]
	r.changed = true
	size := len(r.buf)
	if len(p) > size {
		p = p[len(p)-size:]
	}
	// The stream offset of p's first byte, now that r.total includes p.
	at := int((r.total - int64(len(p))) % int64(size))
	k := copy(r.buf[at:], p)
	copy(r.buf, p[k:])
	return len(p), nil
}

// ReadFrom copies src into the ring until EOF, with a larger buffer than
// io.Copy's so that huge outputs cost few system calls.
func (r *ring) ReadFrom(src io.Reader) (int64, error) {
	buf := make([]byte, 256<<10)
	var n int64
	for {
		k, err := src.Read(buf)
		if k > 0 {
			r.Write(buf[:k])
			n += int64(k)
		}
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}

// since returns the bytes written from stream offset off on, the offset to
// ask for next, and how many bytes after off were lost because the ring
// overwrote them. When bytes were lost, data starts at a UTF-8 boundary (the
// bytes skipped for that count as lost). An offset beyond the end is treated
// as the end; a negative one as zero.
func (r *ring) since(off int64) (data []byte, next, dropped int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.sinceLocked(off)
}

func (r *ring) sinceLocked(off int64) (data []byte, next, dropped int64) {
	off = max(0, min(off, r.total))
	start := max(off, r.total-int64(len(r.buf)))
	data = make([]byte, r.total-start)
	if len(data) > 0 {
		size := int64(len(r.buf))
		at := int(start % size)
		k := copy(data, r.buf[at:])
		copy(data[k:], r.buf)
	}
	if start > off {
		skip := utf8Start(data)
		data = data[skip:]
		start += int64(skip)
	}
	return data, r.total, start - off
}

// utf8Start returns how many leading bytes of b are continuation bytes of a
// UTF-8 sequence that began before b (at most utf8.UTFMax-1).
func utf8Start(b []byte) int {
	i := 0
	for i < len(b) && i < utf8.UTFMax-1 && !utf8.RuneStart(b[i]) {
		i++
	}
	if i < len(b) && !utf8.RuneStart(b[i]) {
		return 0 // not a cut sequence: binary data, keep it as it is
	}
	return i
}

// tally is the ring's final accounting for a Result.
type tally struct {
	output                     []byte
	totalBytes, totalLines     int64
	droppedBytes, droppedLines int64
}

func (r *ring) tally() tally {
	r.mu.Lock()
	defer r.mu.Unlock()
	out, _, dropped := r.sinceLocked(0)
	t := tally{output: out, totalBytes: r.total, droppedBytes: dropped}
	t.totalLines = r.newlines
	if r.total > 0 && r.last != '\n' {
		t.totalLines++
	}
	t.droppedLines = r.newlines - int64(bytes.Count(out, []byte{'\n'}))
	return t
}

// takeChanged returns the current tail if anything was written since the
// last call.
func (r *ring) takeChanged() ([]byte, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.changed {
		return nil, false
	}
	r.changed = false
	out, _, _ := r.sinceLocked(0)
	return out, true
}
