package llm

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// InlineArgs is the size up to which a call's raw arguments are stored
// inline, in the call's row and in the assistant message. Larger arguments
// are stored once, as content-addressed blobs that the call and the message
// both refer to (an ArgsRef).
const InlineArgs = 64 << 10

// minPiece is the shortest string value SplitArgs moves to a blob of its own.
const minPiece = 4 << 10

// ArgsRef says where the raw arguments of a large call are kept. Skeleton is
// the arguments with the text of each large string value cut out (its
// quotes stay); each Piece says what goes back where. JoinArgs rebuilds the
// exact bytes the model sent.
type ArgsRef struct {
	// Size is the length of the whole arguments in bytes.
	Size     int        `json:"size"`
	Skeleton string     `json:"skeleton,omitempty"`
	Pieces   []ArgPiece `json:"pieces"`
}

// ArgPiece is one cut-out piece of an ArgsRef: the blob at SHA256, inserted
// at byte offset At of the skeleton, escaped as Escape says.
type ArgPiece struct {
	At     int    `json:"at"`
	SHA256 string `json:"sha256"`
	// Size is the blob's length in bytes.
	Size   int    `json:"size"`
	Escape Escape `json:"escape,omitempty"`
}

// Escape says how a piece's blob becomes the text of the arguments.
type Escape string

const (
	// EscapeNone: the blob is the text itself.
	EscapeNone Escape = ""
	// EscapeJSON: the blob is a decoded JSON string value, escaped back
	// with the escapes JSON needs: \" \\ \n \r \t \b \f, \u00xx for other
	// control characters, every other byte as is. So the blob of a
	// write's content is the file's bytes, and is shared with the file
	// change's blob.
	EscapeJSON Escape = "json"
	// EscapeJSONHTML is EscapeJSON with <, >, &, U+2028 and U+2029 as
	// \u003c, \u003e, \u0026, \u2028 and \u2029, as Go's encoding/json
	// writes them.
	EscapeJSONHTML Escape = "json-html"
	// EscapeJSONLS is EscapeJSON with U+2028 and U+2029 as \u2028 and
	// \u2029, as Go's encoding/json writes them with SetEscapeHTML(false).
	EscapeJSONLS Escape = "json-ls"
)

// Blobs returns the sha256 of every blob r refers to.
func (r *ArgsRef) Blobs() []string {
	out := make([]string, len(r.Pieces))
	for i, p := range r.Pieces {
		out[i] = p.SHA256
	}
	return out
}

// SplitArgs returns how raw arguments of InlineArgs bytes or more are
// stored: an ArgsRef and the blobs it refers to, in the order of its
// pieces. Each string value of 4 KiB or more becomes a blob, decoded when
// escaping it back gives exactly its text (EscapeJSON), else as its text;
// arguments that are mostly small values, or not JSON, become one blob of
// their whole text. Smaller arguments give nil: they are stored inline.
func SplitArgs(raw string) (*ArgsRef, [][]byte) {
	if len(raw) < InlineArgs {
		return nil, nil
	}
	ref := &ArgsRef{Size: len(raw)}
	var skel strings.Builder
	var blobs [][]byte
	last := 0
	for start, end := range stringBodies(raw) {
		if end-start < minPiece {
			continue
		}
		data, esc, ok := unescape(raw[start:end])
		if !ok {
			data, esc = []byte(raw[start:end]), EscapeNone
		}
		skel.WriteString(raw[last:start])
		ref.Pieces = append(ref.Pieces, ArgPiece{At: skel.Len(), SHA256: sum(data), Size: len(data), Escape: esc})
		blobs = append(blobs, data)
		last = end
	}
	skel.WriteString(raw[last:])
	if len(ref.Pieces) == 0 || skel.Len() >= InlineArgs {
		data := []byte(raw)
		return &ArgsRef{Size: len(raw), Pieces: []ArgPiece{{SHA256: sum(data), Size: len(data)}}}, [][]byte{data}
	}
	ref.Skeleton = skel.String()
	return ref, blobs
}

// JoinArgs rebuilds the raw arguments of ref, reading its blobs with blob.
func JoinArgs(ref *ArgsRef, blob func(sha string) ([]byte, error)) (string, error) {
	var b strings.Builder
	b.Grow(ref.Size)
	last := 0
	for _, p := range ref.Pieces {
		if p.At < last || p.At > len(ref.Skeleton) {
			return "", fmt.Errorf("arguments: piece at %d is out of order", p.At)
		}
		b.WriteString(ref.Skeleton[last:p.At])
		last = p.At
		data, err := blob(p.SHA256)
		if err != nil {
			return "", fmt.Errorf("arguments: %w", err)
		}
		switch p.Escape {
		case EscapeNone:
			b.Write(data)
		case EscapeJSON, EscapeJSONHTML, EscapeJSONLS:
			writeEscaped(&b, data, p.Escape == EscapeJSONHTML, p.Escape != EscapeJSON)
		default:
			return "", fmt.Errorf("arguments: unknown escape %q", p.Escape)
		}
	}
	b.WriteString(ref.Skeleton[last:])
	if b.Len() != ref.Size {
		return "", fmt.Errorf("arguments: rebuilt %d bytes; want %d", b.Len(), ref.Size)
	}
	return b.String(), nil
}

// Placeholder returns ref's arguments with every piece replaced by a short
// note: what the context compiler sends a model instead of arguments too
// large to send again. It is valid JSON when the arguments were.
func (r *ArgsRef) Placeholder() string {
	note := func(p ArgPiece) string {
		return fmt.Sprintf("[%d bytes left out of this request; they are kept whole in Foya's history]", p.Size)
	}
	if r.Skeleton == "" {
		return `{"_note":"` + note(r.Pieces[0]) + `"}`
	}
	var b strings.Builder
	last := 0
	for _, p := range r.Pieces {
		b.WriteString(r.Skeleton[last:p.At])
		last = p.At
		// Every piece was cut from inside a string; the note has no
		// quote or backslash, so the string stays well formed.
		b.WriteString(note(p))
	}
	b.WriteString(r.Skeleton[last:])
	return b.String()
}

func sum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// stringBodies yields the byte range of the text of each string in s,
// between its quotes. It assumes nothing of s: in text that is not JSON the
// ranges are still ranges of s.
func stringBodies(s string) func(yield func(int, int) bool) {
	return func(yield func(int, int) bool) {
		for i := 0; i < len(s); i++ {
			if s[i] != '"' {
				continue
			}
			start := i + 1
			j := start
			for j < len(s) && s[j] != '"' {
				if s[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(s) {
				return // an unterminated string: leave it in the skeleton
			}
			if !yield(start, j) {
				return
			}
			i = j
		}
	}
}

var errNotCanonical = errors.New("not canonical")

// unescape decodes the text of a JSON string when writeEscaped, in one of
// the escape modes, gives it back byte for byte; ok is false otherwise.
func unescape(s string) (data []byte, esc Escape, ok bool) {
	// What was seen of the two classes the modes differ on: <, >, & and
	// U+2028, U+2029, each raw or escaped.
	var htmlRaw, htmlEsc, lsRaw, lsEsc bool
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c < 0x20:
			return nil, "", false
		case c == '<' || c == '>' || c == '&':
			htmlRaw = true
		case c == 0xE2 && i+2 < len(s) && s[i+1] == 0x80 && (s[i+2] == 0xA8 || s[i+2] == 0xA9):
			lsRaw = true
		}
		if c != '\\' {
			out = append(out, c)
			i++
			continue
		}
		if i+1 >= len(s) {
			return nil, "", false
		}
		switch e := s[i+1]; e {
		case '"', '\\':
			out = append(out, e)
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'u':
			v, err := hex4(s[i+2:])
			if err != nil {
				return nil, "", false
			}
			switch {
			case v < 0x20 && shortEscape(byte(v)) == 0:
				out = append(out, byte(v))
			case v == '<' || v == '>' || v == '&':
				htmlEsc = true
				out = append(out, byte(v))
			case v == 0x2028 || v == 0x2029:
				lsEsc = true
				out = utf8.AppendRune(out, rune(v))
			default:
				return nil, "", false
			}
			i += 4
		default:
			return nil, "", false
		}
		i += 2
	}
	switch {
	case htmlRaw && htmlEsc, lsRaw && lsEsc, htmlEsc && lsRaw:
		return nil, "", false
	case htmlEsc:
		return out, EscapeJSONHTML, true
	case lsEsc:
		return out, EscapeJSONLS, true
	}
	return out, EscapeJSON, true
}

// hex4 parses four lower-case hex digits, as writeEscaped writes them.
func hex4(s string) (int, error) {
	if len(s) < 4 {
		return 0, errNotCanonical
	}
	v := 0
	for _, c := range []byte(s[:4]) {
		switch {
		case c >= '0' && c <= '9':
			v = v<<4 | int(c-'0')
		case c >= 'a' && c <= 'f':
			v = v<<4 | int(c-'a'+10)
		default:
			return 0, errNotCanonical
		}
	}
	return v, nil
}

// shortEscape is the letter of a control character's two-byte escape, or 0.
func shortEscape(c byte) byte {
	switch c {
	case '\n':
		return 'n'
	case '\r':
		return 'r'
	case '\t':
		return 't'
	case '\b':
		return 'b'
	case '\f':
		return 'f'
	}
	return 0
}

// writeEscaped writes data as the text of a JSON string; see EscapeJSON,
// EscapeJSONHTML (html and ls) and EscapeJSONLS (ls). Bytes that are not
// UTF-8 are written as they are.
func writeEscaped(b *strings.Builder, data []byte, html, ls bool) {
	const hexDigits = "0123456789abcdef"
	start := 0
	for i := 0; i < len(data); {
		c := data[i]
		var esc string
		n := 1
		switch {
		case c == '"' || c == '\\':
			esc = string([]byte{'\\', c})
		case c < 0x20:
			if l := shortEscape(c); l != 0 {
				esc = string([]byte{'\\', l})
			} else {
				esc = `\u00` + string([]byte{hexDigits[c>>4], hexDigits[c&0xf]})
			}
		case html && (c == '<' || c == '>' || c == '&'):
			esc = `\u00` + string([]byte{hexDigits[c>>4], hexDigits[c&0xf]})
		case ls && c == 0xE2 && i+2 < len(data) && data[i+1] == 0x80 && (data[i+2] == 0xA8 || data[i+2] == 0xA9):
			esc, n = `\u202`+string([]byte{hexDigits[data[i+2]&0xf]}), 3
		default:
			i++
			continue
		}
		b.Write(data[start:i])
		b.WriteString(esc)
		i += n
		start = i
	}
	b.Write(data[start:])
}
