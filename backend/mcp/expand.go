package mcp

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Expand returns the entry with the variables of its command, arguments,
// environment values, URL and header values expanded, as the programs it
// is imported from do: ${VAR} is the variable's value, ${VAR:-default}
// the value or, when VAR is unset or empty, default (Claude Code's
// .mcp.json, Cursor); ${env:VAR} is ${VAR} (VS Code, Cursor). lookup
// reads a variable (os.LookupEnv). A "${" with no closing "}" is kept as
// it is.
//
// The error names the variable and the server: an unset variable with no
// default, or a form Foya cannot know at import (VS Code's
// ${input:...}, ${workspaceFolder}).
func (e Entry) Expand(lookup func(string) (string, bool)) (Entry, error) {
	var err error
	x := func(s string) string {
		if err != nil {
			return s
		}
		var out string
		out, err = expand(s, lookup)
		return out
	}
	e.Command = x(e.Command)
	e.URL = x(e.URL)
	if e.Args != nil {
		e.Args = slices.Clone(e.Args)
		for i := range e.Args {
			e.Args[i] = x(e.Args[i])
		}
	}
	for _, m := range []*map[string]string{&e.Env, &e.Headers} {
		if *m == nil {
			continue
		}
		*m = maps.Clone(*m)
		for _, k := range slices.Sorted(maps.Keys(*m)) {
			(*m)[k] = x((*m)[k])
		}
	}
	if err != nil {
		return Entry{}, fmt.Errorf("server %q: %w", e.Name, err)
	}
	return e, nil
}

// vscodeOnly are variables VS Code and Cursor fill in themselves when they
// start a server: Foya, importing, has no value for them.
var vscodeOnly = []string{"workspaceFolder", "workspaceFolderBasename", "workspaceRoot", "userHome", "file", "cwd", "pathSeparator"}

func expand(s string, lookup func(string) (string, bool)) (string, error) {
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			return b.String(), nil
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			b.WriteString(s)
			return b.String(), nil
		}
		b.WriteString(s[:i])
		ref := s[i : i+j+1]
		body := s[i+2 : i+j]
		s = s[i+j+1:]
		name, def, hasDef := strings.Cut(body, ":-")
		name = strings.TrimPrefix(name, "env:")
		if !isVarName(name) {
			return "", fmt.Errorf("%s cannot be expanded: Foya expands ${VAR}, ${VAR:-default} and ${env:VAR} of its own environment; "+
				"write the value instead (VS Code's ${input:...} asks when VS Code starts the server, which Foya does not do)", ref)
		}
		v, ok := lookup(name)
		switch {
		case ok && v != "":
			b.WriteString(v)
		case hasDef:
			b.WriteString(def)
		case ok:
		case slices.Contains(vscodeOnly, name):
			return "", fmt.Errorf("%s is filled in by VS Code or Cursor when they start a server; Foya has no value for it: write the value instead", ref)
		default:
			return "", fmt.Errorf("the variable %s is not set and has no default: set it in the environment Foya starts from and import again, "+
				"or write ${%s:-default}", name, name)
		}
	}
}

// isVarName reports whether s is an environment variable's name.
func isVarName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_', r >= 'A' && r <= 'Z', r >= 'a' && r <= 'z':
		case r >= '0' && r <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}
