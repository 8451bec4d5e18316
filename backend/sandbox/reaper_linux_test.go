package sandbox

import (
	"os"
	"os/exec"
	"slices"
	"syscall"
	"testing"
	"time"
)

// The reaping helper signals a tree parents first: a shell signalled after
// its foreground child could see the child die of the signal and run its
// next command first (TestTimeout/plain printed "begin", "Terminated",
// "never" once, exit 0).
func TestDescendantsParentsFirst(t *testing.T) {
	sl := sleeper(7)
	cmd := exec.Command("bash", "-c", sl+" & sh -c '"+sl+" & "+sl+" & wait' & "+sl+" & wait")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		for _, tk := range cmdlineTasks(sl) {
			syscall.Kill(tk.pid, syscall.SIGKILL)
		}
		cmd.Process.Kill()
		cmd.Wait()
	}()
	deadline := time.Now().Add(10 * time.Second)
	for len(cmdlineTasks(sl)) < 4 {
		if time.Now().After(deadline) {
			t.Fatalf("the tree did not start: %d sleepers", len(cmdlineTasks(sl)))
		}
		time.Sleep(5 * time.Millisecond)
	}
	order := descendants(os.Getpid())
	buf := make([]byte, 512)
	pos := map[int]int{}
	for i, pid := range order {
		pos[pid] = i
	}
	for _, tk := range cmdlineTasks(sl) {
		if !slices.Contains(order, tk.pid) {
			t.Errorf("sleeper %d is not among the descendants %v", tk.pid, order)
		}
	}
	for i, pid := range order {
		st, ok := readProcState(pid, buf)
		if !ok || st.ppid == os.Getpid() {
			continue
		}
		if j, found := pos[st.ppid]; !found || j > i {
			t.Errorf("process %d comes at %d of %v, its parent %d at %d (found %v); want the parent first", pid, i, order, st.ppid, j, found)
		}
	}
}
