package capture

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"foya/backend/event"
	"foya/backend/llm"
	"foya/backend/tools/files"
	"foya/backend/workspace"
)

// byPath is the fake store answering by path and by time (RecordsByPath),
// counting the calls that read a session's whole history.
type byPath struct {
	*store
	whole, allReads atomic.Int64
}

func (b *byPath) FileChanges(ctx context.Context, sessionID string) ([]llm.FileChange, error) {
	b.whole.Add(1)
	return b.store.FileChanges(ctx, sessionID)
}

func (b *byPath) FileReads(ctx context.Context, sessionID string) ([]files.Read, error) {
	b.allReads.Add(1)
	return b.store.FileReads(ctx, sessionID)
}

func (b *byPath) OwnChangesSince(ctx context.Context, sessionID string, since time.Time) ([]llm.FileChange, error) {
	all, err := b.store.FileChanges(ctx, sessionID)
	return slices.DeleteFunc(all, func(fc llm.FileChange) bool { return fc.CreatedAt.Before(since) || fc.Tool == "bash" }), err
}

func (b *byPath) LastFileChanges(ctx context.Context, sessionID string, paths []string) (map[string]llm.FileChange, error) {
	all, err := b.store.FileChanges(ctx, sessionID)
	out := map[string]llm.FileChange{}
	for _, fc := range all {
		if slices.Contains(paths, fc.Path) {
			out[fc.Path] = fc
		}
	}
	return out, err
}

// Issue 27 item 3: with records that answer by path and by time, the
// looks around a command never read the session's whole history of File
// Changes nor of reads, and find what they found before: outside changes
// but Foya's own, a command's changes marking the records it read.
// spec: F1
func TestLooksReadWhatTheyFindNotTheHistory(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	edited, own, cmd := filepath.Join(dir, "edited.txt"), filepath.Join(dir, "own.txt"), filepath.Join(dir, "cmd.txt")
	write(t, edited, "one\n")
	write(t, own, "one\n")
	write(t, cmd, "one\n")
	st := &byPath{store: newStore()}
	ws := workspace.New(workspace.Options{Dir: t.TempDir()})
	var n atomic.Int64
	c := New(Deps{Workspace: ws, Records: st, Reads: st, Timeline: st.store, Commands: commands{},
		NewID: func(prefix string) string { return fmt.Sprintf("%s_%d", prefix, n.Add(1)) }})
	t.Cleanup(func() {
		c.Close()
		ws.Close()
	})
	if err := c.Before(ctx, "s", dir, nil); err != nil {
		t.Fatal(err)
	}
	c.After(ctx, "s", dir)
	st.read(t, "s", edited)
	st.read(t, "s", own)
	st.read(t, "s", cmd)

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
		t.Fatalf("file.changed_outside for %q; want %s only", got, edited)
	}
	write(t, cmd, "the command's change\n")
	changes, _, err := c.After(ctx, "s", dir)
	if err != nil || len(changes) != 1 || changes[0].Path != cmd {
		t.Fatalf("After: %+v, %v; want the command's change to %s", changes, err, cmd)
	}
	if r, _, _ := st.GetRead(ctx, "s", cmd); !r.Outside {
		t.Fatal("the read record of the file the command changed is not marked")
	}
	if w, r := st.whole.Load(), st.allReads.Load(); w != 0 || r != 0 {
		t.Fatalf("the looks read the whole history %d times and every read record %d times; want neither", w, r)
	}
}
