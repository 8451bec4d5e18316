package tests

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"

	pt "foya/backend/provider/providertest"
)

// spec: A1, W4 — foya exec --approval manual on a terminal asks before a
// write and does it once allowed; without a terminal it denies and tells
// the model how to allow it, and nothing is written.
func TestExecManualAsksOnTheTerminal(t *testing.T) {
	bin := foyaBinary(t)
	dir := t.TempDir()
	db := filepath.Join(t.TempDir(), "foya.db")
	write := call("w1", "write", `{"path":"hello.txt","content":"hi from the agent\n"}`)

	// With a terminal: the question appears, "y" allows once.
	srv := pt.New(t, pt.Calls(write), pt.Say("written"))
	cmd := exec.Command(bin, "exec", "--base-url", srv.URL, "--model", "m", "--db", db, "--workdir", dir,
		"--approval", "manual", "write the file")
	tty, err := pty.Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	defer tty.Close()
	screen := make(chan string, 64)
	go func() {
		r := bufio.NewReader(tty)
		var line strings.Builder
		for {
			b, err := r.ReadByte()
			if err != nil {
				close(screen)
				return
			}
			line.WriteByte(b)
			if b == '\n' || strings.HasSuffix(line.String(), ": ") {
				screen <- line.String()
				line.Reset()
			}
		}
	}()
	var seen strings.Builder
	deadline := time.After(60 * time.Second)
wait:
	for {
		select {
		case l, ok := <-screen:
			if !ok {
				t.Fatalf("foya exited before asking:\n%s", seen.String())
			}
			seen.WriteString(l)
			if strings.Contains(l, "Allow? [y] once") {
				break wait
			}
		case <-deadline:
			t.Fatalf("no question on the terminal:\n%s", seen.String())
		}
	}
	if !strings.Contains(seen.String(), "approval needed: write") || !strings.Contains(seen.String(), "hello.txt") {
		t.Fatalf("the question does not say what and where:\n%s", seen.String())
	}
	tty.Write([]byte("y\n"))
	for range screen {
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("foya exec: %v\n%s", err, seen.String())
	}
	if b, err := os.ReadFile(filepath.Join(dir, "hello.txt")); err != nil || string(b) != "hi from the agent\n" {
		t.Fatalf("after allowing: %q %v", b, err)
	}

	// Without a terminal: denied with a how-to, nothing written.
	other := call("w2", "write", `{"path":"second.txt","content":"no\n"}`)
	srv2 := pt.New(t, pt.Calls(other), pt.Say("ok"))
	res := runFoya(t, bin, nil, "exec", "--base-url", srv2.URL, "--model", "m", "--db", db, "--workdir", dir,
		"--approval", "manual", "write another")
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "second.txt")); !os.IsNotExist(err) {
		t.Fatal("a write happened without approval")
	}
	tm := toolMessages(srv2.Requests()[1])
	if !strings.Contains(tm[0].Content, "--approval auto") {
		t.Fatalf("the model was told %q", tm[0].Content)
	}
}
