package mcp

import (
	"reflect"
	"slices"
	"testing"
)

// FuzzParseConfig reads any bytes as an mcp.json: no panic; entries come
// sorted with unique names, each valid, each problem names the file; and
// what loaded writes back (Marshal, as the settings editor saves) to a file
// that loads the same servers with no problem. Issue 16 item 2.
//
// spec: K1
func FuzzParseConfig(f *testing.F) {
	for _, s := range []string{
		`{"mcpServers":{"fs":{"command":"npx","args":["-y","server"],"env":{"A":"1"}},"web":{"url":"https://x/mcp","headers":{"H":"v"}}}}`,
		`{"servers":{"a":{"type":"sse","url":"http://127.0.0.1:1/sse","timeout":"30s"}}}`,
		`{"mcp":{"servers":{"b":{"command":"b","sandbox":true,"disabled":true,"alwaysLoad":true}}}}`,
		`{"mcpServers":{"bad":{"type":"ftp"},"":{"command":"x"},"t":{"command":"x","timeout":"-1s"}}}`,
		`{"mcpServers":[]}`, `[]`, `{`, `{"mcpServers":{"x":{"command":1}}}`, `{"mcpServers":null}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, problems := Parse("mcp.json", data)
		for _, p := range problems {
			if p.File != "mcp.json" || p.What == "" {
				t.Fatalf("Parse(%q): problem %+v does not say where and what", data, p)
			}
		}
		if !slices.IsSortedFunc(entries, func(a, b Entry) int { return cmpString(a.Name, b.Name) }) {
			t.Fatalf("Parse(%q): entries not sorted by name", data)
		}
		for i, e := range entries {
			if err := e.Validate(); err != nil {
				t.Fatalf("Parse(%q) loaded %q, which is invalid: %v", data, e.Name, err)
			}
			if i > 0 && entries[i-1].Name == e.Name {
				t.Fatalf("Parse(%q) loaded %q twice", data, e.Name)
			}
			_ = e.CallTimeout()
			_ = e.Fingerprint()
			_ = e.CommandLine()
		}
		if len(entries) == 0 {
			return
		}
		out, err := Marshal(entries)
		if err != nil {
			t.Fatalf("Marshal(%+v): %v", entries, err)
		}
		again, problems := Parse("mcp.json", out)
		if len(problems) > 0 || !reflect.DeepEqual(normal(again), normal(entries)) {
			t.Fatalf("Parse(%q) = %+v; written back as %s it loads %+v, %v", data, entries, out, again, problems)
		}
	})
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// normal drops the difference between an empty and a missing list or map,
// which the file format does not keep.
func normal(es []Entry) []Entry {
	out := slices.Clone(es)
	for i := range out {
		if len(out[i].Args) == 0 {
			out[i].Args = nil
		}
		if len(out[i].Env) == 0 {
			out[i].Env = nil
		}
		if len(out[i].Headers) == 0 {
			out[i].Headers = nil
		}
	}
	return out
}
