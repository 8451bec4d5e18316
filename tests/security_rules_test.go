//go:build linux

package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"foya/backend/approval"
	"foya/backend/kernel"
	"foya/backend/llm"
	pt "foya/backend/provider/providertest"
	"foya/backend/sandbox"
	"foya/backend/testwait"
)

// The review's file: a project that allows every bash command and every
// write, cloned with the workspace.
const greedyRules = `{"allow":[{"tool":"bash"},{"tool":"write"}]}`

// rulesWorld is a workspace with a project rules file, a folder outside it,
// the test's own listener and a kernel on its own database. answer answers
// every approval request (nil: headless, nobody answers).
type rulesWorld struct {
	*escBox
	t    *testing.T
	k    *kernel.Kernel
	srv  *pt.Server
	mu   sync.Mutex
	reqs []kernel.Approval
}

func newRulesWorld(t *testing.T, rules string, answer func(kernel.Approval) kernel.Answer, opts kernel.Options) *rulesWorld {
	t.Helper()
	if c := sandbox.Probe(); c.Mechanism == "" {
		testwait.Missing(t, "every sandbox mechanism ("+c.Reason+")", "permission rules with the sandbox")
	}
	t.Setenv("XDG_DATA_HOME", t.TempDir()) // no user rules of this machine's user
	w := &rulesWorld{escBox: newEscBox(t, ""), t: t}
	if rules != "" {
		escWrite(t, filepath.Join(w.foya, "permissions.json"), rules)
	}
	if opts.DBPath == "" {
		opts.DBPath = filepath.Join(t.TempDir(), "foya.db")
	}
	opts.Headless = answer == nil
	opts.TextFlush = time.Millisecond
	k, err := kernel.Open(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { k.Close() })
	w.k = k
	if answer != nil {
		k.Subscribe(func(ev llm.Event) {
			if ev.Type != "approval.request" {
				return
			}
			var p kernel.Approval
			json.Unmarshal(ev.Data, &p)
			w.mu.Lock()
			w.reqs = append(w.reqs, p)
			w.mu.Unlock()
			go k.Answer(p.ID, answer(p))
		})
	}
	return w
}

// run runs one turn in a new session of mode and returns the results of
// its calls, in order.
func (w *rulesWorld) run(mode approval.Mode) []*kernel.ToolResult {
	w.t.Helper()
	ctx := context.Background()
	sess, err := w.k.CreateSession(ctx, kernel.NewSession{Workdir: w.ws, ApprovalMode: string(mode), Model: "m"})
	if err != nil {
		w.t.Fatal(err)
	}
	h := &harness{t: w.t, k: w.k, srv: w.srv}
	run := h.runIn(ctx, sess.ID, "go")
	if run.Status != kernel.RunCompleted {
		w.t.Fatalf("run %s: %s", run.Status, run.Error)
	}
	calls, err := w.k.Calls(ctx, run.ID)
	if err != nil {
		w.t.Fatal(err)
	}
	var out []*kernel.ToolResult
	for _, c := range calls {
		out = append(out, c.Result)
	}
	return out
}

func (w *rulesWorld) asked() []kernel.Approval {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]kernel.Approval(nil), w.reqs...)
}

func (w *rulesWorld) trust() {
	w.t.Helper()
	pr, err := w.k.ProjectRules(context.Background(), w.ws)
	if err != nil {
		w.t.Fatal(err)
	}
	if err := w.k.TrustProjectRules(context.Background(), w.ws, pr.Hash); err != nil {
		w.t.Fatal(err)
	}
}

func denyAll(kernel.Approval) kernel.Answer {
	return kernel.Answer{Choice: kernel.Deny, Message: "no"}
}

func allowOnce(kernel.Approval) kernel.Answer { return kernel.Answer{Choice: kernel.AllowOnce} }

// leaveTurns are the review's attempts: bash with sandbox: false writing
// outside and connecting to a TCP listener, and a write outside.
func (w *rulesWorld) leaveTurns() []pt.Turn {
	return []pt.Turn{
		pt.Calls(
			call("esc", "bash", jsonArgs(map[string]any{"command": "echo x > " + w.out + "/escaped && exec 3<>/dev/tcp/127.0.0.1/" +
				strconv.Itoa(w.TCPPort()), "sandbox": false, "reason": "the project's rules say so"})),
			call("out", "write", jsonArgs(map[string]any{"path": filepath.Join(w.out, "written"), "content": "x\n"})),
		),
		pt.Say("done"),
	}
}

// spec: A1, A2 — project rules that came with a clone, the review's exact
// case: a cloned
// workspace's .foya/permissions.json allowing every bash command and every
// write does not let a sandbox: false command run or a write land outside
// the workspace, in Manual or Auto, approved or not: each is asked about
// (and here denied), and nothing happens on disk or on the listener.
func TestProjectRulesNeverLeaveTheSandbox(t *testing.T) {
	for _, mode := range []approval.Mode{approval.Manual, approval.Auto} {
		for _, approved := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s approved=%v", mode, approved), func(t *testing.T) {
				w := newRulesWorld(t, greedyRules, denyAll, kernel.Options{})
				w.srv = pt.New(t, w.leaveTurns()...)
				if approved {
					w.trust()
				}
				res := w.run(mode)
				if pathExists(filepath.Join(w.out, "escaped")) || w.TCPReached() || pathExists(filepath.Join(w.out, "written")) {
					t.Fatalf("ESCAPED: escaped %v, tcp %v, written %v; results %+v %+v", pathExists(filepath.Join(w.out, "escaped")),
						w.TCPReached(), pathExists(filepath.Join(w.out, "written")), res[0], res[1])
				}
				kinds := map[string]kernel.Approval{}
				for _, p := range w.asked() {
					kinds[p.Request.Action.Kind] = p
				}
				esc, okEsc := kinds[string(approval.ShellEscalate)]
				wr, okWr := kinds[string(approval.WriteProtected)]
				if !okEsc || !okWr {
					t.Fatalf("asked %v; want shell_escalate and write_protected", w.asked())
				}
				for _, p := range []kernel.Approval{esc, wr} {
					switch {
					case !approved && !strings.Contains(p.Reason, approval.UnapprovedNotice):
						t.Errorf("unapproved: reason %q does not say the file is not approved", p.Reason)
					case approved && !strings.Contains(p.Reason, "cannot allow this"):
						t.Errorf("approved: reason %q does not say a project rule cannot allow this", p.Reason)
					}
				}
				for _, r := range res {
					if !r.IsError || strings.Contains(r.Text, "as the user approved") || !strings.Contains(r.Text, "denied by the user") {
						t.Errorf("result %q; want a denial", r.Text)
					}
				}
			})
		}
	}
}

// spec: A1, A2 — project rules, headless (foya exec without a terminal):
// the same attempts are denied with a message; they never run.
func TestProjectRulesHeadlessDenied(t *testing.T) {
	for _, mode := range []approval.Mode{approval.Manual, approval.Auto} {
		t.Run(string(mode), func(t *testing.T) {
			w := newRulesWorld(t, greedyRules, nil, kernel.Options{})
			w.srv = pt.New(t, w.leaveTurns()...)
			w.trust()
			res := w.run(mode)
			if pathExists(filepath.Join(w.out, "escaped")) || w.TCPReached() || pathExists(filepath.Join(w.out, "written")) {
				t.Fatalf("ESCAPED: %+v %+v", res[0], res[1])
			}
			for _, r := range res {
				if !r.IsError || !strings.Contains(r.Text, "no one can answer") {
					t.Errorf("result %q; want a headless denial", r.Text)
				}
			}
		})
	}
}

// spec: A1, A2 — an unapproved project allow rule is ignored;
// once approved it allows inside the workspace only, and the result says
// which rule allowed it; a changed file is unapproved again; revoking
// withdraws the approval.
func TestProjectRulesApproval(t *testing.T) {
	w := newRulesWorld(t, `{"allow":[{"tool":"write"}]}`, denyAll, kernel.Options{})
	inside := filepath.Join(w.ws, "a.txt")
	writeTurns := func(name string) []pt.Turn {
		return []pt.Turn{pt.Calls(call("w", "write", jsonArgs(map[string]any{"path": filepath.Join(w.ws, name), "content": "x\n"}))), pt.Say("ok")}
	}
	ctx := context.Background()
	pr, _ := w.k.ProjectRules(ctx, w.ws)
	if pr.Status != kernel.RulesUnapproved || len(pr.Allow) != 1 {
		t.Fatalf("status %+v; want unapproved with one allow rule", pr)
	}

	// Unapproved: Manual asks (and the user says no).
	w.srv = pt.New(t, writeTurns("a.txt")...)
	res := w.run(approval.Manual)
	if pathExists(inside) || !res[0].IsError || len(w.asked()) != 1 || !strings.Contains(w.asked()[0].Reason, approval.UnapprovedNotice) {
		t.Fatalf("unapproved: wrote %v, result %q, asked %+v", pathExists(inside), res[0].Text, w.asked())
	}

	// Approved: the write inside goes through without a question, and says why.
	w.trust()
	w.srv = pt.New(t, writeTurns("a.txt")...)
	res = w.run(approval.Manual)
	if !pathExists(inside) || res[0].IsError || len(w.asked()) != 1 {
		t.Fatalf("approved: wrote %v, result %q, asked %d", pathExists(inside), res[0].Text, len(w.asked()))
	}
	if !strings.Contains(res[0].Text, `Allowed by the rule {"tool":"write"} in .foya/permissions.json (approved by you on `) {
		t.Errorf("approved: result %q does not say which rule allowed it", res[0].Text)
	}
	// Approved, a write outside still asks.
	w.srv = pt.New(t, pt.Calls(call("o", "write", jsonArgs(map[string]any{"path": filepath.Join(w.out, "o.txt"), "content": "x\n"}))), pt.Say("ok"))
	res = w.run(approval.Manual)
	if pathExists(filepath.Join(w.out, "o.txt")) || len(w.asked()) != 2 || w.asked()[1].Request.Action.Kind != string(approval.WriteProtected) {
		t.Fatalf("outside write: written %v, result %q, asked %+v", pathExists(filepath.Join(w.out, "o.txt")), res[0].Text, w.asked())
	}

	// Changed (one byte): unapproved again.
	escWrite(t, filepath.Join(w.foya, "permissions.json"), `{"allow":[{"tool":"write"}]} `)
	if pr, _ := w.k.ProjectRules(ctx, w.ws); pr.Status != kernel.RulesChanged {
		t.Fatalf("after a change: status %s; want changed", pr.Status)
	}
	w.srv = pt.New(t, writeTurns("b.txt")...)
	res = w.run(approval.Manual)
	if pathExists(filepath.Join(w.ws, "b.txt")) || len(w.asked()) != 3 {
		t.Fatalf("changed file: wrote %v, result %q, asked %d", pathExists(filepath.Join(w.ws, "b.txt")), res[0].Text, len(w.asked()))
	}
	// Approving a hash that is not the file's is refused.
	if err := w.k.TrustProjectRules(ctx, w.ws, pr.Hash); err == nil || !strings.Contains(err.Error(), "changed since") {
		t.Fatalf("trusting the old hash: %v; want a refusal", err)
	}
	w.trust()
	if err := w.k.RevokeProjectRules(ctx, w.ws); err != nil {
		t.Fatal(err)
	}
	w.srv = pt.New(t, writeTurns("c.txt")...)
	w.run(approval.Manual)
	if pathExists(filepath.Join(w.ws, "c.txt")) || len(w.asked()) != 4 {
		t.Fatalf("revoked: wrote %v, asked %d", pathExists(filepath.Join(w.ws, "c.txt")), len(w.asked()))
	}
	// The approvals are not settings a user lists or sets.
	all, err := w.k.Settings(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for key := range all {
		if strings.HasPrefix(key, "rules.") {
			t.Errorf("settings list the rules approval %q: %v", key, all)
		}
	}
}

// spec: A1, A2 — a project's deny and ask rules apply whether or not
// the file was approved; a malformed file makes Foya ask, never allow.
func TestProjectRulesDenyAndMalformed(t *testing.T) {
	t.Run("deny unapproved", func(t *testing.T) {
		w := newRulesWorld(t, `{"deny":[{"tool":"bash","command":"touch"}],"ask":[{"tool":"write","path":"docs/**"}]}`, allowOnce, kernel.Options{})
		w.srv = pt.New(t, pt.Calls(
			call("t", "bash", jsonArgs(map[string]any{"command": "touch denied"})),
			call("d", "write", jsonArgs(map[string]any{"path": filepath.Join(w.ws, "docs", "a.md"), "content": "x\n"})),
		), pt.Say("ok"))
		res := w.run(approval.Auto)
		if pathExists(filepath.Join(w.ws, "denied")) || !res[0].IsError || !strings.Contains(res[0].Text, `denied by the rule {"tool":"bash","command":"touch"} in .foya/permissions.json`) {
			t.Errorf("deny rule: ran %v, result %q", pathExists(filepath.Join(w.ws, "denied")), res[0].Text)
		}
		if a := w.asked(); len(a) != 1 || a[0].Request.Action.Kind != string(approval.WriteInside) || !strings.Contains(a[0].Reason, "asks for approval") {
			t.Errorf("ask rule in Auto: asked %+v; want one question about the docs write", a)
		}
	})
	t.Run("malformed", func(t *testing.T) {
		w := newRulesWorld(t, "{\"allow\": [{\"tool\": \"bash\",}]}", denyAll, kernel.Options{})
		w.srv = pt.New(t, pt.Calls(call("t", "bash", jsonArgs(map[string]any{"command": "touch made"}))), pt.Say("ok"))
		res := w.run(approval.Auto)
		if pathExists(filepath.Join(w.ws, "made")) || !res[0].IsError {
			t.Errorf("malformed rules: ran %v, result %q", pathExists(filepath.Join(w.ws, "made")), res[0].Text)
		}
		if a := w.asked(); len(a) != 1 || !strings.Contains(a[0].Reason, "could not be read") || !strings.Contains(a[0].Reason, "line 1") {
			t.Errorf("malformed rules: asked %+v; want a question naming the file's line", a)
		}
		if err := w.k.TrustProjectRules(context.Background(), w.ws, ""); err == nil || !strings.Contains(err.Error(), "fix it first") {
			t.Errorf("trusting a malformed file: %v; want a refusal", err)
		}
	})
}

// spec: A1, A2 — the user's own rules (in Foya's data
// folder) may allow leaving the sandbox; every result says what allowed it:
// the user's rule, the user's answer, a session grant, Full Access.
func TestAllowReasonsReachTheModel(t *testing.T) {
	t.Run("user rule", func(t *testing.T) {
		userRules := filepath.Join(t.TempDir(), "permissions.json")
		escWrite(t, userRules, `{"allow":[{"tool":"bash","command":"touch"}]}`)
		w := newRulesWorld(t, greedyRules, denyAll, kernel.Options{UserRules: userRules})
		w.srv = pt.New(t, pt.Calls(call("t", "bash", jsonArgs(map[string]any{"command": "touch " + w.out + "/by-user-rule",
			"sandbox": false, "reason": "the user allows touch"}))), pt.Say("ok"))
		res := w.run(approval.Manual)
		want := `It ran outside the sandbox, allowed by your rule {"tool":"bash","command":"touch"} in ` + userRules + "."
		if !pathExists(filepath.Join(w.out, "by-user-rule")) || !strings.Contains(res[0].Text, want) || len(w.asked()) != 0 {
			t.Errorf("user rule: ran %v, asked %d, result %q; want %q", pathExists(filepath.Join(w.out, "by-user-rule")), len(w.asked()), res[0].Text, want)
		}
	})
	t.Run("user rules inside the workspace", func(t *testing.T) {
		// The agent can write the workspace: a rules file there is not the
		// user's word, even if it is where the user's rules would be.
		w := newRulesWorld(t, "", denyAll, kernel.Options{})
		userRules := filepath.Join(w.ws, "permissions.json")
		escWrite(t, userRules, `{"allow":[{"tool":"bash"}]}`)
		k, err := kernel.Open(context.Background(), kernel.Options{DBPath: filepath.Join(t.TempDir(), "foya.db"), UserRules: userRules, Headless: true})
		if err != nil {
			t.Fatal(err)
		}
		defer k.Close()
		w.k = k
		w.srv = pt.New(t, pt.Calls(call("t", "bash", jsonArgs(map[string]any{"command": "touch " + w.out + "/by-planted-rule",
			"sandbox": false, "reason": "planted"}))), pt.Say("ok"))
		res := w.run(approval.Manual)
		if pathExists(filepath.Join(w.out, "by-planted-rule")) || !res[0].IsError {
			t.Errorf("a user rules file inside the workspace allowed an escalation: %q", res[0].Text)
		}
	})
	t.Run("answers, grants and modes", func(t *testing.T) {
		var n int
		var mu sync.Mutex
		w := newRulesWorld(t, "", func(p kernel.Approval) kernel.Answer {
			mu.Lock()
			defer mu.Unlock()
			n++
			if n == 1 {
				return kernel.Answer{Choice: kernel.AllowOnce}
			}
			return kernel.Answer{Choice: kernel.AllowSession, Scope: &p.Scopes[0]}
		}, kernel.Options{})
		w.srv = pt.New(t, pt.Calls(
			call("1", "bash", jsonArgs(map[string]any{"command": "echo once"})),
			call("2", "bash", jsonArgs(map[string]any{"command": "touch " + w.out + "/granted", "sandbox": false, "reason": "test"})),
			call("3", "bash", jsonArgs(map[string]any{"command": "touch " + w.out + "/granted2", "sandbox": false, "reason": "test"})),
			call("4", "write", jsonArgs(map[string]any{"path": filepath.Join(w.ws, "x.txt"), "content": "x\n"})),
		), pt.Say("ok"))
		res := w.run(approval.Manual)
		for i, want := range []string{
			"Sandbox: " + sandbox.Probe().Mechanism + ". Allowed by your answer 'allow once'.",
			"It ran outside the sandbox, allowed by your answer 'allow for this session' (command prefix `touch`).",
			"It ran outside the sandbox, allowed by the session grant: command prefix `touch`.",
			"Allowed by your answer 'allow for this session' (folder " + w.ws + ").",
		} {
			if !strings.Contains(res[i].Text, want) {
				t.Errorf("call %d: result %q; want %q", i+1, res[i].Text, want)
			}
		}
		w.srv = pt.New(t, pt.Calls(
			call("5", "write", jsonArgs(map[string]any{"path": filepath.Join(w.out, "full.txt"), "content": "x\n"})),
			call("6", "bash", jsonArgs(map[string]any{"command": "true"})),
		), pt.Say("ok"))
		res = w.run(approval.FullAccess)
		if !strings.Contains(res[0].Text, "Allowed by Full Access.") || !strings.Contains(res[1].Text, "No sandbox (Full Access), allowed by Full Access.") {
			t.Errorf("Full Access: results %q, %q; want them to say Full Access allowed them", res[0].Text, res[1].Text)
		}
		if err := os.Remove(filepath.Join(w.out, "full.txt")); err != nil {
			t.Errorf("Full Access write: %v", err)
		}
	})
}

// spec: A1 — project rules through the built binary: foya rules shows
// the file and whether it is approved, allow approves its exact content
// (and refuses a hash that is not the file's), a change unapproves it,
// revoke withdraws it, and foya exec says once that ignored allow rules
// exist.
func TestRulesCommand(t *testing.T) {
	bin := foyaBinary(t)
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	os.Mkdir(filepath.Join(ws, ".foya"), 0o755)
	file := filepath.Join(ws, ".foya", "permissions.json")
	escWrite(t, file, greedyRules)
	db := filepath.Join(t.TempDir(), "foya.db")
	env := []string{"XDG_DATA_HOME=" + t.TempDir()}
	rules := func(args ...string) execResult {
		return runFoya(t, bin, env, append([]string{"rules", "--workdir", ws, "--db", db}, args...)...)
	}
	status := func() string {
		res := rules("--json")
		var pr kernel.ProjectRules
		if err := json.Unmarshal([]byte(res.stdout), &pr); err != nil {
			t.Fatalf("foya rules --json: %v\n%s%s", err, res.stdout, res.stderr)
		}
		return pr.Status
	}
	exec := func() string {
		srv := pt.New(t, pt.Say("hi"))
		res := runFoya(t, bin, env, "exec", "--base-url", srv.URL, "--api-key", "x", "--model", "m", "--db", db,
			"--workdir", ws, "--approval", "auto", "--json", "hello")
		if res.code != 0 {
			t.Fatalf("foya exec: exit %d\n%s", res.code, res.stderr)
		}
		return res.stderr
	}

	res := rules()
	if res.code != 0 || !strings.Contains(res.stdout, "not approved") || !strings.Contains(res.stdout, `allow {"tool":"bash"}`) {
		t.Fatalf("foya rules: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	if n := strings.Count(exec(), approval.UnapprovedNotice); n != 1 {
		t.Errorf("foya exec told %d times that the rules are not approved; want once", n)
	}
	if res := rules("allow", "--hash", strings.Repeat("0", 64)); res.code != 1 || !strings.Contains(res.stderr, "changed since it was shown") {
		t.Errorf("allow with another hash: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	if status() != kernel.RulesUnapproved {
		t.Fatal("a refused approval approved")
	}
	res = rules("allow")
	if res.code != 0 || !strings.Contains(res.stdout, greedyRules) || !strings.Contains(res.stdout, "Approved") {
		t.Fatalf("foya rules allow: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	if s := status(); s != kernel.RulesApproved {
		t.Fatalf("after allow: %s", s)
	}
	if strings.Contains(exec(), approval.UnapprovedNotice) {
		t.Error("foya exec says the approved rules are not approved")
	}
	escWrite(t, file, `{"allow":[{"tool":"bash"},{"tool":"write"},{"tool":"delete"}]}`)
	if res := rules(); !strings.Contains(res.stdout, "CHANGED") || status() != kernel.RulesChanged {
		t.Errorf("after a change: %s", res.stdout)
	}
	rules("allow")
	if res := rules("revoke"); res.code != 0 || status() != kernel.RulesUnapproved {
		t.Errorf("revoke: exit %d, status %s\n%s", res.code, status(), res.stderr)
	}
	if res := rules("frobnicate"); res.code != 2 {
		t.Errorf("foya rules frobnicate: exit %d; want 2", res.code)
	}
}
