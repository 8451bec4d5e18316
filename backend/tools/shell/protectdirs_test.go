package shell

import (
	"path/filepath"
	"testing"

	"foya/backend/event"
	"foya/backend/tools"
)

// TestWithoutProtectDirs checks that a sandboxed command's recorded changes
// leave out the making and the removal of the root's .foya and .agents
// folders (the sandbox's empty stand-ins, which another command's end may
// remove while this one runs), and keep everything else: what is inside
// them, the same names deeper down, and every change of an unrestricted
// command.
//
// spec: F1
func TestWithoutProtectDirs(t *testing.T) {
	ws := t.TempDir()
	wd, _ := filepath.EvalSymlinks(ws)
	dir := func(p string, before, after bool) tools.FileChange {
		return tools.FileChange{FileChange: event.FileChange{Path: p, IsDir: true, ExistedBefore: before, ExistsAfter: after}}
	}
	foya, agents := filepath.Join(wd, ".foya"), filepath.Join(wd, ".agents")
	deep := filepath.Join(wd, "pkg", ".foya")
	inside := tools.FileChange{FileChange: event.FileChange{Path: filepath.Join(foya, "x"), ExistsAfter: true}}
	fcs := []tools.FileChange{dir(foya, false, true), dir(agents, true, false), dir(deep, false, true), inside}

	got := withoutProtectDirs(fcs, ws, plan{restricted: true})
	if len(got) != 2 || got[0].Path != deep || got[1].Path != inside.Path {
		t.Errorf("restricted: kept %+v; want only %s and %s", paths(got), deep, inside.Path)
	}
	if got := withoutProtectDirs(fcs, ws, plan{}); len(got) != len(fcs) {
		t.Errorf("unrestricted: kept %v; want all %d", paths(got), len(fcs))
	}
}

func paths(fcs []tools.FileChange) []string {
	var out []string
	for _, fc := range fcs {
		out = append(out, fc.Path)
	}
	return out
}
