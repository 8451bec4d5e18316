package mcp_test

import (
	"reflect"
	"strings"
	"testing"

	"foya/backend/mcp"
)

// TestExpand: the variables of an imported entry are expanded in its
// command, arguments, environment, URL and headers, in the forms Claude
// Code, Cursor and VS Code write; an unset variable without a default, and
// a form Foya cannot know, is an error naming the variable and the server.
// spec: M1
func TestExpand(t *testing.T) {
	env := map[string]string{"TOKEN": "s3cret", "HOST": "example.org", "EMPTY": "", "BIN": "/opt/bin"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	e := mcp.Entry{Name: "gh", Command: "${BIN}/server", Args: []string{"--port=${PORT:-8080}", "$HOME", "${unclosed"},
		Env: map[string]string{"GITHUB_TOKEN": "${TOKEN}", "MODE": "${EMPTY:-fallback}", "BLANK": "${EMPTY}"},
		URL: "https://${env:HOST}/mcp", Headers: map[string]string{"Authorization": "Bearer ${TOKEN}"}}
	orig := e
	origEnv := map[string]string{"GITHUB_TOKEN": "${TOKEN}", "MODE": "${EMPTY:-fallback}", "BLANK": "${EMPTY}"}
	got, err := e.Expand(lookup)
	if err != nil {
		t.Fatal(err)
	}
	want := mcp.Entry{Name: "gh", Command: "/opt/bin/server", Args: []string{"--port=8080", "$HOME", "${unclosed"},
		Env: map[string]string{"GITHUB_TOKEN": "s3cret", "MODE": "fallback", "BLANK": ""},
		URL: "https://example.org/mcp", Headers: map[string]string{"Authorization": "Bearer s3cret"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Expand = %+v\nwant     %+v", got, want)
	}
	if !reflect.DeepEqual(orig.Env, origEnv) || orig.Args[0] != "--port=${PORT:-8080}" {
		t.Errorf("Expand changed the entry it was given: %+v", orig)
	}

	for _, c := range []struct {
		name  string
		entry mcp.Entry
		want  []string
	}{
		{"unset in an argument", mcp.Entry{Name: "a", Command: "x", Args: []string{"${MISSING}"}}, []string{`server "a"`, "MISSING", "not set"}},
		{"unset in the command", mcp.Entry{Name: "b", Command: "${MISSING}/x"}, []string{`server "b"`, "MISSING"}},
		{"unset in env", mcp.Entry{Name: "c", Command: "x", Env: map[string]string{"K": "${env:MISSING}"}}, []string{`server "c"`, "MISSING"}},
		{"unset in the url", mcp.Entry{Name: "d", URL: "https://${MISSING}/"}, []string{`server "d"`, "MISSING"}},
		{"unset in a header", mcp.Entry{Name: "e", URL: "https://h/", Headers: map[string]string{"X": "${MISSING}"}}, []string{`server "e"`, "MISSING"}},
		{"VS Code input", mcp.Entry{Name: "f", Command: "x", Env: map[string]string{"K": "${input:token}"}}, []string{`server "f"`, "${input:token}", "write the value"}},
		{"VS Code workspace", mcp.Entry{Name: "g", Command: "x", Args: []string{"${workspaceFolder}"}}, []string{`server "g"`, "${workspaceFolder}", "VS Code"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := c.entry.Expand(lookup)
			if err == nil {
				t.Fatal("Expand = no error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Expand error %q lacks %q", err, w)
				}
			}
		})
	}
}
