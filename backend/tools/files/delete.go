package files

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strings"

	"foya/backend/approval"
	"foya/backend/tools"
	"foya/backend/trash"
)

//go:embed tool_delete.md
var deleteDescription string

type deleteTool struct{ e *env }

func (deleteTool) Spec() tools.Spec {
	return tools.Spec{
		Name:        DeleteName,
		Description: strings.TrimSpace(deleteDescription),
		Exposure:    tools.Direct,
		Schema:      deleteSchema,
	}
}

// ParallelSafe implements tools.Parallel: deletes are never parallel (spec P5).
func (deleteTool) ParallelSafe(tools.Call) bool { return false }

type deleteArgs struct {
	Path string `json:"path" jsonschema:"required"`
}

var deleteSchema = tools.SchemaOf[deleteArgs]()

func (t deleteTool) Run(ctx context.Context, rc *tools.RunContext, call tools.Call) (tools.Result, error) {
	var a deleteArgs
	if err := tools.Decode(call, &a); err != nil {
		return tools.Errorf("delete: %v", err), nil
	}
	sid, dir := sessionOf(rc)
	tg, err := resolve(dir, a.Path, false)
	if err != nil {
		return tools.Errorf("delete: %v", err), nil
	}
	defer tg.close()
	kind := deleteKind(tg)
	if tg.FSRoot || kind == approval.DeleteRoot {
		// spec D4: the filesystem root never goes, whatever the gateway
		// says; it is still asked, so the attempt is on record.
		if res, err := ask(ctx, rc, call, approval.DeleteRoot, "move the filesystem root "+tg.Real+" to the trash", "", tg.Real); err != nil {
			return tools.Result{}, err
		} else if res != nil {
			return *res, nil
		}
		return tools.Errorf("delete: %s is the root of the filesystem, which is never deleted, in any mode; nothing was deleted", tg.Real), nil
	}
	if msg := t.e.fence(rc).deleteRefusal(tg.Real); msg != "" {
		return tools.Errorf("%s", msg), nil
	}
	l := tg.loc()
	before, err := snapshot(l, MaxKeep)
	if err != nil && !errors.Is(err, errTooLarge) && !before.Exists {
		return tools.Errorf("delete: %s", openError(tg.Show(), err)), nil
	}
	if !before.Exists {
		return tools.Errorf("delete: %s does not exist; nothing was deleted", tg.Show()), nil
	}
	what := describe(tg, l, before)
	if res, err := ask(ctx, rc, call, kind, "move "+what+" to the trash", "", tg.Real); res != nil || err != nil {
		return deref(res), err
	}
	// Held until the change is stored: no look at the workspace may take
	// it for a background command's change or one made outside Foya.
	// What a live background command changed at tg (or below it) is recorded
	// first, as that command's.
	if _, err := rc.LockChanges(ctx, tg.Real); err != nil {
		return tools.Errorf("delete: %s was not deleted: %v", tg.Show(), err), nil
	}
	now, err := snapshot(l, MaxKeep)
	if isEscape(err) {
		return tools.Errorf("delete: %s", openError(tg.Show(), err)), nil
	}
	if !sameFile(now, before) {
		return tools.Errorf("delete: %s changed while this call waited for approval; nothing was deleted: look at it again first", tg.Show()), nil
	}
	item, err := trashLoc(t.e.trash, l)
	if isEscape(err) {
		return tools.Errorf("delete: %s", openError(tg.Show(), err)), nil
	}
	if err != nil {
		msg := err.Error()
		if errors.Is(err, trash.ErrUnsupported) {
			msg = "no trash can take it (" + msg + ")"
		}
		return tools.Errorf("delete: could not move %s to the trash: %s; nothing was deleted (Foya never deletes for good)", tg.Show(), msg), nil
	}
	change := makeChange("delete", tg.Real, tg.Workdir, before, state{})
	change.TrashPath, change.TrashInfo = item.TrashedPath, item.InfoPath
	note := ""
	if err := record(ctx, t.e.reads, sid, tg.Real, state{}, false); err != nil {
		note = fmt.Sprintf(" (%v.)", err)
	}
	kept := ""
	if !before.IsDir && before.Data == nil {
		kept = " It is too large for Foya to keep a copy: the trash holds the only one."
	}
	text := fmt.Sprintf("Moved %s to the trash. It can be restored from the trash, or by reverting this change.%s%s", what, kept, note)
	return tools.Result{Text: text, FileChanges: []tools.FileChange{change}, DisplayDiff: change.Diff}, nil
}

// trashLoc moves l to the trash. Beneath the workspace root it opens l's
// folder through the root and moves the entry from that descriptor
// (trash.PutAt), so no path is resolved again between the checks and the
// move; a plain path goes by its path.
func trashLoc(tr Trash, l loc) (trash.Item, error) {
	if l.root == nil || l.isRoot() {
		return tr.Put(l.path)
	}
	dir, err := l.parent().openDirFile()
	if err != nil {
		return trash.Item{}, err
	}
	defer dir.Close()
	return tr.PutAt(dir, l.base(), l.path)
}

// describe names what is at tg for messages: "the folder x (3 files, 2 KiB)".
func describe(tg target, l loc, st state) string {
	switch {
	case st.IsDir:
		files, bytes, more := countTree(l)
		if more {
			return fmt.Sprintf("the folder %s (more than %d entries)", tg.Show(), countLimit)
		}
		return fmt.Sprintf("the folder %s (%s, %s)", tg.Show(), plural(files, "file", "files"), Size(bytes))
	case st.Link:
		return fmt.Sprintf("the link %s (to %s)", tg.Show(), st.Data)
	}
	return fmt.Sprintf("%s (%s)", tg.Show(), Size(st.Size))
}

// countTree counts the files and bytes below the folder l, stopping after
// countLimit entries. It descends from folder descriptor to folder
// descriptor without following links (as the walk does), so it never
// looks outside the workspace.
func countTree(l loc) (files int, bytes int64, more bool) {
	h, err := openDirHandle(l)
	if err != nil {
		return 0, 0, false
	}
	n := 0
	var count func(h *dirHandle)
	count = func(h *dirHandle) {
		defer h.close()
		list, _ := h.readDir()
		for _, d := range list {
			if n++; n > countLimit {
				more = true
				return
			}
			switch {
			case d.Type().IsRegular():
				files++
				if size, _, err := h.lstat(d.Name()); err == nil {
					bytes += size
				}
			case d.IsDir():
				if sub, err := h.openDir(d.Name()); err == nil {
					count(sub)
				}
			}
			if more {
				return
			}
		}
	}
	count(h)
	return files, bytes, more
}

const countLimit = 20_000

var (
	_ tools.Tool     = deleteTool{}
	_ tools.Parallel = deleteTool{}
)
