//go:build unix

package shell

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"foya/backend/approval"
	"foya/backend/event"
	"foya/backend/sandbox"
	"foya/backend/testwait"
	"foya/backend/tools"
)

// spec: A1, A2 — bash asks per the session's mode and, outside Full Access,
// an allowed command still runs in the sandbox: it writes the workspace and
// its temp folder, not outside, not .foya, and reaches no network.
func TestBashPerMode(t *testing.T) {
	needSandbox(t)
	tests := []struct {
		mode       approval.Mode
		asked      []string
		sandboxed  bool
		resultNote string
	}{
		{approval.Manual, []string{"shell"}, true, "Sandbox: " + sandbox.Probe().Mechanism},
		{approval.Auto, nil, true, "Sandbox: " + sandbox.Probe().Mechanism},
		{approval.FullAccess, nil, false, "No sandbox (Full Access)"},
	}
	for _, tt := range tests {
		t.Run(string(tt.mode), func(t *testing.T) {
			b := newBox(t, Options{})
			g := &gate{mode: tt.mode}
			outside := filepath.Join(b.out, "outside")
			res := b.bash(t, b.rc("ses_1", g), map[string]any{"command": fmt.Sprintf(
				`echo in > inside; echo tmp > "$TMPDIR/t" && cat "$TMPDIR/t"; echo out > %q; echo f > .foya/f; echo done`, outside)})
			if res.IsError {
				t.Fatalf("is_error: %s", res.Text)
			}
			if got := g.kinds(); !slices.Equal(got, tt.asked) {
				t.Errorf("asked %v; want %v", got, tt.asked)
			}
			if !strings.Contains(res.Text, tt.resultNote) || !strings.Contains(res.Text, "Exit code 0") || !strings.Contains(res.Text, "done") {
				t.Errorf("result:\n%s\nwant %q, exit code 0 and the output", res.Text, tt.resultNote)
			}
			if !exists(filepath.Join(b.ws, "inside")) {
				t.Error("the command did not write its workspace")
			}
			if got := exists(outside); got == tt.sandboxed {
				t.Errorf("wrote outside the workspace: %v; want %v", got, !tt.sandboxed)
			}
			if got := exists(filepath.Join(b.ws, ".foya", "f")); got == tt.sandboxed {
				t.Errorf("wrote into .foya: %v; want %v", got, !tt.sandboxed)
			}
			if tt.sandboxed {
				if !strings.Contains(res.Text, "tmp\n") {
					t.Errorf("the session temp folder was not writable:\n%s", res.Text)
				}
				if !strings.Contains(res.Text, "sandbox seems to have blocked") {
					t.Errorf("no hint that the sandbox blocked a write:\n%s", res.Text)
				}
			}
		})
	}
}

// spec: D2, D3 — permanent deletes, however they are spelled, are refused
// in Manual and Auto with an is_error that points to the delete tool, and
// run in Full Access.
func TestBashPermanentDelete(t *testing.T) {
	commands := []string{
		"rm -f victim", "cd . && rm victim", "true; /bin/rm victim", "echo victim | xargs rm", "(rm victim)",
		"echo $(rm victim)", "sh -c 'rm victim'", "env rm victim", "command rm victim", "unlink victim",
		"shred -u victim", "find . -name victim -delete", `find . -name victim -exec rm {} \;`,
	}
	for _, mode := range approval.Modes {
		for _, c := range commands {
			t.Run(string(mode)+"/"+c, func(t *testing.T) {
				b := newBox(t, Options{})
				victim := filepath.Join(b.ws, "victim")
				if err := os.WriteFile(victim, []byte("keep me\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				g := &gate{mode: mode}
				res := b.bash(t, b.rc("ses_1", g), map[string]any{"command": c})
				if mode == approval.FullAccess {
					if res.IsError || exists(victim) {
						t.Fatalf("Full Access: is_error %v, victim still there %v:\n%s", res.IsError, exists(victim), res.Text)
					}
					return
				}
				if !res.IsError || !strings.Contains(res.Text, "use the delete tool") || !strings.Contains(res.Text, "did not run") {
					t.Errorf("result %q; want an is_error naming the delete tool", res.Text)
				}
				if !exists(victim) {
					t.Error("the file was deleted")
				}
				if len(g.all) != 1 || g.all[0].Action.Kind != approval.ShellPermanentDelete {
					t.Errorf("requests %+v; want one shell_permanent_delete", g.all)
				}
			})
		}
	}
}

// spec: A1, A2 — sandbox: false needs a reason and asks in Manual and
// Auto; allowed, the command runs outside the sandbox; denied, it does
// not run.
func TestBashEscalation(t *testing.T) {
	needSandbox(t)
	for _, deny := range []bool{false, true} {
		for _, mode := range []approval.Mode{approval.Manual, approval.Auto} {
			t.Run(fmt.Sprintf("%s/deny=%v", mode, deny), func(t *testing.T) {
				b := newBox(t, Options{})
				g := &gate{mode: mode, deny: deny}
				outside := filepath.Join(b.out, "escaped")
				res := b.bash(t, b.rc("ses_1", g), map[string]any{"command": fmt.Sprintf("echo x > %q", outside),
					"sandbox": false, "reason": "write the shared build cache"})
				if got := g.kinds(); !slices.Equal(got, []string{"shell_escalate"}) {
					t.Fatalf("asked %v; want [shell_escalate]", got)
				}
				if why := g.asked[0].Why; !strings.Contains(why, "OUTSIDE the sandbox") || !strings.Contains(why, "write the shared build cache") {
					t.Errorf("why = %q; want the escalation and the model's reason", why)
				}
				if deny {
					if !res.IsError || !strings.Contains(res.Text, "denied by the user") || exists(outside) {
						t.Errorf("denied: result %q, wrote %v", res.Text, exists(outside))
					}
					return
				}
				if res.IsError || !exists(outside) || !strings.Contains(res.Text, "outside the sandbox, allowed by your answer 'allow once'") {
					t.Errorf("approved escalation: result %q, wrote %v", res.Text, exists(outside))
				}
			})
		}
	}
}

// A sandboxed command that fails without output gets a hint that the
// sandbox may be why (DNS and UDP refusals print nothing); one that
// succeeds or fails with output does not.
func TestBashQuietFailureHint(t *testing.T) {
	needSandbox(t)
	b := newBox(t, Options{})
	rc := b.rc("ses_1", &gate{mode: approval.Auto})
	for cmd, want := range map[string]bool{"exit 2": true, "true": false, "echo oops; exit 2": false} {
		res := b.bash(t, rc, map[string]any{"command": cmd})
		if got := strings.Contains(res.Text, "failed without a word"); got != want {
			t.Errorf("%s: hint %v; want %v:\n%s", cmd, got, want, res.Text)
		}
	}
	res := b.bash(t, b.rc("ses_1", &gate{mode: approval.FullAccess}), map[string]any{"command": "exit 2"})
	if strings.Contains(res.Text, "failed without a word") {
		t.Errorf("Full Access got the sandbox hint: %s", res.Text)
	}
}

// Where nothing can confine commands, Foya never pretends: even Auto asks
// before every command, saying why, and the result says it ran unsandboxed.
func TestBashSandboxUnavailable(t *testing.T) {
	b := newBox(t, Options{Probe: func() sandbox.Capability {
		return sandbox.Capability{Reason: "no Landlock in this kernel (test)"}
	}})
	g := &gate{mode: approval.Auto}
	res := b.bash(t, b.rc("ses_1", g), map[string]any{"command": "echo hi"})
	if got := g.kinds(); !slices.Equal(got, []string{"shell_escalate"}) {
		t.Fatalf("asked %v; want [shell_escalate]", got)
	}
	if why := g.asked[0].Why; !strings.Contains(why, "sandbox is unavailable") || !strings.Contains(why, "no Landlock in this kernel (test)") {
		t.Errorf("why = %q", why)
	}
	if res.IsError || !strings.Contains(res.Text, "WITHOUT a sandbox") || !strings.Contains(res.Text, "hi") {
		t.Errorf("result %q", res.Text)
	}
	g.deny = true
	res = b.bash(t, b.rc("ses_1", g), map[string]any{"command": "echo again > again"})
	if !res.IsError || exists(filepath.Join(b.ws, "again")) {
		t.Errorf("denied: result %q", res.Text)
	}
}

// spec: K1 — bad arguments get an is_error worded for the model and run
// nothing.
func TestBashBadInput(t *testing.T) {
	b := newBox(t, Options{})
	g := &gate{mode: approval.FullAccess}
	big := strings.Repeat("x", MaxCommandBytes+1)
	tests := []struct{ name, args, want string }{
		{"not JSON", `{"command":`, "not a valid JSON object"},
		{"not an object", `["ls"]`, "not a valid JSON object"},
		{"no command", `{}`, "command is empty"},
		{"empty command", `{"command":""}`, "command is empty"},
		{"blank command", `{"command":"  \n\t"}`, "command is empty"},
		{"command of the wrong type", `{"command":42}`, `"command" must be a string`},
		{"unknown argument", `{"command":"ls","cwd":"/"}`, `unknown argument "cwd"`},
		{"two values", `{"command":"ls"}{}`, "more than one JSON value"},
		{"NUL", `{"command":"echo a\u0000b"}`, "NUL"},
		{"zero timeout", `{"command":"ls","timeout_ms":0}`, "must be positive"},
		{"negative timeout", `{"command":"ls","timeout_ms":-5}`, "must be positive"},
		{"timeout too long", `{"command":"ls","timeout_ms":600001}`, "run_in_background"},
		{"fractional timeout", `{"command":"ls","timeout_ms":1.5}`, `"timeout_ms" must be an integer`},
		{"escalation without reason", `{"command":"ls","sandbox":false}`, "needs a reason"},
		{"escalation with blank reason", `{"command":"ls","sandbox":false,"reason":"  "}`, "needs a reason"},
		{"reason too long", `{"command":"ls","sandbox":false,"reason":"` + strings.Repeat("r", 3000) + `"}`, "reason is"},
		{"does not parse", `{"command":"echo 'unterminated"}`, "does not parse as shell"},
		{"command over 1 MiB", `{"command":"` + big + `"}`, "write long scripts to a file"},
		{"background of the wrong type", `{"command":"ls","run_in_background":"yes"}`, `"run_in_background" must be a boolean`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := b.call(t, context.Background(), b.rc("ses_1", g), BashName, tt.args)
			if !res.IsError || !strings.Contains(res.Text, tt.want) {
				t.Errorf("bash %.80s = %q (is_error %v); want an is_error with %q", tt.args, res.Text, res.IsError, tt.want)
			}
			if len(res.Text) > 4096 {
				t.Errorf("the error is %d bytes long", len(res.Text))
			}
		})
	}
	if len(g.all) != 0 {
		t.Errorf("bad input reached the approval gateway: %+v", g.all)
	}
	res := b.call(t, context.Background(), &tools.RunContext{SessionID: "ses_1", ApprovalMode: "auto"}, BashName, `{"command":"ls"}`)
	if !res.IsError || !strings.Contains(res.Text, "no working directory") {
		t.Errorf("no workdir: %q", res.Text)
	}
}

// A command line of almost 1 MiB runs (through a file descriptor), and an
// approval preview of it stays small.
func TestBashLongCommand(t *testing.T) {
	b := newBox(t, Options{})
	g := &gate{mode: approval.Manual}
	cmd := ": '" + strings.Repeat("a", 1_000_000) + "'; echo long-ok"
	res := b.bash(t, b.rc("ses_1", g), map[string]any{"command": cmd})
	if res.IsError || !strings.Contains(res.Text, "long-ok") {
		t.Fatalf("result %.300q", res.Text)
	}
	if len(g.asked) != 1 || len(g.asked[0].Preview) > previewBytes+100 || g.asked[0].Action.Command != cmd {
		t.Errorf("the request should carry the whole command and a preview of at most %d bytes; preview is %d", previewBytes, len(g.asked[0].Preview))
	}
	if !strings.Contains(g.asked[0].Preview, "more bytes") {
		t.Errorf("the preview does not say it was cut")
	}
}

// spec: O1, O2, O3, O4 — long output keeps its tail, within the caps, and
// says exactly how many lines and bytes were left out.
func TestBashOutputCaps(t *testing.T) {
	b := newBox(t, Options{})
	g := &gate{mode: approval.FullAccess}
	rc := b.rc("ses_1", g)

	res := b.bash(t, rc, map[string]any{"command": "seq 1 100000"})
	total := 0
	for i := 1; i <= 100000; i++ {
		total += len(fmt.Sprint(i)) + 1
	}
	keptBytes := 0
	for i := 99201; i <= 100000; i++ {
		keptBytes += len(fmt.Sprint(i)) + 1
	}
	want := fmt.Sprintf("[99,200 lines (%s bytes) of 100,000 lines (%s bytes) left out before this] %s\n99201\n",
		num(int64(total-keptBytes)), num(int64(total)), narrowHint)
	if !strings.HasPrefix(res.Text, want) || !strings.Contains(res.Text, "\n100000\n") {
		t.Errorf("seq: result starts %.200q; want %q", res.Text, want)
	}

	// One line of 200,000 bytes: its end.
	res = b.bash(t, rc, map[string]any{"command": "head -c 200000 /dev/zero | tr '\\0' x"})
	limit := tools.ShellLimits.Bytes
	want = fmt.Sprintf("[1 lines (%s bytes) of 1 lines (200,000 bytes) left out before this] %s\n%s\n",
		num(int64(200000-limit)), narrowHint, strings.Repeat("x", limit))
	if !strings.HasPrefix(res.Text, want) {
		t.Errorf("long line: result starts %.200q; want %.200q", res.Text, want)
	}

	// 200 MB: the result stays small and counts exactly: 3,174,603 lines
	// of 63 bytes, a cut line ended by echo, and the-end.
	res = b.bash(t, rc, map[string]any{"command": "yes 0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ | head -c 200000000; echo; echo the-end"})
	totalBytes, totalLines := int64(200000000+1+8), int64(200000000/63+1+1)
	notice, rest, _ := strings.Cut(res.Text, "\n")
	kept, _, _ := strings.Cut(rest, "\n\nExit code 0")
	kept += "\n"
	var omittedLines, omittedBytes, allLines, allBytes int64
	if _, err := fmt.Sscanf(strings.ReplaceAll(notice, ",", ""), "[%d lines (%d bytes) of %d lines (%d bytes)", &omittedLines, &omittedBytes, &allLines, &allBytes); err != nil {
		t.Fatalf("200 MB: notice %q: %v", notice, err)
	}
	keptLines := int64(strings.Count(kept, "\n"))
	if allLines != totalLines || allBytes != totalBytes || omittedLines+keptLines != totalLines || omittedBytes+int64(len(kept)) != totalBytes ||
		len(kept) > tools.ShellLimits.Bytes || !strings.HasSuffix(kept, "\nthe-end\n") {
		t.Errorf("200 MB: %q with %d lines, %d bytes kept; want the omitted and kept counts to add up to %d lines and %d bytes",
			notice, keptLines, len(kept), totalLines, totalBytes)
	}
}

// Binary output is summarised, invalid UTF-8 replaced: the model gets
// valid UTF-8.
func TestBashBinaryAndInvalidUTF8(t *testing.T) {
	b := newBox(t, Options{})
	rc := b.rc("ses_1", &gate{mode: approval.FullAccess})
	res := b.bash(t, rc, map[string]any{"command": "head -c 5000 /dev/urandom; echo"})
	if !strings.Contains(res.Text, "[binary output, ") || !utf8.ValidString(res.Text) || len(res.Text) > 1000 {
		t.Errorf("binary: %.300q", res.Text)
	}
	res = b.bash(t, rc, map[string]any{"command": `printf 'caf\351 \033[31mred\033[0m\n'`})
	if !strings.HasPrefix(res.Text, "caf\uFFFD red\n") || !utf8.ValidString(res.Text) {
		t.Errorf("invalid UTF-8: %q", res.Text)
	}
}

// stdin is closed: a command that reads it gets end of file at once, and one
// that wants a terminal fails with a hint.
func TestBashNoInputNoTerminal(t *testing.T) {
	b := newBox(t, Options{})
	for _, mode := range []approval.Mode{approval.Auto, approval.FullAccess} {
		rc := b.rc("ses_1", &gate{mode: mode})
		res := b.bash(t, rc, map[string]any{"command": `cat; read -r line; echo "read=$?"`})
		if !strings.Contains(res.Text, "read=1") || res.IsError {
			t.Errorf("%s: stdin: %q", mode, res.Text)
		}
		res = b.bash(t, rc, map[string]any{"command": `read -r answer < /dev/tty`})
		if !strings.Contains(res.Text, "wanted a terminal") {
			t.Errorf("%s: terminal: %q", mode, res.Text)
		}
	}
}

// A timeout ends the command as a tree and is an is_error that says so.
func TestBashTimeout(t *testing.T) {
	b := newBox(t, Options{})
	for _, mode := range []approval.Mode{approval.Auto, approval.FullAccess} {
		rc := b.rc("ses_1", &gate{mode: mode})
		res := b.bash(t, rc, map[string]any{"command": "echo started; sleep 300 & sleep 300", "timeout_ms": 200})
		if !res.IsError || !strings.Contains(res.Text, "Timed out after") || !strings.Contains(res.Text, "started") {
			t.Errorf("%s: %q", mode, res.Text)
		}
	}
}

// spec: X1 — cancelling the call's context ends the command's tree; the
// result says so.
func TestBashCancel(t *testing.T) {
	b := newBox(t, Options{})
	for _, mode := range []approval.Mode{approval.Auto, approval.FullAccess} {
		t.Run(string(mode), func(t *testing.T) {
			m := marker()
			ctx, cancel := context.WithCancel(context.Background())
			rc := b.rc("ses_1", &gate{mode: mode})
			started := make(chan struct{})
			var once sync.Once
			rc.Update = func(event.Progress) { once.Do(func() { close(started) }) }
			done := make(chan tools.Result)
			go func() {
				done <- b.call(t, ctx, rc, BashName, map[string]any{"command": fmt.Sprintf("(sleep %s & sleep %s; wait) & echo up; sleep %s", m, m, m)})
			}()
			testwait.Receive(t, started, "the command's first output")
			// "up" may come before the subshell has started its sleeps.
			var pids map[int]int
			testwait.Until(t, "the command's three sleeps", func() bool { pids = pidsWith(m); return len(pids) >= 3 })
			cancel()
			res := testwait.Receive(t, done, "the cancelled command's result")
			if !res.IsError || !strings.Contains(res.Text, "Cancelled") {
				t.Errorf("result %q", res.Text)
			}
			for pid, pgid := range pids {
				if alive(pid) || groupAlive(pgid) {
					st, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
					t.Errorf("process %d (group %d) outlived the cancel: alive %v group %v: %s", pid, pgid, alive(pid), groupAlive(pgid), st)
				}
			}
		})
	}
}

// A command that ends before firstReport costs no progress event: its
// result says it all (no store write and no event per quick call).
func TestBashQuickCommandReportsNoProgress(t *testing.T) {
	defer func(d time.Duration) { firstReport = d }(firstReport)
	firstReport = time.Hour
	b := newBox(t, Options{})
	rc := b.rc("ses_1", &gate{mode: approval.Auto})
	var mu sync.Mutex
	updates := 0
	rc.Update = func(event.Progress) {
		mu.Lock()
		updates++
		mu.Unlock()
	}
	out := b.bash(t, rc, map[string]any{"command": "seq 1 5000"})
	mu.Lock()
	defer mu.Unlock()
	if updates != 0 || !strings.Contains(out.Text, "5000") {
		t.Fatalf("%d progress updates for a command that ended before the first report, result %.100q; want none and the output", updates, out.Text)
	}
}

// While a command runs, its output's tail goes to tool.update progress.
func TestBashLiveTail(t *testing.T) {
	b := newBox(t, Options{})
	rc := b.rc("ses_1", &gate{mode: approval.Auto})
	var mu sync.Mutex
	var updates []event.Progress
	rc.Update = func(p event.Progress) {
		mu.Lock()
		updates = append(updates, p)
		mu.Unlock()
	}
	// It runs past firstReport, so the output it printed is reported.
	b.bash(t, rc, map[string]any{"command": "seq 1 5000; sleep 1"})
	mu.Lock()
	defer mu.Unlock()
	if len(updates) == 0 {
		t.Fatal("no progress update")
	}
	tail := updates[len(updates)-1].Tail
	if len(tail) > liveLimits.Bytes || strings.Count(tail, "\n") > liveLimits.Lines || !strings.Contains(tail, "5000") {
		t.Errorf("last update %q; want at most %d lines ending in 5000", tail, liveLimits.Lines)
	}
}

// The session temp folder is created on first use, private, and removed
// with the session.
func TestSessionTempDir(t *testing.T) {
	b := newBox(t, Options{})
	rc := b.rc("ses_tmp", &gate{mode: approval.Auto})
	res := b.bash(t, rc, map[string]any{"command": `echo "$TMPDIR"; mktemp`})
	dir := filepath.Join(b.tmp, "foya-ses_tmp")
	if !strings.HasPrefix(res.Text, dir+"\n"+dir+"/") {
		t.Fatalf("result %q; want TMPDIR %s and a file made in it", res.Text, dir)
	}
	fi, err := os.Stat(dir)
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("temp folder: %v %v", fi, err)
	}
	if err := b.sh.DeleteSession("ses_tmp"); err != nil {
		t.Fatal(err)
	}
	if exists(dir) {
		t.Error("the temp folder outlived its session")
	}
	// A planted link is refused, not followed.
	if err := os.Symlink(b.out, filepath.Join(b.tmp, "foya-ses_planted")); err != nil {
		t.Fatal(err)
	}
	res = b.bash(t, b.rc("ses_planted", &gate{mode: approval.Auto}), map[string]any{"command": "echo hi"})
	if !res.IsError || !strings.Contains(res.Text, "not a folder of this user") {
		t.Errorf("planted temp folder: %q", res.Text)
	}
	if _, err := b.sh.TempDir("../x"); err == nil {
		t.Error("TempDir accepted a session ID with a path in it")
	}
}

// TestCommandsGetNoSecrets checks that a Shell without an Environ option
// still leaves credentials out of its commands' environment, in the
// sandbox and in Full Access (a command's output reaches the model and
// the database), and keeps the rest.
//
// spec: A2
func TestCommandsGetNoSecrets(t *testing.T) {
	t.Setenv("FOYA_SHELL_TEST_API_KEY", "shell-test-key-0123456789")
	t.Setenv("FOYA_SHELL_TEST_HARMLESS", "kept")
	for _, mode := range []approval.Mode{approval.Auto, approval.FullAccess} {
		t.Run(string(mode), func(t *testing.T) {
			if mode == approval.Auto && sandbox.Probe().Mechanism == "" {
				testwait.Missing(t, "every sandbox mechanism ("+sandbox.Probe().Reason+")", "secrets kept from sandboxed commands")
			}
			b := newBox(t, Options{})
			res := b.call(t, context.Background(), b.rc("s1", &gate{mode: mode}), BashName,
				map[string]any{"command": `echo "key=${FOYA_SHELL_TEST_API_KEY:-unset} harmless=$FOYA_SHELL_TEST_HARMLESS"`})
			if !strings.Contains(res.Text, "key=unset harmless=kept") {
				t.Errorf("%s: %q; want the key unset and the harmless variable kept", mode, res.Text)
			}
		})
	}
}

// A command that exits by itself carries its exit status as a field, so a
// front end shows the outcome without reading the text; one that timed
// out carries none; one started in the background carries its ID.
//
// spec: L4
func TestBashExitCodeField(t *testing.T) {
	b := newBox(t, Options{})
	rc := b.rc("ses_1", &gate{mode: approval.FullAccess})
	res := b.bash(t, rc, map[string]any{"command": "sh -c 'echo one; echo two; exit 3'"})
	if res.ExitCode == nil || *res.ExitCode != 3 || res.IsError {
		t.Errorf("exit 3: ExitCode = %v, IsError = %v; want 3, false (%q)", res.ExitCode, res.IsError, res.Text)
	}
	res = b.bash(t, rc, map[string]any{"command": "true"})
	if res.ExitCode == nil || *res.ExitCode != 0 {
		t.Errorf("true: ExitCode = %v; want 0", res.ExitCode)
	}
	res = b.bash(t, rc, map[string]any{"command": "sleep 300", "timeout_ms": 100})
	if res.ExitCode != nil {
		t.Errorf("timed out: ExitCode = %d; want none", *res.ExitCode)
	}
	res = b.bash(t, rc, map[string]any{"command": "exec sleep 1000", "run_in_background": true})
	if res.Background == "" || !strings.Contains(res.Text, res.Background) || res.ExitCode != nil {
		t.Errorf("background: Background = %q, ExitCode = %v (%q)", res.Background, res.ExitCode, res.Text)
	}
}
