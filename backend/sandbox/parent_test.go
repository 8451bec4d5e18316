//go:build linux

package sandbox

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// parentMain plays Foya in TestParentDeath: it starts script restricted in
// the current directory, says so, and waits to be killed.
func parentMain(script string) int {
	forceMode = os.Getenv("FOYA_SANDBOX_TEST_FORCE")
	dir, _ := os.Getwd()
	p, err := Start(context.Background(), Command{Script: script, Dir: dir, Policy: Policy{Restricted: true, Writable: []string{dir}}})
	if err != nil {
		fmt.Println("error:", err)
		return 1
	}
	data := []byte{}
	for !strings.Contains(string(data), "ready") {
		time.Sleep(10 * time.Millisecond)
		data, _, _ = p.Read(0)
	}
	fmt.Println("started")
	<-p.Done()
	return 0
}

// TestParentDeath kills the process that started a sandboxed command, as if
// Foya crashed: the command's whole tree must die with it.
//
// spec: X1
func TestParentDeath(t *testing.T) {
	for _, m := range restrictedModes(t) {
		if m == llMode {
			continue // no PID namespace: only the shell dies (documented)
		}
		t.Run(m.name, func(t *testing.T) {
			b := newBox(t)
			parent := exec.Command(os.Args[0])
			parent.Dir = b.ws
			parent.Env = append(os.Environ(), "FOYA_SANDBOX_TEST_PARENT=setsid sleep 987007 & sleep 987007 & echo ready; wait")
			if m == bwrapMode {
				parent.Env = append(parent.Env, "FOYA_SANDBOX_TEST_FORCE=bwrap")
			}
			out, err := parent.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := parent.Start(); err != nil {
				t.Fatal(err)
			}
			line, _ := bufio.NewReader(out).ReadString('\n')
			if line != "started\n" {
				parent.Process.Kill()
				parent.Wait()
				t.Fatalf("the parent said %q", line)
			}
			tree := cmdlineTasks("sleep 987007")
			if len(tree) != 2 {
				t.Fatalf("found %d sleeps; want 2", len(tree))
			}
			parent.Process.Kill()
			parent.Wait()
			for _, tk := range tree {
				// The kernel kills them on its own time: wait for each, boundedly.
				fd, err := unix.PidfdOpen(tk.pid, 0)
				if err != nil {
					continue // gone already
				}
				fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
				n, err := unix.Poll(fds, 10000)
				for err == unix.EINTR {
					n, err = unix.Poll(fds, 10000)
				}
				unix.Close(fd)
				if n != 1 || tk.alive() {
					t.Errorf("process %d outlived its parent", tk.pid)
				}
			}
		})
	}
}
