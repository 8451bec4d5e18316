package tools

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// checkUnicode refuses arguments that Go's encoding/json would change
// silently: invalid UTF-8 bytes and \uD800-\uDFFF escapes that do not form
// a surrogate pair are decoded as U+FFFD, so a write would report success
// for content it never got. It says where the problem is: the argument
// (the path of keys and array indexes that holds it), the line and column
// within that string, and the byte offset in the arguments. Arguments that
// are not well-formed JSON otherwise are left for the decoder to report.
func checkUnicode(args []byte) error {
	s := unicodeScan{args: args}
	return s.run()
}

// unicodeScan walks JSON text far enough to know, for every string, which
// argument it belongs to.
type unicodeScan struct {
	args []byte
	i    int
	// path is the key or index of each open object or array; keyNext
	// says the next string in the innermost object is a key.
	path    []string
	objects []bool
	index   []int
	keyNext bool
}

func (s *unicodeScan) run() error {
	for s.i < len(s.args) {
		c := s.args[s.i]
		switch {
		case c == '"':
			isKey := s.inObject() && s.keyNext
			str, err := s.str(isKey)
			if err != nil {
				return err
			}
			if isKey {
				s.path[len(s.path)-1] = str
				s.keyNext = false
			}
			continue
		case c == '{' || c == '[':
			s.objects = append(s.objects, c == '{')
			s.path = append(s.path, "")
			s.index = append(s.index, 0)
			s.keyNext = c == '{'
			if c == '[' {
				s.path[len(s.path)-1] = "0"
			}
		case c == '}' || c == ']':
			if len(s.objects) > 0 {
				s.objects, s.path, s.index = s.objects[:len(s.objects)-1], s.path[:len(s.path)-1], s.index[:len(s.index)-1]
			}
			s.keyNext = false
		case c == ',':
			if s.inObject() {
				s.keyNext = true
			} else if n := len(s.index); n > 0 {
				s.index[n-1]++
				s.path[n-1] = fmt.Sprint(s.index[n-1])
			}
		case c >= utf8.RuneSelf:
			if r, size := utf8.DecodeRune(s.args[s.i:]); r == utf8.RuneError && size <= 1 {
				return fmt.Errorf("the arguments hold %s at byte %d, outside any string: send valid UTF-8 JSON", describeBad(s.args[s.i:]), s.i)
			} else {
				s.i += size
				continue
			}
		}
		s.i++
	}
	return nil
}

func (s *unicodeScan) inObject() bool { return len(s.objects) > 0 && s.objects[len(s.objects)-1] }

// where names the string being read: `argument "content"`, or
// `argument "edits[1].new_string"` deeper down.
func (s *unicodeScan) where() string {
	if len(s.path) == 0 {
		return "the arguments"
	}
	var b strings.Builder
	for i, p := range s.path {
		switch {
		case !s.objects[i]:
			b.WriteString("[" + p + "]")
		case i > 0:
			b.WriteString("." + p)
		default:
			b.WriteString(p)
		}
	}
	if s.inObject() && s.keyNext {
		return fmt.Sprintf("an argument name after %q", b.String())
	}
	return fmt.Sprintf("argument %q", b.String())
}

// str reads the string starting at s.i (at its opening quote), checking
// each byte and escape, and returns its value as far as the check needs it
// (keys only). It stops at the closing quote or the end of the arguments.
func (s *unicodeScan) str(keep bool) (string, error) {
	s.i++
	line, col := 1, 1
	// Only keys are kept: a value can be a file's worth of text, and the
	// scan must not copy it.
	val := keptText{keep: keep}
	at := func() string {
		return fmt.Sprintf("at line %d, column %d (byte %d of the arguments)", line, col, s.i)
	}
	for s.i < len(s.args) {
		c := s.args[s.i]
		switch {
		case c == '"':
			s.i++
			return val.String(), nil
		case c == '\\' && s.i+1 < len(s.args):
			e := s.args[s.i+1]
			if e != 'u' {
				if e == 'n' {
					line, col = line+1, 0
				}
				val.addByte(e)
				s.i += 2
				col++
				continue
			}
			u, ok := hex4(s.args, s.i+2)
			if !ok {
				return "", nil // not JSON: the decoder says so
			}
			switch {
			case u >= 0xD800 && u <= 0xDBFF:
				low, ok := uint16(0), false
				if s.i+7 < len(s.args) && s.args[s.i+6] == '\\' && s.args[s.i+7] == 'u' {
					low, ok = hex4(s.args, s.i+8)
				}
				if !ok || low < 0xDC00 || low > 0xDFFF {
					return "", fmt.Errorf("%s holds a lone UTF-16 surrogate \\u%04x %s: it is half of a character, and JSON text cannot carry it on its own, so nothing was done; send valid Unicode (a whole surrogate pair, or the character itself), or write such bytes with bash",
						s.where(), u, at())
				}
				val.addRune(rune(0x10000 + (int(u)-0xD800)<<10 + int(low) - 0xDC00))
				s.i += 12
			case u >= 0xDC00 && u <= 0xDFFF:
				return "", fmt.Errorf("%s holds a lone UTF-16 surrogate \\u%04x %s (a low surrogate with no high one before it): JSON text cannot carry it, so nothing was done; send valid Unicode (a whole surrogate pair, high then low, or the character itself), or write such bytes with bash",
					s.where(), u, at())
			default:
				if u == '\n' {
					line, col = line+1, 0
				}
				val.addRune(rune(u))
				s.i += 6
			}
			col++
		case c < utf8.RuneSelf:
			val.addByte(c)
			s.i++
			col++
		default:
			r, size := utf8.DecodeRune(s.args[s.i:])
			if r == utf8.RuneError && size <= 1 {
				return "", fmt.Errorf("%s holds %s %s: it is not valid UTF-8, so nothing was done; send valid UTF-8 text, or write such bytes with bash",
					s.where(), describeBad(s.args[s.i:]), at())
			}
			val.addRune(r)
			s.i += size
			col++
		}
	}
	return val.String(), nil
}

// keptText builds a string only when keep is set.
type keptText struct {
	b    strings.Builder
	keep bool
}

func (k *keptText) addByte(c byte) {
	if k.keep {
		k.b.WriteByte(c)
	}
}

func (k *keptText) addRune(r rune) {
	if k.keep {
		k.b.WriteRune(r)
	}
}

func (k *keptText) String() string { return k.b.String() }

// hex4 parses the four hex digits at b[i:].
func hex4(b []byte, i int) (uint16, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	var u uint16
	for _, c := range b[i : i+4] {
		var d byte
		switch {
		case '0' <= c && c <= '9':
			d = c - '0'
		case 'a' <= c && c <= 'f':
			d = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, false
		}
		u = u<<4 | uint16(d)
	}
	return u, true
}

// describeBad names the invalid UTF-8 at the start of b for the model:
// "the byte 0xff", "the bytes 0xe2 0x82 (a truncated character)".
func describeBad(b []byte) string {
	c := b[0]
	var want int
	switch {
	case c&0xE0 == 0xC0:
		want = 2
	case c&0xF0 == 0xE0:
		want = 3
	case c&0xF8 == 0xF0:
		want = 4
	}
	if want == 0 {
		return fmt.Sprintf("the byte 0x%02x, which cannot start a UTF-8 character", c)
	}
	n := 1
	for n < want && n < len(b) && b[n]&0xC0 == 0x80 {
		n++
	}
	hexes := make([]string, n)
	for i := range n {
		hexes[i] = fmt.Sprintf("0x%02x", b[i])
	}
	switch {
	case n < want:
		return fmt.Sprintf("the bytes %s, a truncated UTF-8 character", strings.Join(hexes, " "))
	case c == 0xC0 || c == 0xC1 || (c == 0xE0 && b[1] < 0xA0) || (c == 0xF0 && b[1] < 0x90):
		return fmt.Sprintf("the bytes %s, an overlong UTF-8 encoding", strings.Join(hexes, " "))
	case c == 0xED && b[1] >= 0xA0:
		return fmt.Sprintf("the bytes %s, a UTF-16 surrogate encoded as UTF-8", strings.Join(hexes, " "))
	}
	return fmt.Sprintf("the bytes %s, which are not a valid UTF-8 character", strings.Join(hexes, " "))
}
