//go:build linux

package shell

import (
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"foya/backend/approval"
	"foya/backend/sandbox"
	"foya/backend/testwait"
)

// spec: A2, B1 — a dev server a session's background command started on
// the loopback of the sandbox is reachable by the session's later
// sandboxed commands, not by another session's, and not after the session
// was deleted.
func TestBackgroundServerReachable(t *testing.T) {
	if m := sandbox.Probe().Mechanism; m != "landlock+netns" {
		testwait.Missing(t, "the landlock+netns sandbox (here: "+m+")", "a loopback shared by a session's commands")
	}
	for _, name := range []string{"python3", "nsenter", "unshare"} {
		if _, err := exec.LookPath(name); err != nil {
			testwait.Missing(t, name, "a loopback shared by a session's commands")
		}
	}
	b := newBox(t, Options{})
	a := b.rc("ses_a", &gate{mode: approval.Auto})
	serve := `exec python3 -c '
import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(8)
print("port", s.getsockname()[1], flush=True)
while True:
    c, _ = s.accept(); c.sendall(b"pong"); c.close()'`
	started := b.bash(t, a, map[string]any{"command": serve, "run_in_background": true})
	if started.IsError {
		t.Fatalf("start the server: %s", started.Text)
	}
	// Its output, read from the process (bash_output's cursor is not
	// needed here), until it names its port; a minute is a hang guard.
	j, _ := b.sh.job("ses_a", "bg1")
	if j == nil {
		t.Fatal("no job bg1")
	}
	port := regexp.MustCompile(`port (\d+)\n`)
	var m []string
	for deadline := time.Now().Add(time.Minute); m == nil; {
		out, _, _ := j.proc.Read(0)
		if m = port.FindStringSubmatch(string(out)); m != nil {
			break
		}
		select {
		case <-j.proc.Done():
			t.Fatalf("the server ended: %q", out)
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server printed no port within a minute: %q", out)
		}
	}
	ask := `python3 -c '
import socket
try:
    print(socket.create_connection(("127.0.0.1", ` + m[1] + `), timeout=5).recv(4).decode())
except OSError:
    print("refused")'`
	if res := b.bash(t, a, map[string]any{"command": ask}); res.IsError || !strings.Contains(res.Text, "pong") {
		t.Errorf("the session's later command asked its server: %q; want pong", res.Text)
	}
	other := b.rc("ses_b", &gate{mode: approval.Auto})
	if res := b.bash(t, other, map[string]any{"command": ask}); !strings.Contains(res.Text, "refused") {
		t.Errorf("another session's command asked the server: %q; want refused", res.Text)
	}
	if err := b.sh.DeleteSession("ses_a"); err != nil {
		t.Fatal(err)
	}
	if res := b.bash(t, a, map[string]any{"command": ask}); !strings.Contains(res.Text, "refused") {
		t.Errorf("after the session was deleted, its server answered: %q; want refused", res.Text)
	}
}
