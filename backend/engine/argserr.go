package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// DefaultRepeatLimit is how many times in a row a model may send the same
// failing call (same tool, same arguments, an error result) before the run
// stops, when the run does not say otherwise (the run.repeatLimit setting).
const DefaultRepeatLimit = 3

// MaxRepeatLimit is the largest repeat limit a run may be given.
const MaxRepeatLimit = 100

// Kinds of arguments that are not valid JSON, for the repair hint: the
// same kind twice in one run adds it.
const (
	argsCutOff        = "cut"
	argsTrailingComma = "trailing-comma"
	argsSingleQuote   = "single-quote"
	argsSyntax        = "syntax"
)

// argsError says why a call's arguments are not valid JSON, in words for
// the model: what is wrong, where (byte offset, line and column) and what
// was expected. Nothing is ever guessed into valid arguments.
type argsError struct {
	kind string
	msg  string
}

func (e *argsError) Error() string { return e.msg }

// hint is what the result adds when the model makes the same mistake again.
func (e *argsError) hint() string {
	if e.kind == argsCutOff {
		return "This is the second call cut off in this turn: send smaller calls (split large content over several calls)."
	}
	return "This is the same mistake again: send the arguments as strict JSON, one object with keys and strings in double quotes, " +
		"no trailing commas, no comments, every brace and bracket closed."
}

// badArgs describes raw, which is not valid JSON.
func badArgs(raw string) *argsError {
	if argsCut(raw) {
		open := openBrackets(raw)
		return &argsError{kind: argsCutOff, msg: fmt.Sprintf("the arguments were cut off, so they are not valid JSON: %d bytes arrived and they end before the JSON is complete "+
			"(expected %s at the end), probably at your output token limit; nothing ran. "+
			"Send the call again, smaller (for example, write a big file in several parts)", len(raw), open)}
	}
	var v any
	err := json.Unmarshal([]byte(raw), &v)
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return &argsError{kind: argsSyntax, msg: fmt.Sprintf("the arguments are not valid JSON (%v; %d bytes arrived); nothing ran. "+
			"Send the call again with one complete JSON object", err, len(raw))}
	}
	at := int(se.Offset) - 1 // the byte the decoder stopped at
	if at < 0 {
		at = 0
	}
	if at > len(raw) {
		at = len(raw)
	}
	where := position(raw, at)
	kind, what := argsSyntax, se.Error()
	switch {
	case at < len(raw) && raw[at] == '\'':
		kind = argsSingleQuote
		what = "a single quote: JSON keys and strings take double quotes"
	case at < len(raw) && (raw[at] == '}' || raw[at] == ']') && strings.HasSuffix(strings.TrimRight(raw[:at], " \t\r\n"), ","):
		kind = argsTrailingComma
		what = fmt.Sprintf("a trailing comma before %q: JSON allows no comma after the last member", raw[at])
	}
	return &argsError{kind: kind, msg: fmt.Sprintf("the arguments are not valid JSON: %s, at %s, near %s (%d bytes arrived); nothing ran. "+
		"Send the call again with one complete JSON object", what, where, near(raw, at), len(raw))}
}

// position names byte at of s as byte, line and column (from 1).
func position(s string, at int) string {
	line := 1 + strings.Count(s[:at], "\n")
	col := at - strings.LastIndexByte(s[:at], '\n')
	return fmt.Sprintf("byte %d (line %d, column %d)", at, line, col)
}

// near quotes a few bytes of s around at.
func near(s string, at int) string {
	from, to := max(0, at-20), min(len(s), at+20)
	for from > 0 && !utf8.RuneStart(s[from]) {
		from--
	}
	for to < len(s) && !utf8.RuneStart(s[to]) {
		to++
	}
	return fmt.Sprintf("%q", s[from:to])
}

// openBrackets says which closing brackets a cut JSON text still needs,
// as words: `"}"`, `"]}"`, or a string's end first.
func openBrackets(s string) string {
	var stack []byte
	inStr, esc := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if inStr {
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
			continue
		}
		switch c {
		case '"':
			inStr = true
		case '{':
			stack = append(stack, '}')
		case '[':
			stack = append(stack, ']')
		case '}', ']':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		}
	}
	var parts []string
	if inStr {
		parts = append(parts, `a closing '"'`)
	}
	if len(stack) > 0 {
		closers := make([]byte, len(stack))
		for i, c := range stack {
			closers[len(stack)-1-i] = c
		}
		parts = append(parts, fmt.Sprintf("%q", closers))
	}
	if len(parts) == 0 {
		return "more"
	}
	return strings.Join(parts, " then ")
}
