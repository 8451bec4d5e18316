package kernel

import (
	"bufio"
	"os/exec"
	"path/filepath"
	"testing"

	"foya/backend/testwait"
)

// An owner that died while it was starting a process is gone even though
// that process holds a copy of its lock for a moment (fork copies the
// open file an flock lock belongs to): claim waits for the copy to go
// instead of taking the owner for alive, which left a killed foya exec's
// run running after an immediate restart (found by the crash harness). flock(1) plays the process holding the lock; it lets go
// when claim first pauses, so nothing depends on timing.
//
// spec: X2
func TestClaimWaitsForALockCopyToGo(t *testing.T) {
	if _, err := exec.LookPath("flock"); err != nil {
		testwait.Missing(t, "flock(1) (Debian package util-linux)", "claiming an owner while a copy of its lock is held")
	}
	db := filepath.Join(t.TempDir(), "foya.db")
	dead, err := claimOwner(db)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dead.dir, dead.name+".lock")
	child := exec.Command("flock", "-x", "-w", "60", path, "-c", "echo held; read _")
	stdin, _ := child.StdinPipe()
	out, _ := child.StdoutPipe()
	dead.lock.Close() // the owner dies; the child's copy stands in for the forked one
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { child.Process.Kill(); child.Wait() })
	if line, _ := bufio.NewReader(out).ReadString('\n'); line != "held\n" {
		t.Fatalf("flock said %q", line)
	}
	old := claimPause
	pauses := 0
	claimPause = func() {
		if pauses++; pauses == 1 {
			stdin.Close()
			child.Wait()
		}
	}
	t.Cleanup(func() { claimPause = old })

	live, err := claimOwner(db)
	if err != nil {
		t.Fatal(err)
	}
	defer live.lock.Close()
	release, gone := live.claim(dead.id)
	if !gone {
		t.Fatalf("claim of a dead owner whose lock a child held for a moment: not gone (%d pauses)", pauses)
	}
	release(true)
	if pauses != 1 {
		t.Errorf("claim paused %d times; want 1 (the lock was free after the first)", pauses)
	}
	// A live owner is still alive after every try.
	other, err := claimOwner(db)
	if err != nil {
		t.Fatal(err)
	}
	defer other.lock.Close()
	pauses = 1
	if _, gone := live.claim(other.id); gone {
		t.Fatal("a live owner was claimed")
	}
	if pauses != claimTries {
		t.Errorf("claim of a live owner paused %d times; want %d", pauses-1, claimTries-1)
	}
}
