package tools

import (
	"bytes"
	"encoding/json"
)

// Large arguments (a file's content in a write) are decoded without a
// json.Decoder: a Decoder reads the whole document into a buffer of its own
// that grows by doubling, several times the document's size, before it
// decodes anything. json.Unmarshal decodes from the bytes in place. Small
// or deeply nested arguments keep the Decoder path.
const (
	largeArgs = 1 << 20
	maxNest   = 32
)

// isLarge reports whether args take the in-place path: large, and nested at
// most maxNest deep (the in-place paths rescan each level once).
func isLarge(args []byte) bool {
	if len(args) < largeArgs {
		return false
	}
	depth := 0
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case '"':
			end, ok := stringEnd(args, i)
			if !ok {
				return false
			}
			i = end
		case '{', '[':
			if depth++; depth > maxNest {
				return false
			}
		case '}', ']':
			depth--
		}
	}
	return true
}

// skeleton returns args with the text of every string longer than 1 KiB
// cut out (its quotes kept): the same document, with the same fields and
// types, only smaller.
func skeleton(args []byte) []byte {
	var b bytes.Buffer
	last := 0
	for i := 0; i < len(args); i++ {
		if args[i] != '"' {
			continue
		}
		end, ok := stringEnd(args, i)
		if !ok {
			break
		}
		if end-i-1 > 1<<10 {
			b.Write(args[last : i+1])
			last = end
		}
		i = end
	}
	b.Write(args[last:])
	return b.Bytes()
}

// instance decodes JSON as jsonschema.UnmarshalJSON does (numbers as
// json.Number), but in place, with json.Unmarshal.
func instance(args []byte) (any, error) {
	var v value
	if err := json.Unmarshal(args, &v); err != nil {
		return nil, err
	}
	return v.v, nil
}

// value is one decoded JSON value; its UnmarshalJSON gets its own bytes,
// a slice of the document, not a copy.
type value struct{ v any }

func (j *value) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch b[0] {
	case '{':
		var m map[string]value
		if err := json.Unmarshal(b, &m); err != nil {
			return err
		}
		out := make(map[string]any, len(m))
		for k, v := range m {
			out[k] = v.v
		}
		j.v = out
	case '[':
		var a []value
		if err := json.Unmarshal(b, &a); err != nil {
			return err
		}
		out := make([]any, len(a))
		for i, v := range a {
			out[i] = v.v
		}
		j.v = out
	case '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		j.v = s
	case 't', 'f':
		j.v = b[0] == 't'
	case 'n':
		j.v = nil
	default:
		j.v = json.Number(b)
	}
	return nil
}
