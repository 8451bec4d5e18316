package files

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"foya/backend/llm"
	"foya/backend/tools"
)

// recoverOf asks tool, as recovery does, about a call of it with args that
// was running when Foya died; prior answers from changes.
func (f *fixture) recoverOf(tool string, args any, changes []tools.FileChange) []tools.FileChange {
	f.t.Helper()
	b, _ := json.Marshal(args)
	prior := func(ctx context.Context, path string) (llm.FileChange, []byte, bool, error) {
		for i := len(changes) - 1; i >= 0; i-- {
			if changes[i].Path == path {
				return changes[i].FileChange, changes[i].After, true, nil
			}
		}
		return llm.FileChange{}, nil, false, nil
	}
	got, err := f.tools[tool].(tools.Recoverable).Recover(context.Background(), f.rc, tools.Call{ID: "c", Name: tool, Arguments: b}, prior)
	if err != nil {
		f.t.Fatal(err)
	}
	return got
}

// A write, edit or delete that Foya died in the middle of (the crash
// harness, tests/crash, kills foya exec there) leaves no temporary file,
// and what it changed is returned as an unconfirmed change from what the
// records say the path held: the newest change (so it can be reverted),
// else the stale-read guard, else, for a write whose content is on disk
// and nothing is known, nothing. A call that changed nothing, or of whose
// path nothing is known, gives none: what recovery records must be
// revertible, and nothing it does not know is claimed.
//
// spec: X2, F1, D1, K1
func TestRecoverInterruptedFileCalls(t *testing.T) {
	f := newFixture(t)
	first := f.ok("write", map[string]any{"path": "a.txt", "content": "one\n"}).FileChanges

	// Killed between the temporary file and the rename: no change, and the
	// temporary file goes.
	tmp := f.path(tempPrefix + "0123456789abcdef.tmp")
	f.put(tempPrefix+"0123456789abcdef.tmp", "two\n", 0o600)
	f.put("keep.tmp", "not ours\n", 0o644)
	if got := f.recoverOf("write", map[string]any{"path": "a.txt", "content": "two\n"}, first); len(got) != 0 {
		t.Errorf("a write that never renamed: changes %+v; want none", got)
	}
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Errorf("the temporary file is still there (%v)", err)
	}
	if f.get("keep.tmp") != "not ours\n" {
		t.Error("a file that is not a temporary one of ours went")
	}

	// Killed after the rename, before the change was stored.
	f.put("a.txt", "two\n", 0o644)
	got := f.recoverOf("write", map[string]any{"path": "a.txt", "content": "two\n"}, first)
	if len(got) != 1 {
		t.Fatalf("a write that renamed: changes %+v; want one", got)
	}
	fc := got[0]
	if !fc.Unconfirmed || fc.Op != "write" || fc.Path != f.path("a.txt") || fc.SHABefore != first[0].SHAAfter || fc.SHAAfter != digest([]byte("two\n")) ||
		string(fc.Before) != "one\n" || string(fc.After) != "two\n" || !strings.Contains(fc.Diff, "+two") || fc.ModeBefore != first[0].ModeAfter {
		t.Errorf("change %+v; want an unconfirmed write from one to two", fc.FileChange)
	}

	// An edit of a file the session only read: the digest it saw.
	f.put("b.txt", "alpha\n", 0o644)
	f.ok("read", map[string]any{"path": "b.txt"})
	f.put("b.txt", "beta\n", 0o644)
	got = f.recoverOf("edit", map[string]any{"path": "b.txt", "old_string": "alpha", "new_string": "beta"}, first)
	if len(got) != 1 || !got[0].Unconfirmed || got[0].SHABefore != digest([]byte("alpha\n")) || got[0].Before != nil || got[0].Op != "edit" {
		t.Errorf("an edit of a read file: %+v; want one unconfirmed change from the digest read", got)
	}

	// A write nothing is known of: its content on disk means it created
	// the file (the guard refuses to overwrite a file never seen); other
	// content means nothing can be said.
	f.put("c.txt", "made\n", 0o644)
	if got := f.recoverOf("write", map[string]any{"path": "c.txt", "content": "made\n"}, nil); len(got) != 1 || got[0].Op != "create" || got[0].ExistedBefore {
		t.Errorf("a write that created its file: %+v; want an unconfirmed create", got)
	}
	f.put("d.txt", "someone's\n", 0o644)
	if got := f.recoverOf("write", map[string]any{"path": "d.txt", "content": "mine\n"}, nil); len(got) != 0 {
		t.Errorf("a write of a file nothing is known of: %+v; want none", got)
	}

	// A delete that moved the file to the trash, before its change was
	// stored: gone, from the newest change's after side.
	os.Remove(f.path("a.txt"))
	got = f.recoverOf("delete", map[string]any{"path": "a.txt"}, first)
	if len(got) != 1 || got[0].Op != "delete" || got[0].ExistsAfter || !got[0].ExistedBefore || string(got[0].Before) != "one\n" {
		t.Errorf("an interrupted delete: %+v; want an unconfirmed delete of one", got)
	}

	// Arguments that name no path, or a path outside any folder: nothing.
	for _, args := range []any{map[string]any{}, "not an object", map[string]any{"path": filepath.Join(f.dir, "no", "such", "x")}} {
		if got := f.recoverOf("write", args, first); len(got) != 0 {
			t.Errorf("recover of %v: %+v; want none", args, got)
		}
	}
}
