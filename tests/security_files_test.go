//go:build linux

package tests

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"foya/backend/kernel"
	pt "foya/backend/provider/providertest"
	"foya/backend/testwait"
)

// swapper keeps exchanging the folder a with the link b
// (renameat2(RENAME_EXCHANGE)) in a goroutine of the test, as a background
// command in the workspace could, until stop; stop leaves the folder at a.
// It swaps in bursts of a millisecond with rests of two between them
// (longer on a busy machine): every file tool call, which takes a
// millisecond or more under -race, still meets swaps while it runs, and the
// swapper no longer takes a core of its own for the whole run (unpaced it
// made 1.77 million swaps in 20 s on 1.8 of 2 cores).
type swapper struct {
	a, b  string
	stop  chan struct{}
	done  chan struct{}
	swaps atomic.Int64
}

// swapBurst and swapRest pace the swapper.
const swapBurst, swapRest = time.Millisecond, 2 * time.Millisecond

func startSwapper(t *testing.T, a, b string) *swapper {
	t.Helper()
	s := &swapper{a: a, b: b, stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		burst := time.Now().Add(swapBurst)
		for {
			select {
			case <-s.stop:
				return
			default:
			}
			if err := unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE); err != nil {
				t.Errorf("exchange %s and %s: %v", a, b, err)
				return
			}
			s.swaps.Add(1)
			if time.Now().After(burst) {
				time.Sleep(swapRest)
				burst = time.Now().Add(swapBurst)
			}
		}
	}()
	return s
}

func (s *swapper) finish(t *testing.T) {
	t.Helper()
	close(s.stop)
	testwait.Receive(t, s.done, "the swapper to stop")
	if fi, err := os.Lstat(s.a); err != nil {
		t.Fatal(err)
	} else if fi.Mode()&os.ModeSymlink != 0 {
		if err := unix.Renameat2(unix.AT_FDCWD, s.a, unix.AT_FDCWD, s.b, unix.RENAME_EXCHANGE); err != nil {
			t.Fatal(err)
		}
	}
}

// spec: A1, A2, D1, D2
// A symlink swap racing the file tools: while a goroutine of the test
// keeps exchanging the
// workspace folder sub with a link to an outside folder
// (renameat2(RENAME_EXCHANGE)), a scripted model in Auto issues 150 reads,
// 150 writes and 150 deletes under sub/, and 50 greps of the workspace. Outside requests the person is
// asked about are denied. No result may hold an outside file's content, no
// outside file may be written, created or moved to the trash, and every
// call either acted inside the workspace or failed with an is_error result.
func TestFileToolsRaceASymlinkSwap(t *testing.T) {
	trashDir := privateTrash(t)
	const n = 150
	var reads, writes, deletes []pt.Call
	for i := range n {
		reads = append(reads, call(fmt.Sprintf("r%d", i), "read", fmt.Sprintf(`{"path":"sub/r%d.txt"}`, i)))
		writes = append(writes, call(fmt.Sprintf("w%d", i), "write", fmt.Sprintf(`{"path":"sub/w%d.txt","content":"written by the model\n"}`, i)))
		deletes = append(deletes, call(fmt.Sprintf("d%d", i), "delete", fmt.Sprintf(`{"path":"sub/d%d.txt"}`, i)))
	}
	// grep walks the workspace into sub while it is being swapped.
	for i := range n / 3 {
		reads = append(reads, call(fmt.Sprintf("g%d", i), "grep", `{"pattern":"`+outsideMarker+`"}`))
	}
	h := newHarness(t, nil, pt.Calls(reads...), pt.Calls(writes...), pt.Calls(deletes...), pt.Say("done"))
	out := t.TempDir()
	var outNames []string
	for i := range n {
		for _, f := range []string{"r%d.txt", "d%d.txt", "w%d.txt"} {
			name := fmt.Sprintf(f, i)
			writeFile(t, filepath.Join(out, name), outsideMarker, 0o644)
			outNames = append(outNames, name)
		}
		writeFile(t, filepath.Join(h.dir, "sub", fmt.Sprintf("r%d.txt", i)), "inside\n", 0o644)
		writeFile(t, filepath.Join(h.dir, "sub", fmt.Sprintf("d%d.txt", i)), "inside\n", 0o644)
	}
	// The outside w files exist, so a write that lands outside would
	// overwrite one; unread, the guard refuses that, so remove half of them
	// to let a leaked write create a file instead.
	for i := 0; i < n; i += 2 {
		name := fmt.Sprintf("w%d.txt", i)
		os.Remove(filepath.Join(out, name))
		for j, o := range outNames {
			if o == name {
				outNames = append(outNames[:j], outNames[j+1:]...)
				break
			}
		}
	}
	if err := os.Symlink(out, filepath.Join(h.dir, "link")); err != nil {
		t.Fatal(err)
	}
	var asked atomic.Int64
	ans := &answerer{}
	ans.watch(h.k, func(kernel.Approval) kernel.Answer {
		asked.Add(1)
		return kernel.Answer{Choice: kernel.Deny, Message: "denied by the test"}
	})
	sess := h.session("auto")
	sw := startSwapper(t, filepath.Join(h.dir, "sub"), filepath.Join(h.dir, "link"))
	run := h.runIn(context.Background(), sess.ID, "race")
	sw.finish(t)
	if run.Status != kernel.RunCompleted {
		t.Fatalf("run %s: %s", run.Status, run.Error)
	}
	res := h.results(run.ID)
	var leaked, clean, acted [3]int
	for i := range n {
		for k, id := range []string{fmt.Sprintf("r%d", i), fmt.Sprintf("w%d", i), fmt.Sprintf("d%d", i)} {
			r := res[id]
			switch {
			case r == nil:
				t.Fatalf("%s has no result", id)
			case strings.Contains(r.Text, outsideMarker):
				leaked[k]++
				t.Errorf("%s returned an outside file to the model: %q", id, r.Text)
			case r.IsError:
				clean[k]++
			default:
				acted[k]++
			}
		}
	}
	t.Logf("%d swaps, %d asked; reads %d acted/%d refused, writes %d/%d, deletes %d/%d",
		sw.swaps.Load(), asked.Load(), acted[0], clean[0], acted[1], clean[1], acted[2], clean[2])
	outsideIntact(t, out, outNames)
	trashed := trashHoldsNoOutsideFile(t, trashDir, out)
	// Every delete reported done moved an inside file; every write
	// reported done is inside.
	for i := range n {
		d := filepath.Join(h.dir, "sub", fmt.Sprintf("d%d.txt", i))
		if _, err := os.Lstat(d); (err == nil) == !res[fmt.Sprintf("d%d", i)].IsError {
			t.Errorf("d%d: result %q, but the file is there: %v", i, res[fmt.Sprintf("d%d", i)].Text, err == nil)
		}
		w := filepath.Join(h.dir, "sub", fmt.Sprintf("w%d.txt", i))
		if _, err := os.Lstat(w); (err == nil) == res[fmt.Sprintf("w%d", i)].IsError {
			t.Errorf("w%d: result %q, file there: %v", i, res[fmt.Sprintf("w%d", i)].Text, err == nil)
		}
	}
	for i := range n / 3 {
		if r := res[fmt.Sprintf("g%d", i)]; r == nil || strings.Contains(r.Text, outsideMarker+"\n") || strings.Contains(r.Text, ":1:"+outsideMarker) {
			t.Errorf("g%d returned an outside file's line to the model: %+v", i, r)
		}
	}
	if trashed != acted[2] {
		t.Errorf("%d items in the trash; want %d, one per delete done", trashed, acted[2])
	}
	if sw.swaps.Load() == 0 {
		t.Fatal("the swapper never ran")
	}
}
