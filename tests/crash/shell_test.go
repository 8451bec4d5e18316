package crash

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"foya/backend/kernel"
	pt "foya/backend/provider/providertest"
)

// A shell command killed with foya after it changed a tracked file, in
// the foreground (its result never stored) or in the background (its
// changes are recorded only when it ends), has its change recorded at
// recovery as an unconfirmed File Change of its call, from what Foya
// recorded last to what the disk holds, and the revert brings the file
// back (the crash harness's shell cases found these changes unrecorded).
//
// spec: X2, F1
func TestCrashMidShellCommand(t *testing.T) {
	bin := foyaBinary(t)
	for _, bg := range []bool{false, true} {
		t.Run(map[bool]string{false: "foreground", true: "background"}[bg], func(t *testing.T) {
			_, ws, db := shellCase(t)
			hold := make(chan struct{})
			defer close(hold)
			turns := []pt.Turn{
				pt.Calls(call("w1", "write", map[string]any{"path": "a.txt", "content": "one\n"})),
				// A command first, so that the index is saved with a.txt.
				pt.Calls(call("b1", "bash", map[string]any{"command": "true"})),
			}
			if bg {
				turns = append(turns,
					pt.Calls(call("g1", "bash", map[string]any{"command": "sleep 0.1; printf 'two\\n' >> a.txt; exec sleep 30", "run_in_background": true})),
					pt.Turn{Text: "waiting", Hold: hold})
			} else {
				turns = append(turns, pt.Calls(call("f1", "bash", map[string]any{"command": "printf 'two\\n' >> a.txt; sleep 30"})))
			}
			srv := pt.New(t, turns...)
			cmd, stderr := startExec(t, bin, srv.URL, db, ws)
			waitForTwo(t, cmd, stderr, ws, nil)
			killAndCheck(t, cmd, db, ws, map[bool]string{false: "f1", true: "g1"}[bg])
		})
	}
}

// A background command started by a run that then ended, killed with
// foya after it changed a tracked file, has its change recorded at
// recovery as an unconfirmed File Change of its call, although no run
// of it is left running: the background commands are stored, a row per
// command ended when its changes are captured, and recovery gives what
// differs between the saved index and the disk to those that were alive
// (the crash harness's known gap before). Here the command is
// started by a sub-agent, whose run ends while foya goes on.
//
// spec: X2, F1
func TestCrashBackgroundAfterItsRun(t *testing.T) {
	bin := foyaBinary(t)
	base, ws, db := shellCase(t)
	started := filepath.Join(base, "started")
	hold := make(chan struct{})
	defer close(hold)
	// The command waits for the test to see the sub-agent's run ended.
	srv := pt.New(t,
		pt.Calls(call("w1", "write", map[string]any{"path": "a.txt", "content": "one\n"})),
		pt.Calls(call("b1", "bash", map[string]any{"command": "true"})),
		pt.Calls(call("t1", "task", map[string]any{"description": "start the command", "prompt": "start it"})),
		pt.Calls(call("g1", "bash", map[string]any{"command": "while [ ! -e " + started + " ]; do sleep 0.01; done; printf 'two\\n' >> a.txt; exec sleep 30",
			"run_in_background": true})),
		pt.Say("started it"),
		pt.Turn{Text: "waiting", Hold: hold})
	cmd, stderr := startExec(t, bin, srv.URL, db, ws)
	told := false
	waitForTwo(t, cmd, stderr, ws, func() {
		if !told && len(srv.Requests()) >= 6 {
			// The parent's last turn was asked for: the sub-agent's run ended.
			if err := os.WriteFile(started, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			told = true
		}
	})
	killAndCheck(t, cmd, db, ws, "g1")
}

// shellCase makes a case's folders (a workspace, a data folder, a home)
// and points HOME at its own; it returns the base folder, the workspace
// and the database path.
func shellCase(t *testing.T) (base, ws, db string) {
	t.Helper()
	base = t.TempDir()
	ws, data, home := filepath.Join(base, "ws"), filepath.Join(base, "data"), filepath.Join(base, "home")
	for _, d := range []string{ws, data, home} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("HOME", home)
	t.Setenv("XDG_DATA_HOME", filepath.Join(home, ".local", "share"))
	return base, ws, filepath.Join(data, "foya.db")
}

// startExec starts foya exec in Full Access against the scripted model.
func startExec(t *testing.T, bin, url, db, ws string) (*exec.Cmd, *strings.Builder) {
	t.Helper()
	cmd := exec.Command(bin, "exec", "--base-url", url, "--api-key", "x", "--model", "m", "--db", db,
		"--workdir", ws, "--approval", "full-access", "--json", "work on the files")
	cmd.Env = append(os.Environ(), "FOYA_DB=", "OPENAI_BASE_URL=", "OPENAI_API_KEY=")
	stderr := &strings.Builder{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, stderr
}

// waitForTwo waits until the command appended "two" to a.txt, calling
// each (when not nil) at every look; it fails, killing foya, after a
// minute.
func waitForTwo(t *testing.T, cmd *exec.Cmd, stderr *strings.Builder, ws string, each func()) {
	t.Helper()
	a := filepath.Join(ws, "a.txt")
	deadline := time.Now().Add(60 * time.Second)
	for {
		if each != nil {
			each()
		}
		b, _ := os.ReadFile(a)
		if string(b) == "one\ntwo\n" {
			return
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("the command did not change a.txt (it holds %q); foya's stderr: %s", b, stderr.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// killAndCheck kills foya, opens the kernel on its database (recovery
// runs) and checks that a.txt's change is one unconfirmed File Change of
// call by, from the write's content, that the harness's checks hold, and
// that its revert brings the write's content back.
func killAndCheck(t *testing.T, cmd *exec.Cmd, db, ws, by string) {
	t.Helper()
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	a := filepath.Join(ws, "a.txt")
	ctx := context.Background()
	k, err := kernel.Open(ctx, kernel.Options{DBPath: db})
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	sessions, err := k.Sessions(ctx)
	if err != nil || len(sessions) != 1 {
		t.Fatalf("sessions %v, %v; want one", sessions, err)
	}
	list, err := k.Changes(ctx, sessions[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	var got []kernel.Change
	for _, fc := range list {
		if fc.Path == a && fc.CallID == by {
			got = append(got, fc)
		}
	}
	if len(got) != 1 || !got[0].Unconfirmed || !got[0].ExistedBefore || !got[0].ExistsAfter {
		t.Fatalf("changes of a.txt by %s: %+v (all: %+v); want one, unconfirmed, from the write's content", by, got, list)
	}
	c := &checker{t: t, db: db, ws: ws, kinds: map[string]string{}}
	c.changes(ctx, k, sessions[0].ID)
	res, err := k.Revert(ctx, kernel.RevertRequest{ChangeIDs: []string{got[0].ID}})
	if err != nil || len(res.Conflicts) > 0 || len(res.Reverted) != 1 {
		t.Fatalf("revert: %+v, %v", res, err)
	}
	if b, _ := os.ReadFile(a); string(b) != "one\n" {
		t.Errorf("a.txt after the revert holds %q; want the write's content", b)
	}
}
