//go:build linux

package tests

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"foya/backend/event"
	"foya/backend/kernel"
	"foya/backend/llm"
	pt "foya/backend/provider/providertest"
	"foya/backend/sandbox"
	"foya/backend/testwait"
)

func needSandbox(t *testing.T) {
	t.Helper()
	if c := sandbox.Probe(); c.Mechanism == "" {
		testwait.Missing(t, "every sandbox mechanism ("+c.Reason+")", "commands in the sandbox through the kernel")
	}
}

// sleepMarker returns a sleep duration no other process uses, so that a
// test can find its command's processes among all the host's (inside a PID
// namespace a command cannot tell its host PIDs).
func sleepMarker() string {
	return fmt.Sprintf("%d.%06d", 100000+rand.IntN(800000), rand.IntN(1000000))
}

// procStat returns a process's state and process group from /proc.
func procStat(pid string) (state string, pgid int, ok bool) {
	stat, err := os.ReadFile(filepath.Join("/proc", pid, "stat"))
	if err != nil {
		return "", 0, false
	}
	i := strings.LastIndexByte(string(stat), ')')
	f := strings.Fields(string(stat)[i+1:])
	if len(f) < 3 {
		return "", 0, false
	}
	pgid, _ = strconv.Atoi(f[2])
	return f[0], pgid, true
}

// processesWith returns the host PIDs of live processes whose command line
// holds s, with their process groups.
func processesWith(s string) map[int]int {
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
		if state, pgid, ok := procStat(e.Name()); ok && state != "Z" && state != "X" {
			out[pid] = pgid
		}
	}
	return out
}

// waitProcesses polls until at least n processes hold s in their command
// line; it fails the test after many looks.
func waitProcesses(t *testing.T, s string, n int) map[int]int {
	t.Helper()
	for range 4000 {
		if p := processesWith(s); len(p) >= n {
			return p
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("never saw %d processes with %q", n, s)
	return nil
}

// liveInGroup reports whether a live process (not a zombie) is in the
// process group. Orphans are reaped by PID 1, which on some machines does
// it late: a zombie is dead all the same.
func liveInGroup(pgid int) bool {
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		if state, g, ok := procStat(e.Name()); ok && g == pgid && state != "Z" && state != "X" {
			return true
		}
	}
	return false
}

// assertGone fails for each process that is still alive, by PID and by
// process group.
func assertGone(t *testing.T, pids map[int]int, after string) {
	t.Helper()
	for pid, pgid := range pids {
		state, _, ok := procStat(strconv.Itoa(pid))
		if ok && state != "Z" && state != "X" {
			t.Errorf("process %d outlived %s (state %s)", pid, after, state)
		}
		if liveInGroup(pgid) {
			t.Errorf("process group %d has live processes after %s", pgid, after)
		}
	}
}

// treeCommand starts two grandchildren and a child, all sleeping with the
// marker, then prints "up" and waits.
func treeCommand(m string) string {
	return fmt.Sprintf("(sleep %s & sleep %s; wait) & sleep %s & echo up; wait", m, m, m)
}

// spec: A1, A2 — the three layers hold separately for the shell: a session
// whose allowlist leaves bash out cannot call it; a visible bash that the
// user denies does not run; an approved command in Auto still cannot write
// outside the workspace or reach the network.
func TestShellThreeLayers(t *testing.T) {
	needSandbox(t)
	b := newEscBox(t, "")
	script := func(id, cmd string) pt.Call {
		args, _ := json.Marshal(map[string]any{"command": b.expand(cmd)})
		return call(id, "bash", string(args))
	}
	h := newHarness(t, nil,
		pt.Calls(script("hidden", "echo x > registry-layer")), pt.Say("ok"),
		pt.Calls(script("denied", "echo x > approval-layer")), pt.Say("ok"),
		pt.Calls(script("sandboxed", "echo x > sandbox-layer; echo x > OUT/escaped; exec 3<>/dev/tcp/127.0.0.1/TCP")), pt.Say("ok"))
	(&answerer{}).watch(h.k, func(kernel.Approval) kernel.Answer {
		return kernel.Answer{Choice: kernel.Deny, Message: "not now"}
	})
	ctx := context.Background()
	newSession := func(mode string, allow []string) string {
		s, err := h.k.CreateSession(ctx, kernel.NewSession{Workdir: b.ws, ApprovalMode: mode, Model: "m", Tools: allow})
		if err != nil {
			t.Fatal(err)
		}
		return s.ID
	}
	result := func(run kernel.Run) *kernel.ToolResult {
		calls, err := h.k.Calls(ctx, run.ID)
		if err != nil || len(calls) != 1 {
			t.Fatalf("calls %+v %v", calls, err)
		}
		return calls[0].Result
	}

	// Layer 1: the registry. The session offers read only.
	res := result(h.runIn(ctx, newSession("full_access", []string{"read"}), "go"))
	if !res.IsError || !strings.Contains(res.Text, `unknown tool "bash"`) || pathExists(filepath.Join(b.ws, "registry-layer")) {
		t.Errorf("registry layer: %q", res.Text)
	}
	// Layer 2: the approval gateway. Manual asks; the user denies.
	res = result(h.runIn(ctx, newSession("manual", nil), "go"))
	if !res.IsError || !strings.Contains(res.Text, "denied by the user: not now") || pathExists(filepath.Join(b.ws, "approval-layer")) {
		t.Errorf("approval layer: %q", res.Text)
	}
	// Layer 3: the sandbox. Auto allows the command, which runs, but
	// cannot write outside or connect.
	res = result(h.runIn(ctx, newSession("auto", nil), "go"))
	if res.IsError || !pathExists(filepath.Join(b.ws, "sandbox-layer")) {
		t.Errorf("sandbox layer: the command did not run: %q", res.Text)
	}
	if pathExists(filepath.Join(b.out, "escaped")) || b.TCPReached() {
		t.Errorf("sandbox layer: an approved command wrote outside (%v) or connected (%v)", pathExists(filepath.Join(b.out, "escaped")), b.TCPReached())
	}
	if !strings.Contains(res.Text, "sandbox seems to have blocked") {
		t.Errorf("the model is not told that the sandbox blocked it: %q", res.Text)
	}
}

// spec: X1 — cancelling a run ends the command's whole tree: none of the
// grandchildren is left, by PID and by process group.
func TestShellCancelEndsTree(t *testing.T) {
	for _, mode := range []string{"auto", "full_access"} {
		t.Run(mode, func(t *testing.T) {
			if mode == "auto" {
				needSandbox(t)
			}
			m := sleepMarker()
			args, _ := json.Marshal(map[string]any{"command": treeCommand(m)})
			h := newHarness(t, nil, pt.Calls(call("c1", "bash", string(args))))
			sess := h.session(mode)
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan kernel.Run)
			go func() { done <- h.runIn(ctx, sess.ID, "start a tree") }()
			pids := waitProcesses(t, m, 3)
			cancel()
			run := testwait.Receive(t, done, "the cancelled run to end")
			if run.Status != kernel.RunCancelled {
				t.Fatalf("run %s", run.Status)
			}
			calls, _ := h.k.Calls(context.Background(), run.ID)
			if len(calls) != 1 || calls[0].State != kernel.CallCancelled {
				t.Errorf("calls %+v; want one cancelled", calls)
			}
			assertGone(t, pids, "the cancel")
		})
	}
}

// spec: B1, B2, O4 — a background command lives across turns; while it
// prints forever, bash_output results stay capped and say how much was
// left out, and the kernel's memory stays flat; bash_kill ends it.
func TestShellBackgroundBoundedAcrossTurns(t *testing.T) {
	needSandbox(t)
	h := newHarness(t, nil,
		pt.Calls(call("c1", "bash", `{"command":"yes foya-prints-forever","run_in_background":true}`)), pt.Say("started"),
		pt.Calls(call("c2", "bash_output", `{"id":"bg1"}`)), pt.Say("read"),
		pt.Calls(call("c3", "bash_kill", `{"id":"bg1"}`)), pt.Say("killed"))
	sess := h.session("auto")
	ctx := context.Background()
	if run := h.runIn(ctx, sess.ID, "start it"); run.Status != kernel.RunCompleted {
		t.Fatalf("run 1: %s %s", run.Status, run.Error)
	}
	// The turn is over; the command runs on.
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	testwait.Until(t, "the background command to print 256 MiB", func() bool {
		list := h.k.BackgroundCommands(sess.ID)
		if len(list) != 1 || !list[0].Running {
			t.Fatalf("background commands after the turn: %+v", list)
		}
		return list[0].OutputBytes > 256<<20
	})
	h.runIn(ctx, sess.ID, "read it")
	reqs := h.srv.Requests()
	read := toolMessages(reqs[len(reqs)-1])
	text := read[len(read)-1].Content
	if len(text) > 40<<10 || !strings.Contains(text, "overwritten in the bounded buffer") || !strings.Contains(text, "Status: running") {
		t.Errorf("bash_output: %d bytes: %.300q", len(text), text)
	}
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	if grew := int64(after.HeapInuse) - int64(before.HeapInuse); grew > 32<<20 {
		t.Errorf("heap in use grew by %d MiB while the command printed 256 MiB", grew>>20)
	}
	h.runIn(ctx, sess.ID, "kill it")
	list := h.k.BackgroundCommands(sess.ID)
	if len(list) != 1 || list[0].Running || !list[0].Killed {
		t.Errorf("after bash_kill: %+v", list)
	}
}

// spec: B3 — deleting a session ends its background commands (no process
// is left, by PID and process group, even daemons that left the command's
// session), removes its temp folder and its history; a
// session with a run going is not deleted.
func TestShellDeleteSessionLeavesNoProcess(t *testing.T) {
	for _, mode := range []string{"auto", "full_access"} {
		t.Run(mode, func(t *testing.T) {
			if mode == "auto" {
				needSandbox(t)
			}
			m := sleepMarker()
			script, n := escapingCommand(m)
			args, _ := json.Marshal(map[string]any{"command": script, "run_in_background": true})
			hold := make(chan struct{})
			h := newHarness(t, nil,
				pt.Calls(call("c1", "bash", string(args)), call("c2", "bash", `{"command":"touch \"$TMPDIR/scratch\""}`)),
				pt.Say("started"),
				pt.Turn{Text: "thinking", Hold: hold})
			sess := h.session(mode)
			ctx := context.Background()
			h.runIn(ctx, sess.ID, "start it")
			pids := waitProcesses(t, m, n)
			killPIDs(t, pids)

			// A run going: refused, nothing ends.
			done := make(chan error)
			started := make(chan struct{})
			go func() {
				_, err := h.k.Run(ctx, kernel.RunOptions{SessionID: sess.ID, Prompt: "think", Model: h.model(),
					Started: func(string) { close(started) }})
				done <- err
			}()
			testwait.Receive(t, started, "the run to start")
			if err := h.k.DeleteSession(ctx, sess.ID); err == nil || !strings.Contains(err.Error(), "run going") {
				t.Errorf("delete during a run: %v; want a refusal", err)
			}
			h.k.Cancel(sess.ID)
			close(hold)
			if err := testwait.Receive(t, done, "the run to end"); err != nil {
				t.Fatal(err)
			}
			if len(processesWith(m)) < n {
				t.Fatal("a refused delete ended the commands")
			}

			tmp := filepath.Join(os.TempDir(), "foya-"+sess.ID)
			if mode == "auto" && !pathExists(filepath.Join(tmp, "scratch")) {
				t.Errorf("the session temp folder %s was not used", tmp)
			}
			if err := h.k.DeleteSession(ctx, sess.ID); err != nil {
				t.Fatal(err)
			}
			assertGone(t, pids, "DeleteSession")
			awaitPIDsGone(t, pids, "DeleteSession")
			if pathExists(tmp) {
				t.Errorf("the temp folder %s outlived its session", tmp)
			}
			if _, err := h.k.Session(ctx, sess.ID); !kernel.IsNotFound(err) {
				t.Errorf("session after delete: %v", err)
			}
			if l := h.k.BackgroundCommands(sess.ID); len(l) != 0 {
				t.Errorf("background commands after delete: %+v", l)
			}
			if err := h.k.DeleteSession(ctx, sess.ID); !kernel.IsNotFound(err) {
				t.Errorf("second delete: %v; want not found", err)
			}
		})
	}
}

// spec: B3 — closing the kernel (the app exits) ends every background
// command of every session: no orphans.
//
// The commands start daemons that left their session
// (setsid, nohup, double forks); none of them may outlive Close either.
func TestShellCloseLeavesNoProcess(t *testing.T) {
	m := sleepMarker()
	script, n := escapingCommand(m)
	args, _ := json.Marshal(map[string]any{"command": script, "run_in_background": true})
	h := newHarness(t, nil, pt.Calls(call("c1", "bash", string(args))), pt.Say("a"), pt.Calls(call("c2", "bash", string(args))), pt.Say("b"))
	ctx := context.Background()
	h.runIn(ctx, h.session("full_access").ID, "one")
	h.runIn(ctx, h.session("full_access").ID, "two")
	pids := waitProcesses(t, m, 2*n)
	killPIDs(t, pids)
	if err := h.k.Close(); err != nil {
		t.Fatal(err)
	}
	assertGone(t, pids, "Close")
	awaitPIDsGone(t, pids, "Close")
}

// spec: A1, A2, B1, D2 — foya exec --approval auto with a scripted model:
// the real binary runs commands in the sandbox (a write in the workspace
// works; one outside, a connection and rm do not), starts a background
// command, and leaves no process behind when it exits. This is the run
// docs/walkthrough-shell.md shows.
func TestExecShellWalkthrough(t *testing.T) {
	needSandbox(t)
	bin := foyaBinary(t)
	b := newEscBox(t, "")
	m := sleepMarker()
	bash := func(id string, args map[string]any) pt.Call {
		args["command"] = b.expand(args["command"].(string))
		raw, _ := json.Marshal(args)
		return call(id, "bash", string(raw))
	}
	srv := pt.New(t,
		pt.Turn{Text: "Let me look around.", Calls: []pt.Call{
			bash("c1", map[string]any{"command": `echo "hello from the sandbox" > hello.txt && cat hello.txt && echo "TMPDIR is $TMPDIR"`}),
			bash("c2", map[string]any{"command": `echo escape > OUT/escaped.txt`}),
			bash("c3", map[string]any{"command": `exec 3<>/dev/tcp/127.0.0.1/TCP && echo connected`}),
			bash("c4", map[string]any{"command": `rm hello.txt`}),
			bash("c5", map[string]any{"command": `for i in 1 2 3; do echo tick $i; done; sleep ` + m, "run_in_background": true}),
		}},
		pt.Turn{Calls: []pt.Call{bash("c6", map[string]any{"command": "sleep 0.5; ls"}), call("c7", "bash_output", `{"id":"bg1"}`)}},
		pt.Say("Done: the workspace is writable, the rest is not."))
	db := filepath.Join(t.TempDir(), "foya.db")
	cmd := exec.Command(bin, "exec", "--base-url", srv.URL, "--api-key", "x", "--model", "m", "--db", db,
		"--workdir", b.ws, "--approval", "auto", "--json", "show me the sandbox")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("foya exec: %v\n%s", err, out)
	}
	results := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var ev llm.Event
		if json.Unmarshal(sc.Bytes(), &ev) != nil || ev.Type != event.TypeToolEnd {
			continue
		}
		results[field(ev, "id").(string)] = fmt.Sprint(field(ev, "text"))
	}
	checks := []struct {
		id, want string
		ok       bool
	}{
		{"c1", "hello from the sandbox\nTMPDIR is " + os.TempDir(), escRead(filepath.Join(b.ws, "hello.txt")) == "hello from the sandbox\n"},
		{"c2", "Read-only file system", !pathExists(filepath.Join(b.out, "escaped.txt"))},
		{"c3", "sandbox seems to have blocked", !b.TCPReached()},
		{"c4", "use the delete tool", pathExists(filepath.Join(b.ws, "hello.txt"))},
		{"c5", "id bg1", true},
		{"c6", "hello.txt\n", true},
		{"c7", "Status: running", true},
	}
	for _, c := range checks {
		if !strings.Contains(results[c.id], c.want) || !c.ok {
			t.Errorf("%s: %q (effect as expected: %v); want %q", c.id, results[c.id], c.ok, c.want)
		}
	}
	// The binary has exited: its background command is gone with it.
	if p := processesWith(m); len(p) != 0 {
		t.Errorf("processes outlived foya exec: %v", p)
	}
}
