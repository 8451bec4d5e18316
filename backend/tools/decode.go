package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"foya/backend/jsonkeys"
)

// Decode parses a call's arguments into v strictly, as every built-in tool
// does on top of the engine's schema check (spec K1): empty arguments are an
// empty object; anything but an object (null too) is an error, and so are
// unknown fields (names are case-sensitive), fields given twice, wrong
// types and trailing data, worded for the model.
// Invalid UTF-8 and lone UTF-16 surrogate escapes are errors too, saying
// where they are: encoding/json would replace them with U+FFFD, and a tool
// must never act on content other than what the model sent.
func Decode(call Call, v any) error {
	args := call.Arguments
	if len(bytes.TrimSpace(args)) == 0 {
		args = []byte("{}")
	}
	if err := checkUnicode(args); err != nil {
		return err
	}
	if trimmed := bytes.TrimSpace(args); trimmed[0] != '{' {
		// encoding/json decodes null into a struct as nothing at all, so
		// "null" would run the tool with every argument unset.
		return fmt.Errorf("arguments are not a valid JSON object: they are %s; send one object", jsonKind(trimmed[0]))
	}
	large := isLarge(args)
	strict := args
	if large {
		// The strict checks (unknown fields, types, trailing data) run on
		// the skeleton, which has the same fields and types; the values
		// are then decoded in place.
		strict = skeleton(args)
	}
	dec := json.NewDecoder(bytes.NewReader(strict))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil && large && !dec.More() {
		if err = json.Unmarshal(args, v); err != nil {
			return fmt.Errorf("arguments are not a valid JSON object: %v", err)
		}
	}
	if err != nil {
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &te) && te.Field != "":
			return fmt.Errorf("argument %q must be %s, not a JSON %s", te.Field, jsonType(te.Type.String()), te.Value)
		case strings.HasPrefix(err.Error(), "json: unknown field "):
			return fmt.Errorf("unknown argument %s", strings.TrimPrefix(err.Error(), "json: unknown field "))
		}
		return fmt.Errorf("arguments are not a valid JSON object: %v", err)
	}
	if len(bytes.TrimSpace(strict[dec.InputOffset():])) > 0 {
		// dec.More is false before a stray "}" or "]", so look at the
		// bytes themselves.
		return errors.New("arguments hold more than one JSON value: send one object")
	}
	var ke *jsonkeys.Error
	switch err := jsonkeys.Check(strict, reflect.TypeOf(v)); {
	case errors.As(err, &ke) && ke.Twice:
		return fmt.Errorf("argument %q is given twice: give each argument once", ke.Key)
	case errors.As(err, &ke) && ke.Want != "":
		return fmt.Errorf("unknown argument %q: argument names are case-sensitive (did you mean %q?)", ke.Key, ke.Want)
	case errors.As(err, &ke):
		return fmt.Errorf("unknown argument %q", ke.Key)
	case err != nil:
		return fmt.Errorf("arguments are not a valid JSON object: %v", err)
	}
	return nil
}

// jsonKind names the JSON value that starts with c, with its article.
func jsonKind(c byte) string {
	switch {
	case c == 'n':
		return "null"
	case c == '[':
		return "an array"
	case c == '"':
		return "a string"
	case c == 't' || c == 'f':
		return "a boolean"
	case c == '-' || c >= '0' && c <= '9':
		return "a number"
	}
	return fmt.Sprintf("not JSON (they start with %q)", c)
}

// jsonType names a Go type as JSON calls it, with its article.
func jsonType(goType string) string {
	t := strings.TrimPrefix(goType, "*")
	switch {
	case t == "string":
		return "a string"
	case strings.HasPrefix(t, "int") || strings.HasPrefix(t, "uint"):
		return "an integer"
	case strings.HasPrefix(t, "float"):
		return "a number"
	case t == "bool":
		return "a boolean"
	case strings.HasPrefix(t, "[]"):
		return "an array"
	}
	return "an object"
}
