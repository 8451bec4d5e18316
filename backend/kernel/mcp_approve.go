package kernel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"foya/backend/mcp"
	"foya/backend/secret"
)

// shownMCP is an entry as approving shows it: everything that decides
// what runs, values that look secret masked, headers by name only.
func shownMCP(e mcp.Entry) MCPServer {
	s := MCPServer{Name: e.Name, ImportedFrom: e.ImportedFrom, Transport: e.Transport(), CommandLine: e.CommandLine(),
		Sandbox: e.Sandbox, AlwaysLoad: e.AlwaysLoad, Cwd: e.Cwd}
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

// ApproveMCPServer approves a project's server as it was shown: the entry
// and the content of the workspace code it runs must still have the
// fingerprint the person saw. It then starts, inside the sandbox unless
// Unsandboxed (stdio servers); a server that runs workspace code is let
// out of the sandbox only with WorkspaceCode.
func (k *Kernel) ApproveMCPServer(ctx context.Context, workdir, name string, a MCPApprove) (MCPServer, error) {
	abs, err := filepath.Abs(workdir)
	if err != nil {
		return MCPServer{}, withKind(err, ErrInvalid)
	}
	dir, err := realDir(abs)
	if err != nil {
		return MCPServer{}, withKind(err, ErrInvalid)
	}
	es, _, ps := projectEntries(abs)
	i := slices.IndexFunc(es, func(e mcp.Entry) bool { return e.Name == name })
	if i < 0 {
		msg := fmt.Sprintf("%s has no MCP server %q in %s", abs, name, strings.Join(mcpProjectFiles, " or "))
		if len(ps) > 0 {
			msg += " (" + ps[0].Error() + ")"
		}
		return MCPServer{}, kindf(ErrNotFound, "%s", msg)
	}
	e := es[i]
	code := e.Code(abs)
	fp := mcpHash(e, code)
	switch want := strings.ToLower(strings.TrimSpace(a.Fingerprint)); {
	case want == "":
		return MCPServer{}, kindf(ErrInvalid, "approving the MCP server %s needs the fingerprint you were shown "+
			"(foya mcp list --json, or Settings, MCP servers): nothing was approved", name)
	case want != fp:
		return MCPServer{}, kindf(ErrConflict, "the MCP server %s changed since it was shown (its entry or the workspace code it runs; "+
			"fingerprint %s now, not %s): nothing was approved; review it again", name, short(fp), short(want))
	}
	unconfined := a.Unsandboxed && e.Transport() == mcp.Stdio
	if files := code.Files(); unconfined && len(files) > 0 && !a.WorkspaceCode {
		return MCPServer{}, kindf(ErrInvalid, "the MCP server %s runs code from the workspace (%s): outside the sandbox, whatever is written there, "+
			"by the model too, would run with all your rights. Nothing was approved: approve it inside the sandbox, or confirm this exact risk "+
			"(foya mcp approve --unsandboxed --trust-workspace-code, or the box in Settings)", name, strings.Join(files, ", "))
	}
	v, _ := json.Marshal(mcpApproval{Hash: fp, Entry: mcpEntryHash(e), Code: code, Unconfined: unconfined, ApprovedAt: time.Now().UTC()})
	if err := k.store.SetSetting(ctx, settingMCPPrefix+dir+"\x00"+name, string(v)); err != nil {
		return MCPServer{}, err
	}
	k.loadMCP(ctx, abs)
	list, err := k.MCPServers(ctx, abs)
	if err != nil {
		return MCPServer{}, err
	}
	for _, s := range list.Servers {
		if s.Scope == "project" && s.Name == name {
			return s, nil
		}
	}
	return MCPServer{}, errors.New("the approved server is missing from the list")
}

// short is the start of a fingerprint, enough to tell two apart.
func short(fp string) string {
	if len(fp) > 12 {
		return fp[:12]
	}
	return fp
}
