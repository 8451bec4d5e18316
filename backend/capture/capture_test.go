package capture

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"foya/backend/event"
	"foya/backend/llm"
	"foya/backend/tools/shell"
	"foya/backend/workspace"
)

// spec: F1 — the look before a shell command reports what changed since
// the last look as a change outside Foya (the read record marked, a
// file.changed_outside event), except what Foya's own tools left there,
// and blames neither on the command about to run.
func TestBeforeReportsOnlyOutsideChanges(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	edited, own := filepath.Join(dir, "edited.txt"), filepath.Join(dir, "own.txt")
	write(t, edited, "one\n")
	write(t, own, "one\n")
	st := newStore()
	c, _ := newCapture(t, st, t.TempDir(), commands{})
	if err := c.Before(ctx, "s", dir, nil); err != nil {
		t.Fatal(err)
	}
	c.After(ctx, "s", dir)
	st.read(t, "s", edited)
	st.read(t, "s", own)

	write(t, edited, "an editor's change\n")
	write(t, own, "Foya's write\n")
	st.wrote(t, "s", own)
	if err := c.Before(ctx, "s", dir, nil); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, ev := range st.eventsOf(event.TypeFileChangedOutside) {
		var d event.FileChangedOutsideData
		if err := json.Unmarshal(ev.Data, &d); err != nil {
			t.Fatal(err)
		}
		got = append(got, d.Path)
	}
	if !slices.Equal(got, []string{edited}) {
		t.Fatalf("file.changed_outside for %q; want %s only (own.txt is what Foya's write left)", got, edited)
	}
	if r, _, _ := st.GetRead(ctx, "s", edited); !r.Outside {
		t.Fatal("the read record of the edited file is not marked as changed")
	}
	if r, _, _ := st.GetRead(ctx, "s", own); r.Outside {
		t.Fatal("the read record of Foya's own write was marked as changed outside")
	}
	if fcs, _, err := c.After(ctx, "s", dir); err != nil || len(fcs) != 0 {
		t.Fatalf("After a command that changed nothing: %d changes (%v); want none", len(fcs), err)
	}
	if n := len(st.committed()); n != 0 {
		t.Fatalf("%d commits; want none: nothing is a command's", n)
	}
}

// spec: F1 — with a live background command, the look before the next
// command gives what changed to that command, recorded against its call
// (tool bash, a file.captured event); the saved index never runs ahead of
// those records: while they cannot be stored, a kernel started after a
// crash still finds the change (Recover), and once they are, it does not.
func TestLookWithALiveCommandSavesTheIndexOnlyOnceRecorded(t *testing.T) {
	ctx := context.Background()
	dir, data := t.TempDir(), t.TempDir()
	out := filepath.Join(dir, "out.txt")
	write(t, out, "before\n")
	st := newStore()
	live := &shell.Live{RunID: "run_1", CallID: "call_bg"}
	c, _ := newCapture(t, st, data, commands{live: live})
	if err := c.Before(ctx, "s", dir, nil); err != nil {
		t.Fatal(err)
	}
	c.After(ctx, "s", dir)

	// recovered is what a kernel started now, on the saved index, finds.
	recovered := func() []string {
		t.Helper()
		ws := workspace.New(workspace.Options{Dir: data})
		defer ws.Close()
		cp, err := ws.Recover(ctx, "s", dir)
		if err != nil {
			t.Fatal(err)
		}
		var paths []string
		for _, fc := range cp.Changes {
			paths = append(paths, fc.Path)
		}
		return paths
	}
	if got := recovered(); len(got) != 0 {
		t.Fatalf("recovery before any change finds %q", got)
	}

	write(t, out, "the background command's output\n")
	st.failing = errors.New("database is locked")
	// The records cannot be stored: the command must not run (its own
	// changes could not be kept either), and says why.
	if err := c.Before(ctx, "s", dir, live); err == nil || !strings.Contains(err.Error(), "database is locked") {
		t.Fatalf("Before with the store failing: %v; want its error", err)
	}
	if got := recovered(); !slices.Equal(got, []string{out}) {
		t.Fatalf("with the records not stored, recovery finds %q; want %s: the saved index ran ahead", got, out)
	}

	st.failing = nil
	write(t, out, "more output\n")
	if err := c.Before(ctx, "s", dir, live); err != nil {
		t.Fatal(err)
	}
	c.After(ctx, "s", dir)
	cms := st.committed()
	if len(cms) != 1 || len(cms[0].FileChanges) != 1 {
		t.Fatalf("commits of %q; want one with the command's change", recordedPaths(cms))
	}
	fc := cms[0].FileChanges[0]
	if fc.Path != out || fc.Tool != "bash" || fc.CallID != "call_bg" || fc.RunID != "run_1" {
		t.Fatalf("recorded %s by %s for call %s of run %s; want %s by bash for call_bg of run_1", fc.Path, fc.Tool,
			fc.CallID, fc.RunID, out)
	}
	if evs := cms[0].Events; len(evs) != 1 || evs[0].Type != event.TypeFileCaptured || evs[0].RunID != "run_1" {
		t.Fatalf("%d events (%+v); want one file.captured of run_1", len(evs), evs)
	}
	if got := recovered(); len(got) != 0 {
		t.Fatalf("with the records stored, recovery finds %q again", got)
	}
}

// spec: F1 — before a file tool changes a path, what a live background
// command changed there and no look has found yet is recorded against the
// command's call (Changing), so the tool's record starts from it and the
// path's records have no hole. Without a live command nothing is looked
// at.
func TestChangingRecordsTheLiveCommandsChangeFirst(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	p, other := filepath.Join(dir, "p.txt"), filepath.Join(dir, "other.txt")
	write(t, p, "one\n")
	write(t, other, "one\n")
	st := newStore()
	cmds := &commands{}
	c, _ := newCapture(t, st, t.TempDir(), cmds)
	if err := c.Before(ctx, "s", dir, nil); err != nil {
		t.Fatal(err)
	}
	c.After(ctx, "s", dir)

	write(t, p, "the command's\n")
	c.Changing(ctx, "s", dir, []string{p})
	if n := len(st.committed()); n != 0 {
		t.Fatalf("%d commits without a live command; want none", n)
	}

	cmds.live = &shell.Live{RunID: "run_1", CallID: "call_bg", Others: true}
	write(t, other, "also the command's\n")
	c.Changing(ctx, "s", dir, []string{p})
	cms := st.committed()
	if len(cms) != 1 {
		t.Fatalf("%d commits; want the command's change at %s", len(cms), p)
	}
	fcs := cms[0].FileChanges
	if len(fcs) != 1 || fcs[0].Path != p || fcs[0].CallID != "call_bg" || fcs[0].Tool != "bash" || !fcs[0].Unconfirmed {
		t.Fatalf("recorded %q (%+v); want %s by bash for call_bg, unconfirmed (another command lives), and not %s",
			recordedPaths(cms), fcs, p, other)
	}

	// A record the store refuses is the tool's error: it must change
	// nothing, since its own record could not be kept either.
	write(t, p, "the command's again\n")
	st.failing = errors.New("disk full")
	if err := c.Changing(ctx, "s", dir, []string{p}); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("Changing with the store failing: %v; want its error", err)
	}
}

// spec: F1 — a change that leaves a path as the session's newest File
// Change of it says is Foya's own tools', not the background command's:
// Record leaves it out; one that does not starts from that record.
func TestRecordLeavesOutWhatFoyasOwnToolsLeft(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	own, cmd := filepath.Join(dir, "own.txt"), filepath.Join(dir, "cmd.txt")
	write(t, own, "one\n")
	write(t, cmd, "one\n")
	st := newStore()
	c, _ := newCapture(t, st, t.TempDir(), commands{})
	if err := c.Before(ctx, "s", dir, nil); err != nil {
		t.Fatal(err)
	}
	c.After(ctx, "s", dir)
	write(t, own, "Foya's write\n")
	st.wrote(t, "s", own)
	write(t, cmd, "the command's\n")
	fcs, _, err := c.After(ctx, "s", dir)
	if err != nil || len(fcs) != 2 {
		t.Fatalf("After: %d changes (%v); want 2", len(fcs), err)
	}
	if err := c.Record(ctx, "s", "run_1", "call_bg", fcs); err != nil {
		t.Fatal(err)
	}
	cms := st.committed()
	if len(cms) != 1 || len(cms[0].FileChanges) != 1 || cms[0].FileChanges[0].Path != cmd {
		t.Fatalf("commits of %q; want one with %s only", recordedPaths(cms), cmd)
	}

	// Nothing new: nothing stored.
	if err := c.Record(ctx, "s", "run_1", "call_bg", nil); err != nil || len(st.committed()) != 1 {
		t.Fatalf("Record of nothing: %v, %d commits; want no new commit", err, len(st.committed()))
	}
	st.failing = errors.New("disk full")
	write(t, cmd, "again\n")
	fcs, _, _ = c.After(ctx, "s", dir)
	if err := c.Record(ctx, "s", "run_1", "call_bg", fcs); err == nil {
		t.Fatal("Record with a store that fails returned nil; want its error")
	}
}

// spec: F1 — the changes a shell command made are the command's: the
// session's read records of them are marked (the model reads them again
// before it writes them) without a file.changed_outside event, and the
// watcher, which held the paths it saw change while the command ran,
// reports an editor's change after the command still.
func TestAfterMarksTheCommandsFilesWithoutAnOutsideEvent(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	p := filepath.Join(dir, "p.txt")
	write(t, p, "one\n")
	st := newStore()
	c, _ := newCapture(t, st, t.TempDir(), commands{})
	st.read(t, "s", p)
	if err := c.Before(ctx, "s", dir, nil); err != nil {
		t.Fatal(err)
	}
	write(t, p, "the command's\n")
	c.checkOutside(ctx, "s", p) // the watcher's event while the command runs
	if evs := st.eventsOf(event.TypeFileChangedOutside); len(evs) != 0 {
		t.Fatalf("the watcher reported the running command's change: %s", evs[0].Data)
	}
	fcs, _, err := c.After(ctx, "s", dir)
	if err != nil || len(fcs) != 1 {
		t.Fatalf("After: %d changes (%v); want 1", len(fcs), err)
	}
	if r, _, _ := st.GetRead(ctx, "s", p); !r.Outside {
		t.Fatal("the read record of the command's file is not marked as changed")
	}
	if evs := st.eventsOf(event.TypeFileChangedOutside); len(evs) != 0 {
		t.Fatalf("file.changed_outside for the command's own change: %s", evs[0].Data)
	}

	write(t, p, "an editor's change after the command\n")
	c.checkOutside(ctx, "s", p)
	evs := st.eventsOf(event.TypeFileChangedOutside)
	if len(evs) != 1 {
		t.Fatalf("%d file.changed_outside events after an editor's change; want 1", len(evs))
	}
}

// spec: B1 — a kernel started after the owner of background commands died
// gives each session's newest one what its workspace shows changed and
// marks them all ended; commands of a live owner are left alone.
func TestRecoverJobsOfOwnersThatAreGone(t *testing.T) {
	ctx := context.Background()
	js := &jobStore{alive: []Job{
		{ID: "job_1", SessionID: "s1", RunID: "run_1", CallID: "call_1", Owner: "own_dead"},
		{ID: "job_2", SessionID: "s1", RunID: "run_2", CallID: "call_2", Owner: "own_dead"},
		{ID: "job_3", SessionID: "s2", RunID: "run_3", CallID: "call_3", Owner: "own_live"},
	}}
	var recovered []string
	released := 0
	c := New(Deps{Jobs: js, Owner: "own_me", NewID: func(prefix string) string { return prefix + "_new" },
		Gone: func(owner string) (func(), bool) {
			if owner != "own_dead" {
				return nil, false
			}
			return func() { released++ }, true
		},
		RecoverJob: func(ctx context.Context, sessionID, runID, callID string) error {
			recovered = append(recovered, sessionID+"/"+callID)
			return nil
		}})
	if err := c.RecoverJobs(ctx); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(recovered, []string{"s1/call_2"}) {
		t.Fatalf("recovered %q; want s1/call_2 (the dead owner's newest of the session)", recovered)
	}
	if !slices.Equal(js.ended, []string{"job_1", "job_2"}) || released != 1 {
		t.Fatalf("ended %q, released %d claims; want job_1 and job_2, one", js.ended, released)
	}

	// The shell's record of a command that starts: this kernel owns it.
	id, err := c.Jobs().Started(ctx, "s3", "run_4", "call_4")
	if err != nil || len(js.started) != 1 || js.started[0].ID != id || js.started[0].Owner != "own_me" {
		t.Fatalf("Started: %v, stored %+v; want one job %s owned by own_me", err, js.started, id)
	}
}

type jobStore struct {
	alive, started []Job
	ended          []string
}

func (j *jobStore) StartJob(ctx context.Context, job Job) error {
	j.started = append(j.started, job)
	return nil
}

func (j *jobStore) EndJobs(ctx context.Context, at time.Time, ids ...string) error {
	j.ended = append(j.ended, ids...)
	return nil
}

func (j *jobStore) AliveJobs(ctx context.Context) ([]Job, error) { return j.alive, nil }

// recordedPaths returns the paths of the File Changes of commits, in order.
func recordedPaths(commits []llm.Commit) [][]string {
	var out [][]string
	for _, c := range commits {
		var paths []string
		for _, fc := range c.FileChanges {
			paths = append(paths, fc.Path)
		}
		out = append(out, paths)
	}
	return out
}
