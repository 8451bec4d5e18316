package mcp

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// A project's entries may read the user's environment as Claude Code's
// .mcp.json does: ${VAR}, ${VAR:-default} (also ${env:VAR}) in the
// command, arguments, cwd, env values, URL and header values. They are
// expanded when the server starts, from the environment its process gets
// (Options.Environ: Foya's, less the secrets it holds); the approval
// covers the entry as written, the names it reads, and the values of the
// variables that decide what runs or where Foya connects (RunVars), so
// that a changed value does not silently change an approved command
// (docs/mcp.md, "Variables in a project's file").

// varRefs returns the names of the well-formed ${...} references of s,
// and whether each has a default.
func varRefs(s string) (names []string, hasDef []bool) {
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			return
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			return
		}
		body := s[i+2 : i+j]
		s = s[i+j+1:]
		name, _, def := strings.Cut(body, ":-")
		name = strings.TrimPrefix(name, "env:")
		if isVarName(name) {
			names = append(names, name)
			hasDef = append(hasDef, def)
		}
	}
}

// runFields are the fields that decide what runs or where Foya connects.
func (e Entry) runFields() []string {
	return append([]string{e.Command, e.Cwd, e.URL}, e.Args...)
}

// passFields are the values handed to the server: env and header values.
func (e Entry) passFields() []string {
	var out []string
	for _, m := range []map[string]string{e.Env, e.Headers} {
		for _, k := range slices.Sorted(maps.Keys(m)) {
			out = append(out, m[k])
		}
	}
	return out
}

func namesIn(fields []string) []string {
	var out []string
	for _, f := range fields {
		n, _ := varRefs(f)
		out = append(out, n...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Vars returns the variables an entry reads, sorted: run are those of its
// command, arguments, cwd and URL, which decide what runs or where Foya
// connects; pass are those read only by env and header values.
func (e Entry) Vars() (run, pass []string) {
	run = namesIn(e.runFields())
	for _, n := range namesIn(e.passFields()) {
		if !slices.Contains(run, n) {
			pass = append(pass, n)
		}
	}
	return run, pass
}

// lookupIn reads a variable of environ (NAME=value lines; the last wins).
func lookupIn(environ []string) func(string) (string, bool) {
	m := map[string]string{}
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			m[k] = v
		}
	}
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

// RunVars returns, for each variable of the entry's command, arguments,
// cwd and URL, "NAME=value" as environ has it, or "NAME unset" when it is
// unset or empty: with the entry as written, what decides what it runs.
// An approval's fingerprint covers them.
func (e Entry) RunVars(environ []string) []string {
	run, _ := e.Vars()
	lookup := lookupIn(environ)
	out := make([]string, 0, len(run))
	for _, n := range run {
		if v, ok := lookup(n); ok && v != "" {
			out = append(out, n+"="+v)
		} else {
			out = append(out, n+" unset")
		}
	}
	return out
}

// ExpandVars returns a project's entry with its variables expanded from
// environ. The error names every variable that is unset (or empty) with
// no default, or a form Foya does not expand.
func (e Entry) ExpandVars(environ []string) (Entry, error) {
	lookup := lookupIn(environ)
	var missing []string
	for _, f := range append(e.runFields(), e.passFields()...) {
		names, hasDef := varRefs(f)
		for i, n := range names {
			if v, ok := lookup(n); (!ok || v == "") && !hasDef[i] && !slices.Contains(missing, n) {
				missing = append(missing, n)
			}
		}
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		return Entry{}, fmt.Errorf("its entry reads %s, not set in the environment Foya starts servers from and with no default: "+
			"set %s before starting Foya, or write a default in the entry as ${%s:-default}",
			strings.Join(dollar(missing), ", "), plural(missing, "it", "them"), missing[0])
	}
	x, err := e.Expand(lookup)
	if err != nil {
		return Entry{}, err
	}
	if x.Cwd, err = expand(e.Cwd, lookup); err != nil {
		return Entry{}, fmt.Errorf("server %q: %w", e.Name, err)
	}
	return x, nil
}

func dollar(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = "${" + n + "}"
	}
	return out
}

func plural(list []string, one, many string) string {
	if len(list) == 1 {
		return one
	}
	return many
}

// runEntry is the entry as it starts: a project's with its variables
// expanded (a user's entries are used as written).
func (s *server) runEntry(l Launch) (Entry, error) {
	if s.workdir == "" {
		return s.entry, nil
	}
	e, err := s.entry.ExpandVars(l.Environ)
	if err == nil && e.URL != s.entry.URL && e.Transport() != Stdio {
		if err = e.Validate(); err != nil {
			err = fmt.Errorf("its url %s expands to something else than an http:// or https:// address: %q", s.entry.URL, e.URL)
		}
	}
	if err != nil {
		return Entry{}, fmt.Errorf("not started: %w", err)
	}
	return e, nil
}
