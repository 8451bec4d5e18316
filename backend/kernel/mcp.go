package kernel

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"foya/backend/mcp"
)

// MCP servers come from two places. The user's own are in MCPFile in the
// data folder, in the mcpServers format (foya mcp add, remove and import
// write it); they start without asking. A project's are in its
// .foya/mcp.json and .mcp.json (the first wins on a name): opening a
// project must not start its programs, so each runs only once the user
// approved what it runs: its entry and the content of the workspace code
// it runs or loads (mcp.Entry.Code). The approval is kept like a rules
// file's, by sha256 of both, and checked before every start: a changed
// entry or script is unapproved again (issue 21 items 2 and 4). A stdio
// one runs inside the sandbox, the shell's own (issue 21 item 1), unless
// the approval lifts it; for a server that runs workspace code, only with
// the user's confirmation of that risk (mcp_approve.go).

// MCPFile is the user's MCP servers file in the data folder.
const MCPFile = "mcp.json"

// Project MCP files, in the order they are read.
var mcpProjectFiles = []string{filepath.Join(".foya", "mcp.json"), ".mcp.json"}

// settingMCPPrefix keys the approvals of project MCP servers.
const settingMCPPrefix = "mcp.approved:"

// SettingMCPDeferShare is the share of the context budget (a number from
// 0 to 1, default 0.1) the MCP tools' schemas may take before the tools
// of servers not marked alwaysLoad are deferred behind tool_search; 0
// never defers.
const SettingMCPDeferShare = "mcp.deferShare"

const defaultDeferShare = 0.1

type mcpApproval struct {
	// Hash is the fingerprint approved: the entry and its code.
	Hash string `json:"sha256"`
	// Entry is the sha256 of the entry alone and Code the digests of its
	// code, to say what changed.
	Entry      string    `json:"entry,omitempty"`
	Code       mcp.Code  `json:"code,omitempty"`
	Unconfined bool      `json:"unconfined,omitempty"`
	ApprovedAt time.Time `json:"approvedAt"`
}

// mcpState is the kernel's MCP manager and which scopes it has loaded.
type mcpState struct {
	m    *mcp.Manager
	file string
	mu   sync.Mutex // serializes loads
}

func newMCP(k *Kernel, dataDir string, budget int) *mcpState {
	if budget <= 0 {
		budget = 96_000 // engine.ContextConfig's default
	}
	m := mcp.NewManager(mcp.Options{
		Registry: k.reg,
		DeferTokens: func() int {
			return int(k.deferShare(context.Background()) * float64(budget))
		},
		Environ: k.commandEnv,
		// A sandboxed server gets the shell's own confinement, made afresh
		// at each start (issue 21 item 1).
		Confine: func(workdir string) mcp.Confinement {
			c := k.shell.Confine(workdir)
			return mcp.Confinement{Policy: c.Policy, Sweep: c.Sweep}
		},
		// A project's server starts (and restarts) only while its approval
		// holds for its entry and code as they are then (issue 21 item 2).
		Verify: func(workdir string, e mcp.Entry) error {
			if _, why, ok := k.mcpApproval(context.Background(), workdir, e, e.Code(workdir)); !ok {
				return errors.New(why)
			}
			return nil
		},
	})
	return &mcpState{m: m, file: filepath.Join(dataDir, MCPFile)}
}

func (k *Kernel) deferShare(ctx context.Context) float64 {
	v, ok, err := k.store.Setting(ctx, SettingMCPDeferShare)
	if err != nil || !ok {
		return defaultDeferShare
	}
	f, err := parseShare(v)
	if err != nil {
		return defaultDeferShare
	}
	return f
}

func parseShare(v string) (float64, error) {
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || f < 0 || f > 1 {
		return 0, fmt.Errorf("%s: want a share from 0 to 1 (0.1 is a tenth of the context), got %q", SettingMCPDeferShare, v)
	}
	return f, nil
}

// SetMCPDeferShare stores the mcp.deferShare setting.
func (k *Kernel) SetMCPDeferShare(ctx context.Context, value string) error {
	f, err := parseShare(value)
	if err != nil {
		return withKind(err, ErrInvalid)
	}
	return k.store.SetSetting(ctx, SettingMCPDeferShare, strconv.FormatFloat(f, 'f', -1, 64))
}

// projectEntries reads a project's MCP files.
func projectEntries(workdir string) ([]mcp.Entry, map[string]string, []mcp.Problem) {
	var out []mcp.Entry
	files := map[string]string{}
	var problems []mcp.Problem
	for _, rel := range mcpProjectFiles {
		f := filepath.Join(workdir, rel)
		es, ps := mcp.ReadFile(f)
		problems = append(problems, ps...)
		for _, e := range es {
			if _, ok := files[e.Name]; !ok {
				files[e.Name] = f
				out = append(out, e)
			}
		}
	}
	return out, files, problems
}

// mcpEntryHash is the sha256 of an entry's fingerprint alone.
func mcpEntryHash(e mcp.Entry) string {
	sum := sha256.Sum256([]byte(e.Fingerprint()))
	return hex.EncodeToString(sum[:])
}

// mcpHash is what approving a project's server covers: its entry and the
// content of the workspace code it runs.
func mcpHash(e mcp.Entry, code mcp.Code) string {
	sum := sha256.Sum256([]byte(e.Fingerprint() + "\x00code\x00" + code.Digest()))
	return hex.EncodeToString(sum[:])
}

// mcpApproval returns the approval of a project's server when it holds for
// the entry and its code as they are now (code is e.Code(workdir)); else
// why not, in words the user reads.
func (k *Kernel) mcpApproval(ctx context.Context, workdir string, e mcp.Entry, code mcp.Code) (mcpApproval, string, bool) {
	notYet := fmt.Sprintf("the project's MCP server %s is not approved: approve it in Settings, MCP servers, or with foya mcp approve %s", e.Name, e.Name)
	dir, err := realDir(workdir)
	if err != nil {
		return mcpApproval{}, notYet, false
	}
	v, ok, err := k.store.Setting(ctx, settingMCPPrefix+dir+"\x00"+e.Name)
	if err != nil || !ok || v == "" {
		return mcpApproval{}, notYet, false
	}
	var a mcpApproval
	if json.Unmarshal([]byte(v), &a) != nil {
		return mcpApproval{}, notYet, false
	}
	if a.Hash == mcpHash(e, code) {
		return a, "", true
	}
	if a.Entry == mcpEntryHash(e) {
		changed := code.Changed(a.Code)
		return mcpApproval{}, fmt.Sprintf("%s changed since you approved the MCP server %s, which runs or loads it: "+
			"the server does not start until you approve it again (Settings, MCP servers, or foya mcp approve %s)",
			strings.Join(changed, ", "), e.Name, e.Name), false
	}
	return mcpApproval{}, fmt.Sprintf("the entry of the MCP server %s changed since you approved it: "+
		"it does not start until you approve it again (Settings, MCP servers, or foya mcp approve %s)", e.Name, e.Name), false
}

// loadMCP gives the manager the user's servers and, for workdir, the
// project's approved ones, as the files say now (unchanged servers keep
// running; changed or unapproved ones stop), then waits (bounded) for them to connect, so
// that a run's first step sees their tools.
func (k *Kernel) loadMCP(ctx context.Context, workdir string) {
	st := k.mcp
	st.mu.Lock()
	scopes := []string{""}
	// Like the user's rules, the user's servers file is not read while
	// any session's workspace holds it: that session's agent could have
	// written it. Servers started from it before keep running as they were.
	if _, exposed := k.exposedIn(ctx, st.file, workdir); !exposed {
		es, _ := mcp.ReadFile(st.file)
		st.m.Set("", es)
	}
	if workdir != "" {
		scopes = append(scopes, workdir)
		es, _, _ := projectEntries(workdir)
		var run []mcp.Entry
		for _, e := range es {
			a, _, ok := k.mcpApproval(ctx, workdir, e, e.Code(workdir))
			if !ok {
				continue
			}
			if e.Transport() == mcp.Stdio && !a.Unconfined {
				e.Sandbox = true
			}
			run = append(run, e)
		}
		st.m.Set(workdir, run)
	}
	st.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	st.m.Wait(ctx, scopes...)
}

// MCPServers lists the user's servers and, with a workdir, the project's,
// starting those that should run and waiting briefly for them.
func (k *Kernel) MCPServers(ctx context.Context, workdir string) (MCPList, error) {
	if workdir != "" {
		var err error
		if workdir, err = filepath.Abs(workdir); err != nil {
			return MCPList{}, withKind(err, ErrInvalid)
		}
	}
	k.loadMCP(ctx, workdir)
	running := map[string]mcp.Status{}
	for _, s := range k.mcp.m.Statuses() {
		running[s.Workdir+"\x00"+s.Name] = s
	}
	list := MCPList{Servers: []MCPServer{}, Problems: []string{}}
	add := func(scope, file, wd string, e mcp.Entry, missing string) *MCPServer {
		s := shownMCP(e)
		s.Scope, s.File, s.State = scope, file, missing
		if r, ok := running[wd+"\x00"+e.Name]; ok && missing != MCPUnapproved && missing != MCPDisabled {
			s.State, s.Error, s.Stderr, s.Tools, s.Deferred, s.Sandbox, s.Restarts = r.State, r.Error, r.Stderr, r.Tools, r.Deferred, r.Sandbox, r.Restarts
		}
		list.Servers = append(list.Servers, s)
		return &list.Servers[len(list.Servers)-1]
	}
	es, ps := mcp.ReadFile(k.mcp.file)
	for _, p := range ps {
		list.Problems = append(list.Problems, p.Error())
	}
	if ws, exposed := k.exposedIn(ctx, k.mcp.file, workdir); exposed && len(es) > 0 {
		list.Problems = append(list.Problems, fmt.Sprintf("%s lies inside the workspace %s of a session, where its agent can write, so Foya does not start "+
			"its servers: keep Foya's data folder out of your workspaces (open sessions on a subfolder and delete the one on %s, or point --db elsewhere)",
			k.mcp.file, ws, ws))
	}
	for _, e := range es {
		state := mcp.Stopped
		if e.Disabled {
			state = MCPDisabled
		}
		add("user", k.mcp.file, "", e, state)
	}
	if workdir != "" {
		pes, files, pps := projectEntries(workdir)
		for _, p := range pps {
			list.Problems = append(list.Problems, p.Error())
		}
		for _, e := range pes {
			state := MCPUnapproved
			code := e.Code(workdir)
			a, why, ok := k.mcpApproval(ctx, workdir, e, code)
			if ok {
				state = mcp.Stopped
			}
			if e.Transport() == mcp.Stdio {
				e.Sandbox = !a.Unconfined // running status overrides
			}
			s := add("project", files[e.Name], workdir, e, state)
			s.Code, s.Fingerprint = code.Files(), mcpHash(e, code)
			if !ok && strings.Contains(why, "changed since") {
				s.Error = why
			}
		}
	}
	return list, nil
}

func (c MCPServerConfig) entry() mcp.Entry {
	return mcp.Entry{Name: c.Name, Type: c.Type, Command: c.Command, Args: c.Args, Env: c.Env, URL: c.URL,
		Headers: c.Headers, Sandbox: c.Sandbox, AlwaysLoad: c.AlwaysLoad, Timeout: c.Timeout}
}

// mcpFileMu serializes changes of the user's MCP file.
var mcpFileMu sync.Mutex

// editMCPFile reads the user's file, lets edit change its entries and
// writes it back, then reloads the user's servers. A file with problems is
// not rewritten: that would drop what could not be read.
func (k *Kernel) editMCPFile(ctx context.Context, edit func(es []mcp.Entry) ([]mcp.Entry, error)) error {
	mcpFileMu.Lock()
	defer mcpFileMu.Unlock()
	es, ps := mcp.ReadFile(k.mcp.file)
	if len(ps) > 0 {
		return kindf(ErrConflict, "%s cannot be read (%s): fix or remove it first", k.mcp.file, ps[0].Error())
	}
	es, err := edit(es)
	if err != nil {
		return err
	}
	data, err := mcp.Marshal(es)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(k.mcp.file), 0o700); err != nil {
		return fmt.Errorf("save MCP servers: %w", err)
	}
	tmp := k.mcp.file + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return fmt.Errorf("save MCP servers: %w", err)
	}
	if err := os.Rename(tmp, k.mcp.file); err != nil {
		return fmt.Errorf("save MCP servers: %w", err)
	}
	k.loadMCP(ctx, "")
	return nil
}

// AddMCPServer adds or replaces one of the user's servers; it starts at
// once.
func (k *Kernel) AddMCPServer(ctx context.Context, c MCPServerConfig) error {
	e := c.entry()
	if err := e.Validate(); err != nil {
		return kindf(ErrInvalid, "MCP server %q: %w", c.Name, err)
	}
	return k.editMCPFile(ctx, func(es []mcp.Entry) ([]mcp.Entry, error) {
		es = slices.DeleteFunc(es, func(x mcp.Entry) bool { return x.Name == e.Name })
		return append(es, e), nil
	})
}

// RemoveMCPServer removes one of the user's servers and stops it.
func (k *Kernel) RemoveMCPServer(ctx context.Context, name string) error {
	return k.editMCPFile(ctx, func(es []mcp.Entry) ([]mcp.Entry, error) {
		n := len(es)
		es = slices.DeleteFunc(es, func(x mcp.Entry) bool { return x.Name == name })
		if len(es) == n {
			return nil, kindf(ErrNotFound, "no MCP server %q in %s", name, k.mcp.file)
		}
		return es, nil
	})
}

// ImportMCP copies the servers of a Claude Desktop, Cursor, Claude Code or
// VS Code file into the user's file; servers of a name already there are
// kept as they are. Entries that cannot be read are reported; the others
// are imported.
func (k *Kernel) ImportMCP(ctx context.Context, file string) (MCPImport, error) {
	if abs, err := filepath.Abs(file); err == nil {
		file = abs
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return MCPImport{}, kindf(ErrInvalid, "import %s: %w", file, err)
	}
	in, ps := mcp.Parse(file, data)
	res := MCPImport{Added: []string{}, Skipped: []string{}, Problems: []string{}}
	for _, p := range ps {
		res.Problems = append(res.Problems, p.Error())
	}
	if len(in) == 0 {
		if len(ps) > 0 {
			return res, kindf(ErrInvalid, "%s", ps[0].Error())
		}
		return res, kindf(ErrInvalid, "%s has no MCP servers", file)
	}
	err = k.editMCPFile(ctx, func(es []mcp.Entry) ([]mcp.Entry, error) {
		for _, e := range in {
			if slices.ContainsFunc(es, func(x mcp.Entry) bool { return x.Name == e.Name }) {
				res.Skipped = append(res.Skipped, e.Name)
				continue
			}
			e.ImportedFrom = file
			es = append(es, e)
			res.Added = append(res.Added, e.Name)
		}
		return es, nil
	})
	return res, err
}

// SetMCPAlwaysLoad sets whether one of the user's servers keeps its tools
// in every request even when MCP tools are deferred behind tool_search. A
// project's servers say so in the project's own file, which Foya does not
// rewrite.
func (k *Kernel) SetMCPAlwaysLoad(ctx context.Context, name string, on bool) error {
	return k.editMCPFile(ctx, func(es []mcp.Entry) ([]mcp.Entry, error) {
		i := slices.IndexFunc(es, func(x mcp.Entry) bool { return x.Name == name })
		if i < 0 {
			return nil, kindf(ErrNotFound, "no MCP server %q in %s: a project's server says \"alwaysLoad\" in the project's own file", name, k.mcp.file)
		}
		es[i].AlwaysLoad = on
		return es, nil
	})
}

// RestartMCPServer stops a running server (the user's, or with a workdir
// the project's of that name) and starts it again at once, then waits
// briefly for it to be ready.
func (k *Kernel) RestartMCPServer(ctx context.Context, workdir, name string) (MCPServer, error) {
	wd := k.mcpScope(ctx, workdir)
	scope, err := k.mcp.m.Restart(wd, name)
	if err != nil {
		return MCPServer{}, withKind(err, ErrNotFound)
	}
	wctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	k.mcp.m.Wait(wctx, scope)
	cancel()
	list, err := k.MCPServers(ctx, wd)
	if err != nil {
		return MCPServer{}, err
	}
	want := "user"
	if scope != "" {
		want = "project"
	}
	for _, s := range list.Servers {
		if s.Name == name && s.Scope == want {
			return s, nil
		}
	}
	return MCPServer{}, kindf(ErrNotFound, "no MCP server %q", name)
}

// MCPResources lists a server's resources (a project's server for
// workdir wins over the user's of the same name).
func (k *Kernel) MCPResources(ctx context.Context, workdir, server string) ([]MCPResource, error) {
	wd := k.mcpScope(ctx, workdir)
	r, err := k.mcp.m.Resources(ctx, wd, server)
	return mapSlice(r, mcpResourceOf), withKind(err, ErrInvalid)
}

// ReadMCPResource reads one resource; a front end may attach its text to
// the next prompt.
func (k *Kernel) ReadMCPResource(ctx context.Context, workdir, server, uri string) ([]MCPContent, error) {
	wd := k.mcpScope(ctx, workdir)
	c, err := k.mcp.m.ReadResource(ctx, wd, server, uri)
	return mapSlice(c, mcpContentOf), withKind(err, ErrInvalid)
}

// MCPPrompts lists a server's prompts.
func (k *Kernel) MCPPrompts(ctx context.Context, workdir, server string) ([]MCPPrompt, error) {
	wd := k.mcpScope(ctx, workdir)
	p, err := k.mcp.m.Prompts(ctx, wd, server)
	return mapSlice(p, mcpPromptOf), withKind(err, ErrInvalid)
}

// GetMCPPrompt fills one prompt with arguments.
func (k *Kernel) GetMCPPrompt(ctx context.Context, workdir, server, name string, args map[string]string) ([]MCPMessage, error) {
	wd := k.mcpScope(ctx, workdir)
	m, err := k.mcp.m.GetPrompt(ctx, wd, server, name, args)
	return mapSlice(m, mcpMessageOf), withKind(err, ErrInvalid)
}

func (k *Kernel) mcpScope(ctx context.Context, workdir string) string {
	if workdir == "" {
		k.loadMCP(ctx, "")
		return ""
	}
	abs, err := filepath.Abs(workdir)
	if err != nil {
		return ""
	}
	k.loadMCP(ctx, abs)
	return abs
}
