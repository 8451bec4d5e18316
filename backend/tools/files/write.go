package files

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"foya/backend/tools"
)

//go:embed tool_write.md
var writeDescription string

// defaultMode is the mode of files write creates.
const defaultMode = modeRegular | 0o644

type writeTool struct{ e *env }

func (writeTool) Spec() tools.Spec {
	return tools.Spec{
		Name:        WriteName,
		Description: strings.TrimSpace(writeDescription),
		Exposure:    tools.Direct,
		Schema:      writeSchema,
	}
}

// ParallelSafe implements tools.Parallel: writes are never parallel (spec P5).
func (writeTool) ParallelSafe(tools.Call) bool { return false }

type writeArgs struct {
	Path    string  `json:"path" jsonschema:"required"`
	Content *string `json:"content" jsonschema:"required"`
}

var writeSchema = tools.SchemaOf[writeArgs]()

func (t writeTool) Run(ctx context.Context, rc *tools.RunContext, call tools.Call) (tools.Result, error) {
	var a writeArgs
	if err := tools.Decode(call, &a); err != nil {
		return tools.Errorf("write: %v", err), nil
	}
	if a.Content == nil {
		return tools.Errorf(`write: content is missing: give the whole new content of the file ("" for an empty file)`), nil
	}
	if res := t.tooLarge(ctx, int64(len(*a.Content))); res != nil {
		return *res, nil
	}
	sid, dir := sessionOf(rc)
	tg, err := resolve(dir, a.Path, true)
	if err != nil {
		return tools.Errorf("write: %v", err), nil
	}
	defer tg.close()
	if msg := t.e.fence(rc).writeRefusal(WriteName, tg.Real); msg != "" {
		return tools.Errorf("%s", msg), nil
	}
	content := []byte(*a.Content)
	before, err := snapshot(tg.loc(), MaxKeep)
	switch {
	case errors.Is(err, errTooLarge):
		return tools.Errorf("write: %s is %s, more than the %s write replaces (Foya keeps a copy of what it overwrites, to revert it); nothing was changed", tg.Show(), Size(before.Size), Size(MaxKeep)), nil
	case err != nil:
		return tools.Errorf("write: %s", openError(tg.Show(), err)), nil
	case before.IsDir:
		return tools.Errorf("write: %s is a folder; give the path of a file in it", tg.Show()), nil
	case before.Link:
		return tools.Errorf("write: %s is a symbolic link to %s, which does not exist; write to the path it should lead to instead", tg.Show(), before.Data), nil
	case strings.HasSuffix(a.Path, "/") || strings.HasSuffix(a.Path, string(filepath.Separator)):
		return tools.Errorf("write: %s ends with a slash, so it names a folder; give the path of a file", a.Path), nil
	}
	rec, found, err := t.e.reads.GetRead(ctx, sid, tg.Real)
	if err != nil {
		return tools.Result{}, fmt.Errorf("write: %w", err)
	}
	if msg := staleness(rec, found, before, tg.Show(), "write"); msg != "" {
		if found && !before.Exists {
			// The session now knows the file is gone: a second write creates it.
			if err := record(ctx, t.e.reads, sid, tg.Real, state{}, false); err != nil {
				return tools.Result{}, err
			}
		}
		return tools.Errorf("%s", msg), nil
	}
	if before.Exists && bytes.Equal(before.Data, content) {
		return tools.Text(fmt.Sprintf("%s already has exactly this content; nothing was changed.", tg.Show())), nil
	}
	mode, op := uint32(defaultMode), "create"
	if before.Exists {
		mode, op = before.Mode, "write"
	}
	after := state{Exists: true, Mode: mode, Data: content, SHA: digest(content), Size: int64(len(content))}
	change := makeChange(op, tg.Real, tg.Workdir, before, after)
	why := fmt.Sprintf("create %s (%s)", tg.Show(), plural(lineCount(content), "line", "lines"))
	if before.Exists {
		why = fmt.Sprintf("overwrite %s (+%d -%d lines)", tg.Show(), change.Added, change.Removed)
	}
	if res, err := ask(ctx, rc, call, writeKind(tg), why, change.Diff, tg.Real); res != nil || err != nil {
		return deref(res), err
	}
	note := ""
	res, dirs := t.e.commit(ctx, rc, sid, tg, before, &after, "write")
	if res != nil {
		if res.IsError {
			return *res, nil
		}
		note = " " + res.Text
	}
	change.ModeAfter = after.Mode
	text := fmt.Sprintf("Created %s (%s, %s).", tg.Show(), plural(lineCount(content), "line", "lines"), Size(int64(len(content))))
	if before.Exists {
		text = fmt.Sprintf("Wrote %s (%s, %s; +%d -%d lines).", tg.Show(), plural(lineCount(content), "line", "lines"), Size(int64(len(content))), change.Added, change.Removed)
	}
	return tools.Result{Text: text + note, FileChanges: append(dirs, change), DisplayDiff: change.Diff}, nil
}

// Precheck implements tools.Prechecked: content over the write limit is
// refused from the raw arguments, before anything decodes them.
func (t writeTool) Precheck(ctx context.Context, call tools.Call) *tools.Result {
	if n, ok := tools.StringLen(call.Arguments, "content"); ok {
		return t.tooLarge(ctx, n)
	}
	return nil
}

// tooLarge refuses content of n bytes over the setting MaxWriteSetting.
func (t writeTool) tooLarge(ctx context.Context, n int64) *tools.Result {
	if limit := t.e.writeLimit(ctx); n > limit {
		r := tools.Errorf("write: content is %s; the limit is %s (setting %s): write large files in parts or generate them with a command", Size(n), Size(limit), MaxWriteSetting)
		return &r
	}
	return nil
}

// commit writes after.Data over tg once more checking that the file is
// still before (it may have changed while a person decided), then notes
// the new state as seen by the session. It fills in after's modification
// time and actual mode, and returns an is_error result when nothing was
// written. When the write happened but the note could not be kept, it
// returns a result that is not an error, whose text says so. It takes the
// session's change lock first (rc.LockChanges).
func (e *env) commit(ctx context.Context, rc *tools.RunContext, sid string, tg target, before state, after *state, verb string) (*tools.Result, []tools.FileChange) {
	fail := func(format string, args ...any) (*tools.Result, []tools.FileChange) {
		r := tools.Errorf(format, args...)
		return &r, nil
	}
	// Held until the change is stored: no look at the workspace may take
	// it for a background command's change or one made outside Foya.
	// What a live background command changed at tg is recorded
	// first, as that command's.
	if _, err := rc.LockChanges(ctx, tg.Real); err != nil {
		return fail("%s: %s was not changed: %v", verb, tg.Show(), err)
	}
	l := tg.loc()
	now, err := snapshot(l, MaxKeep)
	if err != nil && !errors.Is(err, errTooLarge) {
		return fail("%s: %s", verb, openError(tg.Show(), err))
	}
	if !sameFile(now, before) {
		return fail("%s: %s changed while this call waited (for approval, or for another program); nothing was changed: read it again, then %s again", verb, tg.Show(), verb)
	}
	var (
		dirs []tools.FileChange
		made []loc
	)
	if !before.Exists {
		var err error
		if dirs, made, err = mkdirs(l.parent(), tg.Workdir); err != nil {
			return fail("%s: could not create the folder %s: %s; nothing was changed", verb, filepath.Dir(tg.Show()), openError(filepath.Dir(tg.Show()), err))
		}
	}
	if err := writeAtomic(l, after.Data, after.Mode); err != nil {
		// Take back the folders made for it: they are empty.
		for i := len(made) - 1; i >= 0; i-- {
			made[i].remove()
		}
		return fail("%s: %v", verb, err)
	}
	if fi, err := l.lstat(); err == nil {
		after.ModTime, after.Mode, after.Size = fi.ModTime(), UnixMode(fi.Mode()), fi.Size()
	}
	if err := record(ctx, e.reads, sid, tg.Real, *after, true); err != nil {
		r := tools.Text(fmt.Sprintf("(%v: read the file again before changing it once more.)", err))
		return &r, dirs
	}
	return nil, dirs
}

// mkdirs creates the folder dir and its missing parents, and returns a
// File Change for each folder it created, outermost first, so that
// reverting the write removes them again, and their locs.
func mkdirs(dir loc, workdir string) ([]tools.FileChange, []loc, error) {
	var missing []loc
	for d := dir; ; d = d.parent() {
		if _, err := d.lstat(); err == nil || d.isRoot() {
			break
		}
		missing = append(missing, d)
	}
	if err := dir.mkdirAll(0o755); err != nil {
		return nil, nil, err
	}
	var out []tools.FileChange
	var made []loc
	for i := len(missing) - 1; i >= 0; i-- {
		st, err := snapshot(missing[i], 0)
		if err != nil || !st.IsDir {
			continue
		}
		out = append(out, makeChange("create", missing[i].path, workdir, state{}, st))
		made = append(made, missing[i])
	}
	return out, made, nil
}

var (
	_ tools.Tool       = writeTool{}
	_ tools.Parallel   = writeTool{}
	_ tools.Prechecked = writeTool{}
)
