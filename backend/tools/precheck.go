package tools

import (
	"context"
	"encoding/json"
	"unicode/utf8"
)

// Prechecked is the optional capability of a tool that can refuse a call
// from its raw arguments, cheaply and before anything decodes them: a size
// limit, say, so that an oversized call costs no decoding. The engine asks
// it after checking that the arguments are JSON and before the schema
// check; a non-nil result answers the call, which then never runs. The
// tool's own validation still runs in Run (spec K1).
type Prechecked interface {
	Precheck(ctx context.Context, call Call) *Result
}

// StringLen returns the length in bytes of the string field key of a JSON
// object as json.Unmarshal decodes it (invalid UTF-8 and lone surrogates
// become U+FFFD), without decoding it or allocating. ok is false when args
// is not an object or has no such string field at its top level.
func StringLen(args json.RawMessage, key string) (n int64, ok bool) {
	s := args
	i := skipSpace(s, 0)
	if i >= len(s) || s[i] != '{' {
		return 0, false
	}
	i++
	for {
		i = skipSpace(s, i)
		if i >= len(s) || s[i] != '"' {
			return 0, false
		}
		kStart := i + 1
		kEnd, ok := stringEnd(s, i)
		if !ok {
			return 0, false
		}
		i = skipSpace(s, kEnd+1)
		if i >= len(s) || s[i] != ':' {
			return 0, false
		}
		i = skipSpace(s, i+1)
		if string(s[kStart:kEnd]) == key && i < len(s) && s[i] == '"' {
			return decodedLen(s, i)
		}
		if i, ok = skipValue(s, i); !ok {
			return 0, false
		}
		i = skipSpace(s, i)
		if i >= len(s) || s[i] != ',' {
			return 0, false
		}
		i++
	}
}

func skipSpace(s []byte, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

// stringEnd returns the index of the quote that ends the string starting
// at s[i].
func stringEnd(s []byte, i int) (int, bool) {
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case '"':
			return j, true
		}
	}
	return 0, false
}

// skipValue returns the index just after the value starting at s[i].
func skipValue(s []byte, i int) (int, bool) {
	if i >= len(s) {
		return 0, false
	}
	if s[i] == '"' {
		end, ok := stringEnd(s, i)
		return end + 1, ok
	}
	depth := 0
	for ; i < len(s); i++ {
		switch c := s[i]; c {
		case '"':
			end, ok := stringEnd(s, i)
			if !ok {
				return 0, false
			}
			i = end
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return i, true
			}
			depth--
			if depth == 0 {
				return i + 1, true
			}
		case ',':
			if depth == 0 {
				return i, true
			}
		}
	}
	return i, depth == 0
}

// decodedLen measures the string starting at s[i].
func decodedLen(s []byte, i int) (int64, bool) {
	var n int64
	for j := i + 1; j < len(s); {
		c := s[j]
		switch {
		case c == '"':
			return n, true
		case c == '\\':
			if j+1 >= len(s) {
				return 0, false
			}
			if s[j+1] != 'u' {
				n++
				j += 2
				continue
			}
			r, ok := hexRune(s, j+2)
			if !ok {
				return 0, false
			}
			j += 6
			if r >= 0xD800 && r < 0xDC00 { // a high surrogate: a pair makes one rune
				if j+1 < len(s) && s[j] == '\\' && s[j+1] == 'u' {
					if lo, ok := hexRune(s, j+2); ok && lo >= 0xDC00 && lo < 0xE000 {
						n += 4
						j += 6
						continue
					}
				}
				r = utf8.RuneError
			} else if r >= 0xDC00 && r < 0xE000 {
				r = utf8.RuneError
			}
			n += int64(utf8.RuneLen(rune(r)))
		case c < utf8.RuneSelf:
			n++
			j++
		default:
			r, size := utf8.DecodeRune(s[j:])
			if r == utf8.RuneError && size == 1 {
				n += 3 // replaced by U+FFFD
			} else {
				n += int64(size)
			}
			j += size
		}
	}
	return 0, false
}

func hexRune(s []byte, i int) (int, bool) {
	if i+4 > len(s) {
		return 0, false
	}
	v := 0
	for _, c := range s[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			v = v<<4 | int(c-'0')
		case c >= 'a' && c <= 'f':
			v = v<<4 | int(c-'a'+10)
		case c >= 'A' && c <= 'F':
			v = v<<4 | int(c-'A'+10)
		default:
			return 0, false
		}
	}
	return v, true
}
