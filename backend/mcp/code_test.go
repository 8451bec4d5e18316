package mcp_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"foya/backend/mcp"
	"foya/backend/tools"
)

// TestEntryCode: what an entry runs or loads from the workspace, which an
// approval covers: its script and the folder holding it,
// a relative command and its folder, files named in its arguments (--flag=
// values too), env paths such as PYTHONPATH, and a script not there yet;
// never the workspace itself, nor what lives outside it.
// spec: M2, K5
func TestEntryCode(t *testing.T) {
	ws := t.TempDir()
	outside := t.TempDir()
	for _, f := range []string{"helper_srv.py", "srv/main.js", "srv/lib.js", "bin/tool", "conf/settings.json", "py/mod.py"} {
		os.MkdirAll(filepath.Join(ws, filepath.Dir(f)), 0o755)
		os.WriteFile(filepath.Join(ws, f), []byte(f), 0o755)
	}
	os.WriteFile(filepath.Join(outside, "x.py"), []byte("x"), 0o644)
	for _, c := range []struct {
		name string
		e    mcp.Entry
		want []string
	}{
		{"script at the top", mcp.Entry{Command: "python3", Args: []string{"helper_srv.py"}}, []string{"helper_srv.py"}},
		{"script in a folder", mcp.Entry{Command: "node", Args: []string{"srv/main.js"}}, []string{"srv", "srv/main.js"}},
		{"relative command", mcp.Entry{Command: "./bin/tool", Args: []string{"--stdio"}}, []string{"bin", "bin/tool"}},
		{"flag value", mcp.Entry{Command: "srv", Args: []string{"--config=conf/settings.json"}}, []string{"conf/settings.json"}},
		{"env path", mcp.Entry{Command: "python3", Args: []string{"-m", "mod"}, Env: map[string]string{"PYTHONPATH": "./py"}}, []string{"py"}},
		{"command on the entry's PATH", mcp.Entry{Command: "tool", Env: map[string]string{"PATH": filepath.Join(ws, "bin")}}, []string{"bin", "bin/tool"}},
		{"the workspace itself is data", mcp.Entry{Command: "npx", Args: []string{"-y", "@scope/server-filesystem", "."}}, nil},
		{"outside the workspace", mcp.Entry{Command: "python3", Args: []string{filepath.Join(outside, "x.py")}}, nil},
		{"cwd", mcp.Entry{Command: "node", Args: []string{"main.js"}, Cwd: filepath.Join(ws, "srv")}, []string{"srv", "srv/main.js"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.e.Name = "x"
			if got := c.e.Code(ws).Files(); !slices.Equal(got, c.want) && !(len(got) == 0 && len(c.want) == 0) {
				t.Errorf("Code files = %v; want %v", got, c.want)
			}
		})
	}
	// A script not there yet is covered too: making it changes the code.
	e := mcp.Entry{Name: "x", Command: "python3", Args: []string{"later.py"}}
	before := e.Code(ws)
	if before["later.py"] != mcp.Absent {
		t.Fatalf("code = %v; want later.py absent", before)
	}
	os.WriteFile(filepath.Join(ws, "later.py"), []byte("print(1)"), 0o644)
	if got := e.Code(ws).Changed(before); !slices.Equal(got, []string{"later.py"}) {
		t.Errorf("changed = %v; want later.py", got)
	}
	// A file next to a script in its folder changes the folder's digest.
	e = mcp.Entry{Name: "x", Command: "node", Args: []string{"srv/main.js"}}
	before = e.Code(ws)
	os.WriteFile(filepath.Join(ws, "srv", "lib.js"), []byte("evil"), 0o644)
	if got := e.Code(ws).Changed(before); !slices.Equal(got, []string{"srv"}) {
		t.Errorf("changed = %v; want srv", got)
	}
}

// TestVerifyBeforeEachStart: a project's server is verified before every
// start, a restart after a crash included; when Verify refuses, the server
// does not start and its failure says why (the code it runs changed
// while it ran).
// spec: M2, K5
func TestVerifyBeforeEachStart(t *testing.T) {
	ws := t.TempDir()
	var refuse atomic.Bool
	var verified atomic.Int32
	m, reg := newManager(t, mcp.Options{Verify: func(workdir string, e mcp.Entry) error {
		verified.Add(1)
		if workdir != ws || e.Name != "proj" {
			t.Errorf("Verify(%q, %q); want the project's folder and server", workdir, e.Name)
		}
		if refuse.Load() {
			return errors.New("helper_srv.py changed since you approved the MCP server proj")
		}
		return nil
	}})
	m.Set(ws, []mcp.Entry{stdioEntry(t, "proj", "ok")})
	m.Wait(context.Background(), ws)
	if s := status(m, "proj"); s.State != mcp.Ready || verified.Load() != 1 {
		t.Fatalf("status = %+v, verified %d times; want ready after one check", s, verified.Load())
	}
	refuse.Store(true)
	rc := &tools.RunContext{Workdir: ws}
	call(t, reg, rc, "mcp__proj__crash", `{}`)
	waitFor(t, "the restart refused", func() bool {
		s := status(m, "proj")
		return s.State == mcp.Failed && strings.Contains(s.Error, "helper_srv.py changed since you approved")
	})
	if _, _, ok := reg.Lookup("mcp__proj__echo"); ok {
		if r := call(t, reg, rc, "mcp__proj__echo", `{"text":"hi"}`); !r.IsError {
			t.Errorf("echo after the refused restart = %+v; want not connected", r)
		}
	}
	// The user's own servers are not the project's to verify.
	m.Set("", []mcp.Entry{stdioEntry(t, "mine", "ok")})
	m.Wait(context.Background(), "")
	if s := status(m, "mine"); s.State != mcp.Ready {
		t.Errorf("user's server = %+v; want ready, unverified", s)
	}
}
