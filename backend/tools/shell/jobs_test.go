//go:build unix

package shell

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"foya/backend/approval"
	"foya/backend/llm"
	"foya/backend/tools"
)

// heldCapture is a Capture whose first After (a background command's
// capture at its end) waits until release is closed, and whose second
// finds one change; it logs what it is asked, with the Jobs calls.
type heldCapture struct {
	path             string
	entered, release chan struct{}

	mu    sync.Mutex
	n     int
	asked []string
}

func (c *heldCapture) note(s string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.asked = append(c.asked, s)
}

func (c *heldCapture) log() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.asked)
}

func (c *heldCapture) Before(ctx context.Context, sessionID, workdir string, live *Live) error {
	if live != nil {
		c.note(fmt.Sprintf("before, live %s %s others=%v", live.RunID, live.CallID, live.Others))
		return nil
	}
	c.note("before")
	return nil
}

func (c *heldCapture) After(ctx context.Context, sessionID, workdir string) ([]tools.FileChange, string, error) {
	c.mu.Lock()
	c.n++
	n := c.n
	c.mu.Unlock()
	c.note(fmt.Sprintf("after %d", n))
	switch n {
	case 1:
		close(c.entered)
		<-c.release
	case 2:
		return []tools.FileChange{{FileChange: llm.FileChange{Path: c.path, Op: "write", ExistedBefore: true, ExistsAfter: true}}}, "", nil
	}
	return nil, "", nil
}

func (c *heldCapture) Record(ctx context.Context, sessionID, runID, callID string, changes []tools.FileChange) error {
	c.note(fmt.Sprintf("record %s %s %d unconfirmed=%v", runID, callID, len(changes), changes[0].Unconfirmed))
	return nil
}

func (c *heldCapture) Started(ctx context.Context, sessionID, runID, callID string) (string, error) {
	c.note("started " + sessionID + " " + runID + " " + callID)
	return "job_1", nil
}

func (c *heldCapture) Ended(ctx context.Context, id string) error {
	c.note("ended " + id)
	return nil
}

// spec: B1, F1 — found by the crash harness (seed 7306): a
// background command that ended and whose capture has not looked yet is
// still given what changed since the last look by the look before the next
// command, not left to Before, which would take it for a change made
// outside Foya (and the command's capture would then find nothing). The
// command is stored through Jobs when it starts and ended after its
// capture.
func TestLookBeforeACommandGivesChangesToAnEndedUncapturedCommand(t *testing.T) {
	c := &heldCapture{entered: make(chan struct{}), release: make(chan struct{})}
	b := newBox(t, Options{Capture: c, Jobs: c})
	c.path = filepath.Join(b.ws, "a.txt")
	g := &gate{mode: approval.FullAccess}
	bg := b.rc("ses_1", g)
	bg.RunID = "run_bg"
	if res := b.bash(t, bg, map[string]any{"command": "true", "run_in_background": true}); res.IsError {
		t.Fatalf("start: %s", res.Text)
	}
	select {
	case <-c.entered: // it ended, and its capture is held
	case <-time.After(30 * time.Second):
		t.Fatal("the background command's capture never started")
	}
	fg := b.rc("ses_1", g)
	fg.RunID = "run_fg"
	if res := b.bash(t, fg, map[string]any{"command": "true"}); res.IsError {
		t.Fatalf("foreground: %s", res.Text)
	}
	close(c.release)
	b.sh.Close()
	// One look before the foreground command, which gives what it finds
	// to the live command (with two, a change made between them was
	// taken for an outside one).
	want := []string{"before", "started ses_1 run_bg call_1", "after 1",
		"before, live run_bg call_1 others=false", "after 2", "ended job_1"}
	if got := c.log(); !slices.Equal(got, want) {
		t.Fatalf("asked:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
