package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
)

// exactKeys checks what encoding/json lets through when it decodes data
// into a value of type t: a key that matches a field only when case is
// ignored ("pAttern" for "pattern"), and a key given twice (the last one
// wins). The schema check refuses both, and a tool must too (spec K1): a
// person reading {"path":"a","PATH":"/etc/x"} would not guess which path
// the tool takes. data must have decoded into t without error.
func exactKeys(data []byte, t reflect.Type) error {
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
		return fmt.Errorf("arguments are not a valid JSON object: %v", err)
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
				return fmt.Errorf("arguments are not a valid JSON object: %v", err)
			}
			key, _ := tok.(string)
			name := strings.TrimPrefix(at+"."+key, ".")
			if seen[key] {
				return fmt.Errorf("argument %q is given twice: give each argument once", name)
			}
			seen[key] = true
			vt := elem
			if fields != nil {
				ft, ok := fields[key]
				if !ok {
					return fmt.Errorf("unknown argument %q: argument names are case-sensitive%s", name, caseHint(fields, key))
				}
				vt = ft
			}
			if err := keysOf(dec, vt, name); err != nil {
				return err
			}
		}
	}
	_, err = dec.Token() // the closing delimiter
	if err != nil {
		return fmt.Errorf("arguments are not a valid JSON object: %v", err)
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

// caseHint names the field key matches when case is ignored.
func caseHint(fields map[string]reflect.Type, key string) string {
	for name := range fields {
		if strings.EqualFold(name, key) {
			return fmt.Sprintf(" (did you mean %q?)", name)
		}
	}
	return ""
}
