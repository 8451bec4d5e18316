package mcpconfig

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"foya/backend/event"
	"foya/backend/fault"
	"foya/backend/mcp"
	"foya/backend/secret"
	"foya/backend/store"
	"foya/backend/trust"
)

// approved is what the trust ledger keeps of an approval besides its
// fingerprint (trust.Approval.Detail).
type approved struct {
	// Entry is the fingerprint of the entry alone and Code the digests of
	// its code, to say what changed.
	Entry      string   `json:"entry,omitempty"`
	Code       mcp.Code `json:"code,omitempty"`
	Unconfined bool     `json:"unconfined,omitempty"`
	// Vars are the digests of the run variables' values (mcp.Entry.RunVars)
	// by name, to say which changed.
	Vars map[string]string `json:"vars,omitempty"`
}

// entryFingerprint is the fingerprint of an entry alone.
func entryFingerprint(e mcp.Entry) string {
	return trust.Fingerprint([]byte(e.Fingerprint()))
}

// fingerprint is what approving a project's server covers: its entry as
// written, the content of the workspace code it runs, and the values of
// the variables its command, arguments, cwd and URL read (vars, from
// covered). Approvals given before the trust ledger were of these very
// bytes (an entry that reads no variables adds nothing), so they still
// hold.
func fingerprint(e mcp.Entry, code mcp.Code, vars []string) string {
	fp := e.Fingerprint() + "\x00code\x00" + code.Digest()
	if len(vars) > 0 {
		fp += "\x00vars\x00" + strings.Join(vars, "\x00")
	}
	return trust.Fingerprint([]byte(fp))
}

// covered is what an approval of a project's entry covers besides the
// entry as written: the workspace code it runs, read from the entry with
// its variables expanded when they can be, and the values of the
// variables that decide what it runs (mcp.Entry.RunVars), from the
// environment its server would start with.
func (s *Servers) covered(workdir string, e mcp.Entry) (mcp.Code, []string) {
	var env []string
	if s.opts.Environ != nil {
		env = s.opts.Environ()
	}
	code := e
	if x, err := e.ExpandVars(env); err == nil {
		code = x
	}
	return code.Code(workdir), e.RunVars(env)
}

// varDigests are the digests of run variables' values by name.
func varDigests(vars []string) map[string]string {
	if len(vars) == 0 {
		return nil
	}
	out := map[string]string{}
	for _, v := range vars {
		name, _, _ := strings.Cut(strings.TrimSuffix(v, " unset"), "=")
		out[name] = trust.Fingerprint([]byte(v))
	}
	return out
}

// approval returns the approval of a project's server when it holds for
// the entry, its code and its run variables as they are now (code and vars
// from covered); else why not, in words the user reads.
func (s *Servers) approval(ctx context.Context, workdir string, e mcp.Entry, code mcp.Code, vars []string) (approved, string, bool) {
	notYet := fmt.Sprintf("the project's MCP server %s is not approved: approve it in Settings, MCP servers, or with foya mcp approve %s", e.Name, e.Name)
	t, ok, err := s.trust.Approval(ctx, workdir, trust.MCP(e.Name))
	if err != nil || !ok {
		return approved{}, notYet, false
	}
	var a approved
	if t.Detail != "" && json.Unmarshal([]byte(t.Detail), &a) != nil {
		return approved{}, notYet, false // an unreadable approval approves nothing
	}
	if t.Fingerprint == fingerprint(e, code, vars) {
		return a, "", true
	}
	if a.Entry == entryFingerprint(e) {
		var changedVars []string
		for name, d := range varDigests(vars) {
			if a.Vars[name] != d {
				changedVars = append(changedVars, "${"+name+"}")
			}
		}
		if len(changedVars) > 0 {
			slices.Sort(changedVars)
			return approved{}, fmt.Sprintf("the value of %s, which the MCP server %s's command, arguments, cwd or URL read, changed since you approved it: "+
				"the server does not start until you approve it again with the new value (Settings, MCP servers, or foya mcp approve %s)",
				strings.Join(changedVars, ", "), e.Name, e.Name), false
		}
		changed := code.Changed(a.Code)
		return approved{}, fmt.Sprintf("%s changed since you approved the MCP server %s, which runs or loads it: "+
			"the server does not start until you approve it again (Settings, MCP servers, or foya mcp approve %s)",
			strings.Join(changed, ", "), e.Name, e.Name), false
	}
	return approved{}, fmt.Sprintf("the entry of the MCP server %s changed since you approved it: "+
		"it does not start until you approve it again (Settings, MCP servers, or foya mcp approve %s)", e.Name, e.Name), false
}

// shown is an entry as approving shows it: everything that decides what
// runs, values that look secret masked, headers by name only.
func shown(e mcp.Entry) Server {
	s := Server{Name: e.Name, ImportedFrom: e.ImportedFrom, Transport: e.Transport(), CommandLine: e.CommandLine(),
		Sandbox: e.Sandbox, AlwaysLoad: e.AlwaysLoad, Cwd: e.Cwd}
	s.Vars, s.PassVars = e.Vars()
	if e.Transport() == mcp.Stdio {
		s.Command, s.Args = e.Command, e.Args
	} else {
		s.URL = e.URL
		s.Headers = slices.Sorted(maps.Keys(e.Headers))
	}
	if len(e.Env) > 0 {
		s.Env = map[string]string{}
		for k, v := range e.Env {
			if secret.LooksSecret(k, v) {
				v = fmt.Sprintf("•••••• (%d characters, hidden: it looks like a secret)", len(v))
			}
			s.Env[k] = v
		}
	}
	return s
}

// Approve approves a project's server as it was shown: the entry and the
// content of the workspace code it runs must still have the fingerprint
// the person saw. It then starts, inside the sandbox unless Unsandboxed
// (stdio servers); a server that runs workspace code is let out of the
// sandbox only with WorkspaceCode.
func (s *Servers) Approve(ctx context.Context, workdir, name string, a Approval) (Server, error) {
	abs, err := filepath.Abs(workdir)
	if err != nil {
		return Server{}, fault.Wrap(err, fault.ErrInvalid)
	}
	if _, err := trust.Dir(abs); err != nil {
		return Server{}, fault.Wrap(err, fault.ErrInvalid)
	}
	es, _, ps := projectEntries(abs)
	i := slices.IndexFunc(es, func(e mcp.Entry) bool { return e.Name == name })
	if i < 0 {
		msg := fmt.Sprintf("%s has no MCP server %q in %s", abs, name, strings.Join(projectFiles, " or "))
		if len(ps) > 0 {
			msg += " (" + ps[0].Error() + ")"
		}
		return Server{}, fault.Errorf(store.ErrNotFound, "%s", msg)
	}
	e := es[i]
	code, vars := s.covered(abs, e)
	fp := fingerprint(e, code, vars)
	switch want := strings.ToLower(strings.TrimSpace(a.Fingerprint)); {
	case want == "":
		return Server{}, fault.Errorf(fault.ErrInvalid, "approving the MCP server %s needs the fingerprint you were shown "+
			"(foya mcp list --json, or Settings, MCP servers): nothing was approved", name)
	case want != fp:
		return Server{}, fault.Errorf(fault.ErrConflict, "the MCP server %s changed since it was shown (its entry or the workspace code it runs; "+
			"fingerprint %s now, not %s): nothing was approved; review it again", name, short(fp), short(want))
	}
	unconfined := a.Unsandboxed && e.Transport() == mcp.Stdio
	if files := code.Files(); unconfined && len(files) > 0 && !a.WorkspaceCode {
		return Server{}, fault.Errorf(fault.ErrInvalid, "the MCP server %s runs code from the workspace (%s): outside the sandbox, whatever is written there, "+
			"by the model too, would run with all your rights. Nothing was approved: approve it inside the sandbox, or confirm this exact risk "+
			"(foya mcp approve --unsandboxed --trust-workspace-code, or the box in Settings)", name, strings.Join(files, ", "))
	}
	detail, _ := json.Marshal(approved{Entry: entryFingerprint(e), Code: code, Unconfined: unconfined, Vars: varDigests(vars)})
	if err := s.trust.Approve(ctx, abs, trust.MCP(name), trust.Approval{Fingerprint: fp, Detail: string(detail)}); err != nil {
		return Server{}, err
	}
	s.Load(ctx, abs)
	s.m.Announce(event.MCPChangedData{Change: event.MCPApproved, Server: name, Workdir: abs})
	list, err := s.List(ctx, abs)
	if err != nil {
		return Server{}, err
	}
	for _, v := range list.Servers {
		if v.Scope == "project" && v.Name == name {
			return v, nil
		}
	}
	return Server{}, errors.New("the approved server is missing from the list")
}

// short is the start of a fingerprint, enough to tell two apart.
func short(fp string) string {
	if len(fp) > 12 {
		return fp[:12]
	}
	return fp
}
