// Package jsonkeys checks what encoding/json lets through when it decodes
// an object into a struct: a key that matches a field only when case is
// ignored ("pAttern" for "pattern") and a key given twice (the last one
// wins). Tool arguments (tools.Decode) and permissions.json
// (approval.ParseRules) refuse both, so that what a person reads in the
// JSON is what Foya acts on. It imports nothing of Foya's and holds no
// state.
package jsonkeys

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
)

// Error is a key Check refuses.
type Error struct {
	// Key is where the key is: "path", "edits[0].old_string".
	Key string
	// Twice says the key is given twice; otherwise it names no field.
	Twice bool
	// Want is the field the key matches when case is ignored, if any.
	Want string
}

func (e *Error) Error() string {
	switch {
	case e.Twice:
		return fmt.Sprintf("%q is given twice: give each key once", e.Key)
	case e.Want != "":
		return fmt.Sprintf("unknown key %q: keys are case-sensitive (did you mean %q?)", e.Key, e.Want)
	}
	return fmt.Sprintf("unknown key %q", e.Key)
}

// Check reads data, which must have decoded into a value of type t without
// error, and returns an *Error for the first key given twice or naming no
// field of t exactly. Objects decoded into maps or interfaces are checked
// for repeated keys only.
func Check(data []byte, t reflect.Type) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return keysOf(dec, t, "")
}

// keysOf reads one value from dec, checking the keys of every object in it
// that decodes into a struct. at is where the value is, for messages.
func keysOf(dec *json.Decoder, t reflect.Type, at string) error {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	tok, err := dec.Token()
	if err != nil {
		return fmt.Errorf("not valid JSON: %v", err)
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return nil
	}
	var elem reflect.Type
	switch d {
	case '[':
		if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
			elem = t.Elem()
		}
		for i := 0; dec.More(); i++ {
			if err := keysOf(dec, elem, fmt.Sprintf("%s[%d]", at, i)); err != nil {
				return err
			}
		}
	case '{':
		var fields map[string]reflect.Type
		switch {
		case t != nil && t.Kind() == reflect.Struct:
			fields = jsonFields(t)
		case t != nil && t.Kind() == reflect.Map:
			elem = t.Elem()
		}
		seen := map[string]bool{}
		for dec.More() {
			tok, err := dec.Token()
			if err != nil {
				return fmt.Errorf("not valid JSON: %v", err)
			}
			key, _ := tok.(string)
			name := strings.TrimPrefix(at+"."+key, ".")
			if seen[key] {
				return &Error{Key: name, Twice: true}
			}
			seen[key] = true
			vt := elem
			if fields != nil {
				ft, ok := fields[key]
				if !ok {
					return &Error{Key: name, Want: caseMatch(fields, key)}
				}
				vt = ft
			}
			if err := keysOf(dec, vt, name); err != nil {
				return err
			}
		}
	}
	if _, err = dec.Token(); err != nil { // the closing delimiter
		return fmt.Errorf("not valid JSON: %v", err)
	}
	return nil
}

// jsonFields maps the JSON names of a struct's fields, as encoding/json
// names them (tag name, else the field name; embedded structs' fields
// promoted), to their types.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if f.Anonymous && name == "" && ft.Kind() == reflect.Struct {
			for k, v := range jsonFields(ft) {
				if _, ok := out[k]; !ok {
					out[k] = v
				}
			}
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	return out
}

// caseMatch returns the field key matches when case is ignored, or "".
func caseMatch(fields map[string]reflect.Type, key string) string {
	for name := range fields {
		if strings.EqualFold(name, key) {
			return name
		}
	}
	return ""
}
