package files

import (
	"context"
	_ "embed"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"

	"foya/backend/tools"
)

//go:embed tool_glob.md
var globDescription string

// GlobMaxResults caps how many paths one glob call returns.
const GlobMaxResults = 500

type globTool struct{ e *env }

func (globTool) Spec() tools.Spec {
	return tools.Spec{
		Name:        GlobName,
		Description: strings.TrimSpace(globDescription),
		Exposure:    tools.Direct,
		ReadOnly:    true,
		Schema:      globSchema,
	}
}

// ParallelSafe implements tools.Parallel: globbing changes nothing.
type globArgs struct {
	Pattern string  `json:"pattern" jsonschema:"required" jsonschema_description:"Relative to path, e.g. **/*.go"`
	Path    *string `json:"path"`
}

var globSchema = tools.SchemaOf[globArgs]()

func (globTool) ParallelSafe(tools.Call) bool { return true }

func (t globTool) Run(ctx context.Context, rc *tools.RunContext, call tools.Call) (tools.Result, error) {
	var a globArgs
	if err := tools.Decode(call, &a); err != nil {
		return tools.Errorf("glob: %v", err), nil
	}
	pattern := filepath.ToSlash(a.Pattern)
	if strings.TrimSpace(pattern) == "" {
		return tools.Errorf("glob: pattern is empty: give a glob such as **/*.go"), nil
	}
	if strings.ContainsRune(pattern, 0) {
		return tools.Errorf("glob: pattern contains a NUL byte"), nil
	}
	p := "."
	if a.Path != nil {
		p = *a.Path
	}
	if filepath.IsAbs(a.Pattern) {
		if a.Path != nil {
			return tools.Errorf("glob: the pattern is absolute, so give no path (or make the pattern relative to path)"), nil
		}
		base, rest := doublestar.SplitPattern(pattern)
		p, pattern = filepath.FromSlash(base), rest
	}
	pattern = strings.TrimPrefix(pattern, "./")
	if !doublestar.ValidatePattern(pattern) {
		return tools.Errorf("glob: %q is not a valid glob (check its brackets and braces)", a.Pattern), nil
	}
	_, dir := sessionOf(rc)
	tg, err := resolve(dir, p, true)
	if err != nil {
		return tools.Errorf("glob: %v", err), nil
	}
	defer tg.close()
	fc := t.e.fence(rc)
	if msg := fc.readRefusal(GlobName, "searched", tg.Real); msg != "" {
		return tools.Errorf("%s", msg), nil
	}
	if res, err := ask(ctx, rc, call, readKind(tg), "find files matching "+a.Pattern+" in "+tg.Show(), "", tg.Real); res != nil || err != nil {
		return deref(res), err
	}
	if fi, err := tg.loc().stat(); err != nil {
		return tools.Errorf("glob: %s", openError(tg.Show(), err)), nil
	} else if !fi.IsDir() {
		return tools.Errorf("glob: %s is a file, not a folder: give the folder to search as path", tg.Show()), nil
	}
	var (
		mu          sync.Mutex
		found, left []string
	)
	stats, err := walk(ctx, tg.loc(), tg.Real, tg.Workdir, func(e entry) bool {
		if fc.conceals(e.abs) {
			mu.Lock()
			left = append(left, showPrefix(tg)+e.rel)
			mu.Unlock()
			return false
		}
		if ok, _ := doublestar.Match(pattern, e.rel); ok {
			name := e.rel
			if e.typ.IsDir() {
				name += "/"
			}
			mu.Lock()
			found = append(found, name)
			mu.Unlock()
		}
		return true
	})
	if stats == nil {
		return tools.Errorf("glob: %s", openError(tg.Show(), err)), nil
	}
	if err != nil {
		return tools.Errorf("glob: stopped: %v", err), nil
	}
	slices.Sort(found)
	prefix := showPrefix(tg)
	var b strings.Builder
	for i, f := range found {
		if i == GlobMaxResults {
			break
		}
		b.WriteString(prefix + f + "\n")
	}
	var notes []string
	if len(found) == 0 {
		notes = append(notes, fmt.Sprintf("No files match %s in %s.", quoted(a.Pattern), tg.Show()))
		if !strings.Contains(pattern, "/") && !strings.HasPrefix(pattern, "**") {
			notes = append(notes, fmt.Sprintf("The pattern matches only directly in that folder: use **/%s for every folder below it.", quoted(pattern)))
		}
	}
	if len(found) > GlobMaxResults {
		notes = append(notes, fmt.Sprintf("%d matches; the first %d (by path) are shown, %d left out: narrow the pattern or the path.", len(found), GlobMaxResults, len(found)-GlobMaxResults))
	}
	if note := fc.hiddenNote(left); note != "" {
		notes = append(notes, note)
	}
	notes = append(notes, unreadableNote(stats)...)
	if len(notes) > 0 {
		fmt.Fprintf(&b, "[%s]\n", strings.Join(notes, " "))
	}
	return tools.Text(b.String()), nil
}

// showPrefix is what turns a path relative to the walk's root into one the
// model can use: relative to the workdir when inside, absolute otherwise.
func showPrefix(tg target) string {
	switch {
	case tg.IsWorkdir:
		return ""
	case tg.Inside:
		return tg.Rel + "/"
	}
	return strings.TrimSuffix(filepath.ToSlash(tg.Real), "/") + "/"
}

func unreadableNote(s *walkStats) []string {
	if s == nil || len(s.unreadable) == 0 {
		return nil
	}
	names := slices.Sorted(slices.Values(s.unreadable))
	if len(names) > 5 {
		names = append(names[:5], "…")
	}
	return []string{fmt.Sprintf("%s could not be read (permission denied or gone): %s.", plural(len(s.unreadable), "folder", "folders"), strings.Join(names, ", "))}
}

var (
	_ tools.Tool     = globTool{}
	_ tools.Parallel = globTool{}
)
