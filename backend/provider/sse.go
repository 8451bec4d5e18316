package provider

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// maxLine bounds one SSE line; a tool call's arguments sent whole in one chunk
// can be large (a file's content), but not unbounded.
const maxLine = 64 << 20

// sseEvent is one dispatched server-sent event.
type sseEvent struct {
	Name string // the "event:" field, empty for plain messages
	Data []byte // the joined "data:" lines
}

// sseReader reads server-sent events from a response body. It differs from a
// textbook reader in ways real model servers need: comment and unknown lines
// are skipped in any number, a data line whose pending data is already a
// complete JSON document is dispatched even without the blank line that
// should end it, a bare JSON line (no "data:" prefix) counts as data, and an
// "error:" field line (llama.cpp's server reports failures so) is an event of
// its own, named "error".
type sseReader struct {
	r       *bufio.Reader
	err     error // the body's terminal error, once seen
	line    []byte
	name    string
	data    []byte
	hasData bool
	errData []byte // the value of an "error:" line not yet returned
	hasErr  bool
}

func newSSEReader(r io.Reader) *sseReader {
	return &sseReader{r: bufio.NewReaderSize(r, 32<<10)}
}

// Next returns the next event. At the end of the body it returns io.EOF, or
// the transport's error (for example io.ErrUnexpectedEOF) when the body broke.
// Data of an event the body ended in is returned first when it is a complete
// JSON document or [DONE].
func (s *sseReader) Next() (sseEvent, error) {
	for {
		if s.hasErr {
			return s.takeErr(), nil
		}
		line, err := s.readLine()
		if err != nil {
			if len(line) > 0 {
				// A last line without its newline: its data is kept below
				// only if it is whole.
				if ev, ok := s.field(line); ok {
					return ev, nil
				}
				if s.hasErr {
					return s.takeErr(), nil
				}
			}
			if s.hasData && complete(s.data) {
				return s.dispatch(), nil
			}
			return sseEvent{}, err
		}
		if len(line) == 0 {
			if s.hasData {
				return s.dispatch(), nil
			}
			s.name = ""
			continue
		}
		if ev, ok := s.field(line); ok {
			return ev, nil
		}
	}
}

// field handles one non-empty line. It returns an event when a data line
// arrives while the pending data is already complete.
func (s *sseReader) field(line []byte) (sseEvent, bool) {
	var name, value []byte
	switch {
	case line[0] == ':':
		return sseEvent{}, false // comment, such as ": keep-alive"
	case line[0] == '{' || line[0] == '[':
		name, value = []byte("data"), line
	default:
		i := bytes.IndexByte(line, ':')
		if i < 0 {
			name = line
		} else {
			name, value = line[:i], line[i+1:]
			if len(value) > 0 && value[0] == ' ' {
				value = value[1:]
			}
		}
	}
	switch string(name) {
	case "data":
		var ev sseEvent
		var ok bool
		if s.hasData && complete(s.data) {
			ev, ok = s.dispatch(), true
		}
		if s.hasData {
			s.data = append(s.data, '\n')
		}
		s.data = append(s.data, value...)
		s.hasData = true
		return ev, ok
	case "event":
		s.name = string(value)
	case "error":
		// The error waits for Next, after pending data that is whole; data
		// that is not whole is dropped: the server's own message says more.
		var ev sseEvent
		var ok bool
		if s.hasData && complete(s.data) {
			ev, ok = s.dispatch(), true
		}
		s.name, s.data, s.hasData = "", nil, false
		s.errData, s.hasErr = append([]byte(nil), value...), true
		return ev, ok
	}
	return sseEvent{}, false
}

func (s *sseReader) takeErr() sseEvent {
	ev := sseEvent{Name: "error", Data: s.errData}
	s.errData, s.hasErr = nil, false
	return ev
}

func (s *sseReader) dispatch() sseEvent {
	ev := sseEvent{Name: s.name, Data: s.data}
	s.name, s.data, s.hasData = "", nil, false
	return ev
}

// complete reports whether pending data can stand as an event on its own.
func complete(data []byte) bool {
	d := bytes.TrimSpace(data)
	return string(d) == "[DONE]" || json.Valid(d)
}

var errLineTooLong = fmt.Errorf("stream line longer than %d MiB", maxLine>>20)

// readLine returns the next line without its line ending. The returned slice
// is valid until the next call. At the end of the body it returns what was
// left (a line without newline) together with the error.
func (s *sseReader) readLine() ([]byte, error) {
	if s.err != nil {
		return nil, s.err
	}
	s.line = s.line[:0]
	for {
		frag, err := s.r.ReadSlice('\n')
		if len(s.line)+len(frag) > maxLine {
			s.err = errLineTooLong
			return nil, s.err
		}
		if err == nil && len(s.line) == 0 {
			return trimEOL(frag), nil // fast path: the whole line was in the buffer
		}
		s.line = append(s.line, frag...)
		switch {
		case err == nil:
			return trimEOL(s.line), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		default:
			s.err = err
			return s.line, err
		}
	}
}

func trimEOL(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte("\n"))
	return bytes.TrimSuffix(b, []byte("\r"))
}
