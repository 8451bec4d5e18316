//go:build unix

package shell

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"foya/backend/approval"
	"foya/backend/testwait"
	"foya/backend/tools"
)

// waitOutput calls bash_output until its text holds want; it gives up
// after many calls (each one waits for new output briefly in the shell).
func (b *box) waitOutput(t *testing.T, sessionID, id, want string) string {
	t.Helper()
	rc := b.rc(sessionID, &gate{mode: approval.Auto})
	var seen strings.Builder
	for range 2000 {
		res := b.call(t, context.Background(), rc, OutputName, map[string]any{"id": id})
		if res.IsError {
			t.Fatalf("bash_output: %s", res.Text)
		}
		seen.WriteString(res.Text)
		if strings.Contains(seen.String(), want) {
			return seen.String()
		}
		runtime.Gosched()
		b.sh.waitAny(sessionID, id)
	}
	t.Fatalf("bash_output never showed %q; saw:\n%s", want, seen.String())
	return ""
}

// spec: B1 — a background command returns an ID at once; bash_output gives
// new output since the last read and the status; bash_kill ends it; it is
// listed for the UI.
func TestBackgroundLifecycle(t *testing.T) {
	for _, mode := range []approval.Mode{approval.Auto, approval.FullAccess} {
		t.Run(string(mode), func(t *testing.T) {
			b := newBox(t, Options{})
			rc := b.rc("ses_1", &gate{mode: mode})
			res := b.bash(t, rc, map[string]any{"command": "echo first; read -r x; echo second; exec sleep 1000", "run_in_background": true})
			if res.IsError || !strings.Contains(res.Text, "id bg1") {
				t.Fatalf("start: %q", res.Text)
			}
			// The two lines may come in one read or in two.
			out := b.waitOutput(t, "ses_1", "bg1", "second\n")
			first, second := strings.Index(out, "first\n"), strings.Index(out, "second\n")
			if first < 0 || second < first || !strings.Contains(out, "Status: running") {
				t.Errorf("output %q", out)
			}
			res = b.call(t, context.Background(), rc, OutputName, map[string]any{"id": "bg1"})
			if !strings.HasPrefix(res.Text, "(no new output)") {
				t.Errorf("second read %q; want no new output", res.Text)
			}
			list := b.sh.List("ses_1")
			if len(list) != 1 || list[0].ID != "bg1" || !list[0].Running || list[0].OutputBytes != int64(len("first\nsecond\n")) {
				t.Errorf("List = %+v", list)
			}
			res = b.call(t, context.Background(), rc, KillName, map[string]any{"id": "bg1"})
			if res.IsError || !strings.Contains(res.Text, "ended by bash_kill") {
				t.Errorf("kill: %q", res.Text)
			}
			list = b.sh.List("ses_1")
			if len(list) != 1 || list[0].Running || !list[0].Killed {
				t.Errorf("List after kill = %+v", list)
			}
			res = b.call(t, context.Background(), rc, KillName, map[string]any{"id": "bg1"})
			if res.IsError || !strings.Contains(res.Text, "already ended") {
				t.Errorf("second kill: %q", res.Text)
			}
			// A command that ends by itself reports its exit code.
			b.bash(t, rc, map[string]any{"command": "echo bye; exit 7", "run_in_background": true})
			out = b.waitOutput(t, "ses_1", "bg2", "Status: exited")
			if !strings.Contains(out, "bye\n") || !strings.Contains(out, "exited with code 7") {
				t.Errorf("bg2: %q", out)
			}
		})
	}
}

// spec: B2, O4 — a command that prints forever keeps memory flat: reads
// are capped, say how much was left out, and the process's heap does not
// grow with the output.
func TestBackgroundOutputBounded(t *testing.T) {
	b := newBox(t, Options{})
	rc := b.rc("ses_1", &gate{mode: approval.Auto})
	b.bash(t, rc, map[string]any{"command": "yes foya-prints-forever", "run_in_background": true})
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	// Let it print 64 times the ring's size.
	deadline := time.Now().Add(testwait.Limit)
	for b.sh.List("ses_1")[0].OutputBytes <= 64*BackgroundTailBytes {
		if time.Now().After(deadline) {
			t.Fatalf("the background command printed %d bytes in %v; want over %d", b.sh.List("ses_1")[0].OutputBytes, testwait.Limit, 64*BackgroundTailBytes)
		}
		b.sh.waitAny("ses_1", "bg1")
	}
	res := b.call(t, context.Background(), rc, OutputName, map[string]any{"id": "bg1"})
	if res.IsError || len(res.Text) > tools.ShellLimits.Bytes+2048 {
		t.Fatalf("read of %d bytes (is_error %v)", len(res.Text), res.IsError)
	}
	if !strings.Contains(res.Text, "were overwritten in the bounded buffer") || !strings.Contains(res.Text, "foya-prints-forever\n") {
		t.Errorf("read: %.400q", res.Text)
	}
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	if grew := int64(after.HeapInuse) - int64(before.HeapInuse); grew > 16<<20 {
		t.Errorf("heap in use grew by %s while the command printed %s", size(grew), size(b.sh.List("ses_1")[0].OutputBytes))
	}
	if _, err := b.sh.Kill("ses_1", "bg1"); err != nil {
		t.Fatal(err)
	}
}

// spec: B1, B3, X1 — bash_kill, Kill, DeleteSession and Close end the whole
// tree of a background command (checked by PID and by process group), and
// DeleteSession removes the session's temp folder.
func TestBackgroundTreesEnd(t *testing.T) {
	ends := map[string]func(t *testing.T, b *box){
		"bash_kill": func(t *testing.T, b *box) {
			b.call(t, context.Background(), b.rc("ses_1", &gate{mode: approval.Auto}), KillName, map[string]any{"id": "bg1"})
		},
		"Kill": func(t *testing.T, b *box) {
			if _, err := b.sh.Kill("ses_1", "bg1"); err != nil {
				t.Fatal(err)
			}
		},
		"DeleteSession": func(t *testing.T, b *box) {
			if err := b.sh.DeleteSession("ses_1"); err != nil {
				t.Fatal(err)
			}
			if exists(filepath.Join(b.tmp, "foya-ses_1")) {
				t.Error("the session's temp folder is still there")
			}
			if l := b.sh.List("ses_1"); len(l) != 0 {
				t.Errorf("List after DeleteSession = %+v", l)
			}
		},
		"Close": func(t *testing.T, b *box) {
			if err := b.sh.Close(); err != nil {
				t.Fatal(err)
			}
			if exists(filepath.Join(b.tmp, "foya-ses_1")) {
				t.Error("the session's temp folder is still there")
			}
			res := b.bash(t, b.rc("ses_1", &gate{mode: approval.Auto}), map[string]any{"command": "true", "run_in_background": true})
			if !res.IsError || !strings.Contains(res.Text, "shut down") {
				t.Errorf("start after Close: %q", res.Text)
			}
		},
	}
	for name, end := range ends {
		for _, mode := range []approval.Mode{approval.Auto, approval.FullAccess} {
			t.Run(name+"/"+string(mode), func(t *testing.T) {
				b := newBox(t, Options{})
				m := marker()
				rc := b.rc("ses_1", &gate{mode: mode})
				if _, err := b.sh.TempDir("ses_1"); err != nil {
					t.Fatal(err)
				}
				res := b.bash(t, rc, map[string]any{"command": fmt.Sprintf("(sleep %s & sleep %s; wait) & sleep %s & echo up; wait", m, m, m), "run_in_background": true})
				if res.IsError {
					t.Fatal(res.Text)
				}
				b.waitOutput(t, "ses_1", "bg1", "up")
				var pids map[int]int
				for range 1000 {
					if pids = pidsWith(m); len(pids) >= 3 {
						break
					}
					runtime.Gosched()
				}
				if len(pids) < 3 {
					t.Fatalf("found %d processes of the command; want 3", len(pids))
				}
				end(t, b)
				for pid, pgid := range pids {
					if alive(pid) || groupAlive(pgid) {
						t.Errorf("process %d (group %d) outlived %s", pid, pgid, name)
					}
				}
			})
		}
	}
}

// A session sees only its own background commands.
func TestBackgroundPerSession(t *testing.T) {
	b := newBox(t, Options{})
	a := b.rc("ses_a", &gate{mode: approval.Auto})
	b.bash(t, a, map[string]any{"command": "sleep 1000", "run_in_background": true})
	other := b.rc("ses_b", &gate{mode: approval.Auto})
	res := b.call(t, context.Background(), other, OutputName, map[string]any{"id": "bg1"})
	if !res.IsError || !strings.Contains(res.Text, "this session has none") {
		t.Errorf("other session's read: %q", res.Text)
	}
	b.bash(t, other, map[string]any{"command": "sleep 1000", "run_in_background": true})
	res = b.call(t, context.Background(), other, KillName, map[string]any{"id": "bg7"})
	if !res.IsError || !strings.Contains(res.Text, "its commands are bg1") {
		t.Errorf("unknown id: %q", res.Text)
	}
	if _, err := b.sh.Kill("ses_b", "bg2"); err == nil {
		t.Error("Kill of an unknown command: no error")
	}
	if l := b.sh.List("ses_a"); len(l) != 1 || !l[0].Running {
		t.Errorf("ses_a's command: %+v", l)
	}
}

// spec: B2, K1 — a session runs at most MaxRunning background commands;
// bad arguments of bash_output and bash_kill are is_error results.
func TestBackgroundLimitsAndBadInput(t *testing.T) {
	b := newBox(t, Options{})
	rc := b.rc("ses_1", &gate{mode: approval.Auto})
	for i := range MaxRunning {
		if res := b.bash(t, rc, map[string]any{"command": "sleep 1000", "run_in_background": true}); res.IsError {
			t.Fatalf("command %d: %s", i+1, res.Text)
		}
	}
	res := b.bash(t, rc, map[string]any{"command": "sleep 1000", "run_in_background": true})
	if !res.IsError || !strings.Contains(res.Text, "end one with bash_kill") {
		t.Errorf("one too many: %q", res.Text)
	}
	for _, name := range []string{OutputName, KillName} {
		for args, want := range map[string]string{
			`{}`:                     "id is empty",
			`{"id":"  "}`:            "id is empty",
			`{"id":5}`:               `"id" must be a string`,
			`{"id":"bg1","extra":1}`: `unknown argument "extra"`,
			`nope`:                   "not a valid JSON object",
			`{"id":"bg99"}`:          "no background command \"bg99\"",
			`{"id":"bg1"}{"id":"x"}`: "more than one JSON value",
		} {
			res := b.call(t, context.Background(), rc, name, args)
			if !res.IsError || !strings.Contains(res.Text, want) {
				t.Errorf("%s %s = %q; want an is_error with %q", name, args, res.Text, want)
			}
		}
	}
	if err := b.sh.DeleteSession("ses_1"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(b.tmp, "foya-ses_1")); !os.IsNotExist(err) {
		t.Errorf("temp folder after DeleteSession: %v", err)
	}
}
