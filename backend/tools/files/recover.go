package files

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"foya/backend/tools"
)

// Recover implements tools.Recoverable: see recoverCall.
func (t writeTool) Recover(ctx context.Context, rc *tools.RunContext, call tools.Call, prior tools.Prior) ([]tools.FileChange, error) {
	return t.e.recoverCall(ctx, rc, call, prior, WriteName)
}

// Recover implements tools.Recoverable: see recoverCall.
func (t editTool) Recover(ctx context.Context, rc *tools.RunContext, call tools.Call, prior tools.Prior) ([]tools.FileChange, error) {
	return t.e.recoverCall(ctx, rc, call, prior, EditName)
}

// Recover implements tools.Recoverable: see recoverCall.
func (t deleteTool) Recover(ctx context.Context, rc *tools.RunContext, call tools.Call, prior tools.Prior) ([]tools.FileChange, error) {
	return t.e.recoverCall(ctx, rc, call, prior, DeleteName)
}

// recoverCall looks at the path of a write, edit or delete that was
// running when Foya died. A write or edit may have left its temporary
// file in the path's folder (a kill between writeAtomic's create and
// rename): those go. Then, when the path no longer holds what the
// session's records say it held before the call, the change is returned,
// from that state to what is there now, for the engine to store as
// unconfirmed. What the path held before is, in order: the after side of
// its newest File Change (whose blob makes the change revertible); the
// stale-read guard's record (the digest the session saw, or that it knew
// the path absent); for a write only, nothing at all when the path now
// holds exactly the call's content (the guard refuses to overwrite a file
// the session never saw, so the write created it). Otherwise nothing is
// known and nothing is returned: the result's "interrupted, not replayed"
// says to check.
//
// A temporary file of another live kernel writing to the same folder at
// this moment would go too; its write then fails and says the file is
// unchanged, which is true.
func (e *env) recoverCall(ctx context.Context, rc *tools.RunContext, call tools.Call, prior tools.Prior, tool string) ([]tools.FileChange, error) {
	var a struct {
		Path    string  `json:"path"`
		Content *string `json:"content"`
	}
	if json.Unmarshal(call.Arguments, &a) != nil || a.Path == "" {
		return nil, nil // it never got as far as a path
	}
	sid, dir := sessionOf(rc)
	tg, err := resolve(dir, a.Path, tool != DeleteName)
	if err != nil {
		return nil, nil
	}
	defer tg.close()
	if (fence{database: resolveAll(e.database)}).isDatabase(tg.Real) {
		return nil, nil // refused before it touched anything; never opened
	}
	l := tg.loc()
	if tool != DeleteName {
		if err := removeTemps(l.parent()); err != nil {
			return nil, fmt.Errorf("recover %s: %w", tool, err)
		}
	}
	now, err := snapshot(l, MaxKeep)
	if err != nil && !errors.Is(err, errTooLarge) {
		return nil, nil // not a file the call could have written
	}
	before, known, err := e.priorState(ctx, sid, tg.Real, prior)
	if err != nil {
		return nil, fmt.Errorf("recover %s: %w", tool, err)
	}
	if !known && tool == WriteName && a.Content != nil && now.Exists && bytes.Equal(now.Data, []byte(*a.Content)) {
		before, known = state{}, true
	}
	if !known || sameFile(before, now) || before.SHA != "" && before.Exists == now.Exists && before.SHA == now.SHA && before.Mode == 0 {
		return nil, nil
	}
	op := tool
	switch {
	case !now.Exists:
		op = DeleteName
	case !before.Exists:
		op = "create"
	case tool == DeleteName:
		op = WriteName // the path holds something else than before, not nothing
	}
	change := makeChange(op, tg.Real, tg.Workdir, before, now)
	change.Unconfirmed = true
	return []tools.FileChange{change}, nil
}

// priorState is what the session's records say path held last, and
// whether they say anything (see recoverCall).
func (e *env) priorState(ctx context.Context, sid, path string, prior tools.Prior) (state, bool, error) {
	if prior != nil {
		fc, data, ok, err := prior(ctx, path)
		if err != nil {
			return state{}, false, err
		}
		if ok {
			st := state{Exists: fc.ExistsAfter, IsDir: fc.IsDir && fc.ExistsAfter, Mode: fc.ModeAfter, SHA: fc.SHAAfter, Data: data}
			st.Link = st.Mode&modeTypeMask == modeSymlink
			st.Size = int64(len(data))
			return st, true, nil
		}
	}
	rec, found, err := e.reads.GetRead(ctx, sid, path)
	switch {
	case err != nil:
		return state{}, false, err
	case found && rec.Absent:
		return state{}, true, nil
	case found && rec.SHA256 != "":
		// The digest only: no mode, no content to restore.
		return state{Exists: true, SHA: rec.SHA256, Size: rec.Size}, true, nil
	}
	return state{}, false, nil
}

// removeTemps removes writeAtomic's temporary files from the folder dir.
func removeTemps(dir loc) error {
	root, err := dir.openFolder()
	if err != nil {
		return nil // no folder, no temporary file
	}
	defer root.Close()
	f, err := root.Open(".")
	if err != nil {
		return nil
	}
	names, err := f.Readdirnames(-1)
	f.Close()
	if err != nil {
		return fmt.Errorf("list %s: %w", dir.show, err)
	}
	var errs []error
	for _, n := range names {
		if strings.HasPrefix(n, tempPrefix) && strings.HasSuffix(n, ".tmp") {
			if err := root.Remove(n); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

var (
	_ tools.Recoverable = writeTool{}
	_ tools.Recoverable = editTool{}
	_ tools.Recoverable = deleteTool{}
)
