//go:build unix

package shell

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"foya/backend/approval"
	"foya/backend/sandbox"
	"foya/backend/sandbox/sandboxtest"
	"foya/backend/testwait"
	"foya/backend/tools"
)

// TestMain lets the test binary serve as the sandbox helper, as the foya
// binary does.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == sandbox.HelperArg {
		os.Exit(sandbox.HelperMain(os.Args[2:]))
	}
	if os.Getenv(rssChildEnv) != "" {
		os.Exit(rssChild())
	}
	code := m.Run()
	if err := sandboxtest.CheckDevNull(); err != nil {
		fmt.Fprintln(os.Stderr, "shell tests:", err)
		code = 1
	}
	os.Exit(code)
}

// gate answers approval requests as the engine does, with the real policy
// (approval.Decide, no grants, no rules): allowed and refused verdicts are
// final, asks get allow (or deny when deny is set) and are noted.
type gate struct {
	mode approval.Mode
	deny bool

	mu    sync.Mutex
	asked []approval.Request
	all   []approval.Request
}

func (g *gate) approve(ctx context.Context, req approval.Request) (approval.Outcome, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.all = append(g.all, req)
	d := approval.Decide(g.mode, req.Action, nil, nil)
	switch d.Verdict {
	case approval.Allow:
		return approval.Outcome{Allowed: true, Reason: d.Reason, ByMode: d.ByMode}, nil
	case approval.Refuse:
		return approval.Outcome{Message: "refused: " + d.Reason}, nil
	}
	g.asked = append(g.asked, req)
	if g.deny {
		return approval.Outcome{Message: "denied by the user: no changes made"}, nil
	}
	return approval.Outcome{Allowed: true, Reason: "allowed by your answer 'allow once'"}, nil
}

func (g *gate) kinds() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []string
	for _, r := range g.asked {
		out = append(out, string(r.Action.Kind))
	}
	return out
}

// box is a workspace and a folder outside it, and a Shell whose temp
// folders go to a third one.
type box struct {
	ws, out, tmp string
	sh           *Shell
}

func newBox(t *testing.T, o Options) *box {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	b := &box{ws: filepath.Join(root, "ws"), out: filepath.Join(root, "out"), tmp: filepath.Join(root, "tmp")}
	for _, d := range []string{b.ws, b.out, b.tmp, filepath.Join(b.ws, ".foya")} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if o.TempRoot == "" {
		o.TempRoot = b.tmp
	}
	b.sh = New(o)
	t.Cleanup(func() { b.sh.Close() })
	return b
}

// rc returns a run context for session id in mode, asking g.
func (b *box) rc(id string, g *gate) *tools.RunContext {
	return &tools.RunContext{SessionID: id, Workdir: b.ws, ApprovalMode: string(g.mode), Approval: g.approve}
}

// call runs one of the box's tools by name.
func (b *box) call(t testing.TB, ctx context.Context, rc *tools.RunContext, name string, args any) tools.Result {
	t.Helper()
	raw, ok := args.(string)
	if !ok {
		j, err := json.Marshal(args)
		if err != nil {
			t.Fatal(err)
		}
		raw = string(j)
	}
	for _, tl := range b.sh.Tools() {
		if tl.Spec().Name == name {
			res, err := tl.Run(ctx, rc, tools.Call{ID: "call_1", Name: name, Arguments: json.RawMessage(raw)})
			if err != nil {
				t.Fatalf("%s %s: %v", name, raw, err)
			}
			return res
		}
	}
	t.Fatalf("no tool %s", name)
	return tools.Result{}
}

func (b *box) bash(t *testing.T, rc *tools.RunContext, args map[string]any) tools.Result {
	t.Helper()
	return b.call(t, context.Background(), rc, BashName, args)
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

func needSandbox(t *testing.T) {
	t.Helper()
	if c := sandbox.Probe(); c.Mechanism == "" {
		testwait.Missing(t, "every sandbox mechanism ("+c.Reason+")", "the bash tool in the sandbox")
	}
}

// marker returns a sleep duration no other process uses, so that the
// test can find the processes of its command among all the host's.
func marker() string {
	return fmt.Sprintf("%d.%06d", 100000+rand.IntN(800000), rand.IntN(1000000))
}

// pidsWith returns the host PIDs of processes whose command line holds s,
// with their process groups.
func pidsWith(s string) map[int]int {
	out := map[int]int{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !strings.Contains(string(cmdline), s) {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		i := strings.LastIndexByte(string(stat), ')')
		f := strings.Fields(string(stat)[i+1:])
		if len(f) < 3 || f[0] == "Z" {
			continue
		}
		pgid, _ := strconv.Atoi(f[2])
		out[pid] = pgid
	}
	return out
}

// alive reports whether a process (not a zombie) has the PID.
func alive(pid int) bool {
	if runtime.GOOS != "linux" {
		return syscall.Kill(pid, 0) == nil
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(stat), ')')
	f := strings.Fields(string(stat)[i+1:])
	return len(f) > 0 && f[0] != "Z" && f[0] != "X"
}

// groupAlive reports whether a live process (not a zombie) is in the
// process group. Processes that lost their parent are reaped by PID 1, which
// on some machines does it late: a zombie is dead all the same.
func groupAlive(pgid int) bool {
	if runtime.GOOS != "linux" {
		return syscall.Kill(-pgid, 0) == nil
	}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		i := strings.LastIndexByte(string(stat), ')')
		f := strings.Fields(string(stat)[i+1:])
		if len(f) > 2 && f[2] == strconv.Itoa(pgid) && f[0] != "Z" && f[0] != "X" {
			return true
		}
	}
	return false
}

// waitAny waits a little for a background command to print or end: tests
// poll with it, they never assert on time.
func (s *Shell) waitAny(sessionID, id string) {
	j, _ := s.job(sessionID, id)
	if j == nil {
		return
	}
	select {
	case <-j.proc.Done():
	case <-time.After(5 * time.Millisecond):
	}
}

// grantsFunc is a Granter that gives what the function returns.
type grantsFunc func() Grants

func (f grantsFunc) Grants(context.Context, string) (Grants, error) { return f(), nil }
func (f grantsFunc) Spent(context.Context, string, []string) error  { return nil }
