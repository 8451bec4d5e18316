package workspace

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"foya/backend/event"
	"foya/backend/llm"
	"foya/backend/tools"
	"foya/backend/tools/files"
)

// Capture is what a shell command changed, as File Changes ready for the
// engine (their contents before and after go to the store's blobs).
type Capture struct {
	Changes []tools.FileChange
	// Note says, for the model and the user, what could not be captured
	// whole; empty when everything was.
	Note string
}

// CaptureBudget bounds the contents (before and after) one capture holds
// in memory and hands to the store; changes past it are recorded with
// their digests and marked not restorable.
const CaptureBudget = 128 << 20

// maxCaptured bounds the changes one capture records; past it, a note says
// how many more there were.
const maxCaptured = 20_000

// capture turns changes into File Changes, one per path (onePerPath), in
// an order revert can undo newest first: deletions deepest first, then changes in place, then
// creations shallowest first (a folder before what is in it).
func (ix *index) capture(ctx context.Context, changes []Change) Capture {
	var del, mod, add []Change
	for _, c := range onePerPath(changes) {
		switch {
		case c.After == nil:
			del = append(del, c)
		case c.Before == nil:
			add = append(add, c)
		case c.Before.IsDir() != c.After.IsDir() || c.Before.Mode&modeTypeMask == modeDir:
			// A folder replaced by a file or link, or the other way: two
			// changes, so each undo deals with one kind of thing.
			b, a := c.Before, c.After
			del = append(del, Change{Path: c.Path, Before: b})
			add = append(add, Change{Path: c.Path, After: a})
		default:
			mod = append(mod, c)
		}
	}
	slices.SortFunc(del, func(a, b Change) int { return strings.Compare(b.Path, a.Path) })
	slices.SortFunc(mod, func(a, b Change) int { return strings.Compare(a.Path, b.Path) })
	slices.SortFunc(add, func(a, b Change) int { return strings.Compare(a.Path, b.Path) })
	// A created file with the content and inode of a deleted one was
	// renamed (or moved) there.
	from := map[[2]string]string{}
	for _, c := range del {
		if !c.Before.IsDir() && c.Before.SHA != "" && c.Before.Ino != 0 {
			from[[2]string{c.Before.SHA, fmt.Sprint(c.Before.Ino)}] = c.Path
		}
	}
	var out Capture
	budget := int64(CaptureBudget)
	all := append(append(del, mod...), add...)
	over := 0
	for _, c := range all {
		if len(out.Changes) >= maxCaptured {
			over++
			continue
		}
		fc := ix.change(ctx, c, &budget)
		if c.Before == nil && c.After != nil && !c.After.IsDir() {
			key := [2]string{c.After.SHA, fmt.Sprint(c.After.Ino)}
			if p, ok := from[key]; ok && c.After.SHA != "" {
				fc.Op, fc.RenamedFrom = event.OpRename, p
				delete(from, key)
			}
		}
		out.Changes = append(out.Changes, fc)
	}
	var notes []string
	if over > 0 {
		notes = append(notes, fmt.Sprintf("the command changed %d more paths than Foya records at once (%d); they are not recorded", over, maxCaptured))
	}
	if budget < 0 {
		notes = append(notes, fmt.Sprintf("the command changed more than %s of files at once; the changes past that are recorded without their contents and cannot be reverted", files.Size(CaptureBudget)))
	}
	if !ix.full {
		notes = append(notes, fmt.Sprintf("the workspace has more than %d paths, more than the index tracks; changes past them are not recorded", MaxEntries))
	}
	out.Note = strings.Join(notes, "; ")
	return out
}

// change builds one File Change, reading its contents from the blobs
// within budget.
func (ix *index) change(ctx context.Context, c Change, budget *int64) tools.FileChange {
	fc := llm.FileChange{Path: c.Path, ExistedBefore: c.Before != nil, ExistsAfter: c.After != nil}
	var before, after []byte
	var why string
	isDir := c.Before != nil && c.Before.IsDir() || c.After != nil && c.After.IsDir()
	fc.IsDir = isDir
	read := func(e *Entry) []byte {
		if e == nil || e.IsDir() {
			return nil
		}
		if !e.Kept {
			if why == "" {
				why = e.Why
				if why == "" {
					why = "Foya kept no copy of it"
				}
			}
			return nil
		}
		if *budget-e.Size < 0 {
			*budget = -1
			why = fmt.Sprintf("the command changed more than %s of files at once, so Foya kept only the digests", files.Size(CaptureBudget))
			return nil
		}
		data, err := ix.m.blobs.get(e.SHA)
		if err != nil {
			why = "Foya's copy of it is missing or damaged (" + err.Error() + ")"
			return nil
		}
		*budget -= int64(len(data))
		if data == nil {
			// An empty file kept is content all the same: nil would say
			// none was kept (the crash harness found a chmod of a
			// truncated file that could not be reverted).
			data = []byte{}
		}
		return data
	}
	if c.Before != nil {
		fc.ModeBefore, fc.SHABefore = c.Before.Mode, c.Before.SHA
		before = read(c.Before)
	}
	if c.After != nil {
		fc.ModeAfter, fc.SHAAfter = c.After.Mode, c.After.SHA
		after = read(c.After)
	}
	switch {
	case !fc.ExistedBefore:
		fc.Op = event.OpCreate
	case !fc.ExistsAfter:
		fc.Op = event.OpDelete
	case fc.SHABefore != "" && fc.SHABefore == fc.SHAAfter:
		fc.Op = event.OpChmod
	default:
		fc.Op = event.OpWrite
	}
	// A before side without its content cannot be restored; an after side
	// without a digest cannot be checked for later changes, so reverting
	// it could overwrite them.
	if !isDir && (fc.ExistedBefore && before == nil || fc.ExistsAfter && fc.SHAAfter == "") {
		if why == "" {
			why = "Foya kept no copy of it"
		}
		fc.NotRestorable = why
	}
	if !isDir && (before != nil || !fc.ExistedBefore) && (after != nil || !fc.ExistsAfter) {
		oldName, newName := files.DiffNames(c.Path, ix.root)
		d := files.Unified(oldName, newName, before, after, fc.ExistedBefore, fc.ExistsAfter)
		fc.Diff, fc.Added, fc.Removed, fc.Binary = d.Text, d.Added, d.Removed, d.Binary
	}
	return tools.FileChange{FileChange: fc, Before: before, After: after}
}
