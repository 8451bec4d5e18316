package tests

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"io/fs"
	"maps"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"foya/backend/approval"
	"foya/backend/event"
	"foya/backend/fspath"
	"foya/backend/sandbox"
	"foya/backend/store"
	"foya/backend/tools"
	"foya/backend/tools/files"
	"foya/backend/tools/history"
	"foya/backend/tools/shell"
	"foya/backend/tools/todo"
	"foya/backend/tools/web"
	"foya/backend/trash"
)

// argTools are every built-in tool, built as the kernel builds them but on
// a temp workspace, a temp trash and a temp database, and registered in a
// real registry (whose schema check the engine runs before a tool).
func argTools(f *testing.F) (reg *tools.Registry, names []string, ws, base string) {
	base, err := filepath.EvalSymlinks(f.TempDir())
	if err != nil {
		f.Fatal(err)
	}
	ws = filepath.Join(base, "ws")
	for p, content := range map[string]string{
		"ws/a.txt": "alpha\nbeta\n", "ws/sub/b.go": "package b\n", "ws/.git/config": "[core]\n", "out/secret": "s\n",
	} {
		p = filepath.Join(base, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			f.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			f.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(base, "out"), filepath.Join(ws, "link")); err != nil {
		f.Fatal(err)
	}
	st, err := store.Open(context.Background(), filepath.Join(base, "db", "foya.db"))
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { st.Close() })
	sh := shell.New(shell.Options{TempRoot: filepath.Join(base, "tmp"), Probe: func() sandbox.Capability { return sandbox.Capability{} }})
	reg = tools.NewRegistry()
	reg.Add(files.Tools(files.Options{Trash: trash.New(trash.Options{Home: filepath.Join(base, "home")})})...)
	reg.Add(sh.Tools()...)
	reg.Add(tools.Search{}, history.New(st), web.New(),
		todo.New(func(context.Context, string, event.Event) error { return nil }))
	names = []string{"read", "write", "edit", "delete", "ls", "glob", "grep", "bash", "bash_output", "bash_kill",
		"todo_write", "web_fetch", "tool_search", history.Name}
	for _, n := range names {
		if _, _, ok := reg.Lookup(n); !ok {
			f.Fatalf("built-in tool %q is not registered", n)
		}
	}
	return reg, names, ws, base
}

// tree is what a folder holds: each path with its kind and a hash of its
// content or link target.
func tree(t testing.TB, dir string) map[string]string {
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			out[rel] = "link " + target
		case d.IsDir():
			out[rel] = "dir"
		default:
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(b)
			out[rel] = "file " + string(sum[:])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// FuzzToolArgs runs every built-in tool on any argument bytes, the way the
// engine runs a call: the registry's schema check, then the tool itself,
// which validates its own input (spec K1). The approval gateway is played
// by a function that allows reading inside the workspace and refuses
// everything else, so no command runs, nothing is written and nothing is
// fetched; web_fetch runs only on URLs whose host is an IP literal, since
// it looks a name up before it asks. It checks:
//
//   - no panic, and no Go error: bad arguments are a result the model
//     reads (spec K4);
//   - arguments the schema refuses are refused by the tool too (K1);
//   - every approval request that says "inside the workspace" names only
//     paths inside it (the file tools' classification and fspath agree);
//   - nothing on disk changed, in the workspace or beside it.
//
// spec: K1, K4, D1
func FuzzToolArgs(f *testing.F) {
	reg, names, ws, base := argTools(f)
	seeds := map[string][]string{
		"read":        {`{"path":"a.txt"}`, `{"path":"a.txt","offset":2,"limit":1}`, `{"path":"link/secret"}`, `{"path":"a.txt","offset":-1}`, `{"path":1}`},
		"write":       {`{"path":"new.txt","content":"x"}`, `{"path":".git/config","content":""}`, `{"path":"../out/x","content":"y"}`},
		"edit":        {`{"path":"a.txt","old_string":"alpha","new_string":"gamma"}`, `{"path":"a.txt","edits":[{"old_string":"a","new_string":"b"}]}`},
		"delete":      {`{"path":"a.txt"}`, `{"path":"."}`, `{"path":"/"}`, `{"path":"sub"}`},
		"ls":          {`{}`, `{"path":"sub"}`, `{"path":"link"}`},
		"glob":        {`{"pattern":"**/*.go"}`, `{"pattern":"[","path":"sub"}`},
		"grep":        {`{"pattern":"alp"}`, `{"pattern":"(","glob":"*.txt"}`},
		"bash":        {`{"command":"ls"}`, `{"command":"rm -rf sub"}`, `{"command":"echo $(","timeout_ms":5}`, `{"command":"sleep 9","run_in_background":true}`},
		"bash_output": {`{"id":"b1"}`, `{}`},
		"bash_kill":   {`{"id":"b1"}`},
		"todo_write":  {`{"todos":[{"content":"a","status":"pending"}]}`, `{"todos":[]}`, `{"todos":null}`},
		"web_fetch":   {`{"url":"http://127.0.0.1:1/"}`, `{"url":"http://[::1]:1/x"}`, `{"url":"file:///etc/passwd"}`, `{"url":"::"}`, `{"url":"http://127.0.0.1:1/","max_bytes":0}`},
		"tool_search": {`{"query":"git"}`, `{"query":"x","limit":50}`, `{"query":"x","extra":1}`},
		history.Name:  {`{"ref":"m1"}`, `{"ref":"m1","mode":"grep","pattern":"("}`},
	}
	for i, n := range names {
		for _, s := range append(seeds[n], ``, `null`, `[]`, `{"":1}`, `{} {}`, `{"path":"\ud800"}`) {
			f.Add(uint8(i), []byte(s))
		}
	}
	watched := []string{ws, filepath.Join(base, "out")}
	before := map[string]map[string]string{}
	for _, d := range watched {
		before[d] = tree(f, d)
	}
	var mu sync.Mutex // the fuzzer may run the function from several goroutines
	f.Fuzz(func(t *testing.T, which uint8, args []byte) {
		name := names[int(which)%len(names)]
		tool, _, _ := reg.Lookup(name)
		sent := args
		if len(bytes.TrimSpace(sent)) == 0 {
			sent = []byte("{}") // as the engine hands them on
		}
		schemaErr := reg.Validate(name, sent)
		if name == web.Name && asksDNS(sent) {
			// web_fetch resolves a host name before it asks (to say
			// whether it is private): a fuzzed name would be a query to
			// the machine's resolver. Only IP literals run here.
			return
		}
		var asked []approval.Request
		rc := &tools.RunContext{SessionID: "s1", RunID: "r1", Workdir: ws, ApprovalMode: approval.Manual.String(),
			Activator: deferredTools{{Name: "git_status", Description: "Shows the git working tree status."}, {Name: "db_query", Description: "Runs a query."}},
			Approval: func(_ context.Context, req approval.Request) (approval.Outcome, error) {
				mu.Lock()
				asked = append(asked, req)
				mu.Unlock()
				if req.Action.Kind == approval.ReadInside {
					return approval.Outcome{Allowed: true}, nil
				}
				return approval.Outcome{Message: "refused by the fuzz test"}, nil
			}}
		res, err := tool.Run(context.Background(), rc, tools.Call{ID: "c1", Name: name, Arguments: sent})
		if err != nil {
			t.Fatalf("%s(%q): Go error %v; bad arguments must be a result for the model", name, args, err)
		}
		if schemaErr != nil && !res.IsError {
			t.Fatalf("%s(%q): the schema refuses it (%v) but the tool ran it: %q", name, args, schemaErr, res.Text)
		}
		mu.Lock()
		defer mu.Unlock()
		for _, req := range asked {
			switch req.Action.Kind {
			case approval.ReadInside, approval.WriteInside, approval.DeleteInside:
				for _, p := range req.Action.Paths {
					if !fspath.Within(ws, p) {
						t.Fatalf("%s(%q): asked %s for %s, outside the workspace %s", name, args, req.Action.Kind, p, ws)
					}
				}
			}
		}
		for _, d := range watched {
			if after := tree(t, d); !maps.Equal(before[d], after) {
				t.Fatalf("%s(%q) changed %s with every change refused:\nbefore %q\nafter  %q", name, args, d, before[d], after)
			}
		}
	})
}

// deferredTools plays the engine's side of tool_search: deferred tools to
// find, and an activation that changes nothing here.
type deferredTools []tools.Spec

func (d deferredTools) Candidates() []tools.Spec { return d }
func (deferredTools) Activate(...string)         {}

// asksDNS reports whether web_fetch, given args, would look a host name up:
// the URL parses as checkURL parses it and its host is not an IP literal.
func asksDNS(args []byte) bool {
	var a struct {
		URL string `json:"url"`
	}
	if json.Unmarshal(args, &a) != nil {
		return false // Decode refuses it first
	}
	u, err := url.Parse(strings.TrimSpace(a.URL))
	if err != nil || u.Hostname() == "" {
		return false
	}
	_, err = netip.ParseAddr(u.Hostname())
	return err != nil
}
