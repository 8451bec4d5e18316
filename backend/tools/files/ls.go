package files

import (
	"context"
	_ "embed"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"foya/backend/tools"
)

//go:embed tool_ls.md
var lsDescription string

// LsMaxEntries caps how many entries one ls call lists.
const LsMaxEntries = 1000

type lsTool struct{ e *env }

func (lsTool) Spec() tools.Spec {
	return tools.Spec{
		Name:        ListName,
		Description: strings.TrimSpace(lsDescription),
		Exposure:    tools.Direct,
		ReadOnly:    true,
		Schema:      lsSchema,
	}
}

// ParallelSafe implements tools.Parallel: listing changes nothing.
func (lsTool) ParallelSafe(tools.Call) bool { return true }

type lsArgs struct {
	Path *string `json:"path"`
}

var lsSchema = tools.SchemaOf[lsArgs]()

func (t lsTool) Run(ctx context.Context, rc *tools.RunContext, call tools.Call) (tools.Result, error) {
	var a lsArgs
	if err := tools.Decode(call, &a); err != nil {
		return tools.Errorf("ls: %v", err), nil
	}
	p := "."
	if a.Path != nil {
		p = *a.Path
	}
	_, dir := sessionOf(rc)
	tg, err := resolve(dir, p, true)
	if err != nil {
		return tools.Errorf("ls: %v", err), nil
	}
	defer tg.close()
	fc := t.e.fence(rc)
	if msg := fc.readRefusal(ListName, "listed", tg.Real); msg != "" {
		return tools.Errorf("%s", msg), nil
	}
	if res, err := ask(ctx, rc, call, readKind(tg), "list "+tg.Show(), "", tg.Real); res != nil || err != nil {
		return deref(res), err
	}
	l := tg.loc()
	fi, err := l.stat()
	if err != nil {
		return tools.Errorf("ls: %s", openError(tg.Show(), err)), nil
	}
	if !fi.IsDir() {
		return tools.Text(fmt.Sprintf("%s is a file, not a folder: %s, mode %04o", tg.Show(), Size(fi.Size()), UnixMode(fi.Mode())&modePermMask)), nil
	}
	folder, err := openDirHandle(l)
	if err != nil {
		return tools.Errorf("ls: %s", openError(tg.Show(), err)), nil
	}
	defer folder.close()
	list, err := folder.readDir()
	if err != nil && len(list) == 0 {
		return tools.Errorf("ls: %s", openError(tg.Show(), err)), nil
	}
	slices.SortFunc(list, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	rules, comps := rulesFor(tg.root, tg.Real, tg.Workdir)
	if slices.ContainsFunc(list, func(d fs.DirEntry) bool { return d.Name() == ".gitignore" }) {
		if data, err := folder.readFile(".gitignore", nil, ignoreMax); err == nil {
			rules = &ignoreRules{base: rules.base, pats: append(slices.Clip(rules.pats), parseIgnore(data, comps)...)}
		}
	}
	var b strings.Builder
	var ignored, left []string
	shown := 0
	for _, d := range list {
		name := d.Name()
		if fc.conceals(filepath.Join(tg.Real, name)) {
			left = append(left, name)
			continue
		}
		if name != ".git" && rules.ignored(append(slices.Clip(comps), name), d.IsDir()) {
			if d.IsDir() {
				name += "/"
			}
			ignored = append(ignored, name)
			continue
		}
		if shown == LsMaxEntries {
			shown++
			continue
		}
		shown++
		b.WriteString(describeEntry(folder, d))
		b.WriteByte('\n')
	}
	var notes []string
	if shown == 0 && len(ignored) == 0 && len(left) == 0 {
		notes = append(notes, "The folder is empty.")
	}
	if shown > LsMaxEntries {
		notes = append(notes, fmt.Sprintf("Not shown: %d more entries (ls lists at most %d; use glob to find files by name).", shown-LsMaxEntries, LsMaxEntries))
	}
	if len(ignored) > 0 {
		names := ignored
		if len(names) > 10 {
			names = names[:10]
		}
		more := ""
		if len(ignored) > len(names) {
			more = fmt.Sprintf(" and %d more", len(ignored)-len(names))
		}
		notes = append(notes, fmt.Sprintf("Ignored by .gitignore and not listed: %s%s.", strings.Join(names, ", "), more))
	}
	if note := fc.hiddenNote(left); note != "" {
		notes = append(notes, note)
	}
	if len(notes) > 0 {
		fmt.Fprintf(&b, "[%s]\n", strings.Join(notes, " "))
	}
	return tools.Text(fmt.Sprintf("%s:\n%s", tg.Show(), b.String())), nil
}

// describeEntry renders one ls line: folders end in "/", links show their
// target, files their size. It looks at the entry through the open folder
// dir, never by a path.
func describeEntry(dir *dirHandle, d fs.DirEntry) string {
	name := d.Name()
	switch {
	case d.IsDir():
		return name + "/"
	case d.Type()&fs.ModeSymlink != 0:
		target, err := dir.readlink(name)
		if err != nil {
			return name + " -> ?"
		}
		return name + " -> " + target
	case d.Type().IsRegular():
		if n, _, err := dir.lstat(name); err == nil {
			return fmt.Sprintf("%s  (%s)", name, Size(n))
		}
	}
	return name
}

var (
	_ tools.Tool     = lsTool{}
	_ tools.Parallel = lsTool{}
)
