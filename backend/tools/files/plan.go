package files

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"foya/backend/fspath"
	"foya/backend/llm"
	"foya/backend/tools"
)

// Plan returns what Revert would do with the same arguments, without
// changing anything: the revert changes it would record, in order (with
// no trash location yet for paths it would move to the trash), or the
// conflicts that would stop it. Each change is planned against the state
// the undoing of the newer ones leaves, as Check does, and the predicted
// after side is the change's before side: its recorded existence, mode
// and kept content.
func (rv *Reverter) Plan(ctx context.Context, workdir string, changes []llm.FileChange, force bool) ([]tools.FileChange, []Conflict, error) {
	sp, err := openSpace(workdir)
	if err != nil {
		return nil, nil, err
	}
	defer sp.close()
	conflicts, err := rv.check(ctx, sp, changes)
	if err != nil {
		return nil, nil, err
	}
	if len(conflicts) > 0 && (!force || slices.ContainsFunc(conflicts, func(c Conflict) bool { return !c.Forceable })) {
		return nil, conflicts, nil
	}
	pl := planner{sp: sp, states: map[string]state{}, from: map[string]string{}}
	var out []tools.FileChange
	for _, c := range changes {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		cur, err := pl.lookup(c.Path)
		if err != nil {
			return nil, nil, fmt.Errorf("revert %s: look at %s: %w", c.ID, c.Path, err)
		}
		if !c.ExistedBefore && !cur.Exists {
			continue // nothing left to undo, as undo finds
		}
		after, err := rv.before(ctx, c)
		if err != nil {
			return nil, nil, err
		}
		if c.IsDir {
			for p := range pl.states {
				if _, ok := fspath.Rel(c.Path, p); ok {
					delete(pl.states, p)
				}
			}
			if c.ExistedBefore && !c.ExistsAfter && c.TrashPath != "" {
				pl.from[c.Path] = c.TrashPath
			}
		}
		pl.states[c.Path] = after
		fc := makeChange("revert", c.Path, sp.wd, cur, after)
		fc.RevertOf, fc.Tool = c.ID, "revert"
		out = append(out, fc)
	}
	return out, nil, nil
}

// before is the state a change found at its path, as far as it was kept:
// what an undo of it restores. It fails where the undo would: a folder
// gone from the trash, a file too large to keep that is not in the trash.
func (rv *Reverter) before(ctx context.Context, c llm.FileChange) (state, error) {
	if !c.ExistedBefore {
		return state{}, nil
	}
	st := state{Exists: true, IsDir: c.IsDir, Mode: c.ModeBefore, Link: c.ModeBefore&modeTypeMask == modeSymlink}
	inTrash := !c.ExistsAfter && c.TrashPath != "" && present(c.TrashPath)
	switch {
	case c.IsDir && c.TrashPath != "" && !inTrash:
		return state{}, fmt.Errorf("revert %s: the folder %s is no longer in the trash (it was restored or emptied), and Foya keeps no copy of folders", c.ID, c.Path)
	case c.IsDir:
		return st, nil
	case c.SHABefore == "" && inTrash:
		return st, nil // comes back whole from the trash; too large to show
	case c.SHABefore == "":
		return state{}, fmt.Errorf("revert %s: %s is no longer in the trash, and it was too large for Foya to keep a copy", c.ID, c.Path)
	}
	data, err := rv.Blobs.Blob(ctx, c.SHABefore)
	if err != nil {
		return state{}, fmt.Errorf("revert %s: the content of %s before the change: %w", c.ID, c.Path, err)
	}
	st.Data, st.SHA, st.Size = data, c.SHABefore, int64(len(data))
	return st, nil
}

// present says whether something is at path (a trash item).
func present(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// planner holds what the undos planned so far leave at their paths.
type planner struct {
	sp     *space
	states map[string]state
	// from is where a folder planned to come back from the trash is now.
	from map[string]string
}

// lookup returns what path will hold once the planned undos have run:
// their own result, else what a folder restored from the trash holds
// there, else what the disk holds now.
func (p *planner) lookup(path string) (state, error) {
	if st, ok := p.states[path]; ok {
		return st, nil
	}
	l := p.sp.at(path)
	for dir := filepath.Dir(path); ; dir = filepath.Dir(dir) {
		if st, ok := p.states[dir]; ok {
			if !st.Exists || !st.IsDir {
				return state{}, nil
			}
			if from, ok := p.from[dir]; ok {
				rel, _ := fspath.Rel(dir, path)
				l = plainLoc(filepath.Join(from, rel))
			}
			break
		}
		if filepath.Dir(dir) == dir {
			break
		}
	}
	st, err := snapshot(l, MaxKeep)
	if err != nil && !errors.Is(err, errTooLarge) {
		return state{}, err
	}
	return st, nil
}
