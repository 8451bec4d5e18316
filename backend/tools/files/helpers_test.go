package files

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"foya/backend/approval"
	"foya/backend/tools"
	"foya/backend/trash"
)

// fixture is a workspace with the file tools over it, the user's trash
// kept in a temporary home.
type fixture struct {
	t     *testing.T
	dir   string // the workspace, resolved
	home  string
	trash *trash.Trash
	reads *MemReads
	tools map[string]tools.Tool
	rc    *tools.RunContext
	// asked records every approval request.
	asked []approval.Request
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	f := &fixture{t: t, dir: dir, home: home, trash: trash.New(trash.Options{Home: home}), reads: NewMemReads(), tools: map[string]tools.Tool{}}
	for _, tl := range Tools(Options{Reads: f.reads, Trash: f.trash}) {
		f.tools[tl.Spec().Name] = tl
	}
	f.rc = &tools.RunContext{SessionID: "ses_test", RunID: "run_test", Workdir: dir, ApprovalMode: "full_access"}
	f.rc.Approval = func(ctx context.Context, req approval.Request) (approval.Outcome, error) {
		f.asked = append(f.asked, req)
		return approval.Outcome{Allowed: true}, nil
	}
	return f
}

// mode makes approvals follow the policy of mode, with a person who
// answers asks with allow (or deny).
func (f *fixture) mode(m approval.Mode, allowAsks bool) {
	f.rc.ApprovalMode = string(m)
	f.rc.Approval = func(ctx context.Context, req approval.Request) (approval.Outcome, error) {
		f.asked = append(f.asked, req)
		d := approval.Decide(m, req.Action, nil, nil)
		switch {
		case d.Verdict == approval.Allow, d.Verdict == approval.Ask && allowAsks:
			return approval.Outcome{Allowed: true}, nil
		case d.Verdict == approval.Ask:
			return approval.Outcome{Message: "denied by you"}, nil
		}
		return approval.Outcome{Message: "refused: " + d.Reason}, nil
	}
}

// call runs a tool with args given as a Go value (marshalled) or a raw
// JSON string.
func (f *fixture) call(name string, args any) tools.Result {
	f.t.Helper()
	var raw []byte
	switch a := args.(type) {
	case string:
		raw = []byte(a)
	default:
		var err error
		if raw, err = json.Marshal(args); err != nil {
			f.t.Fatal(err)
		}
	}
	tl, ok := f.tools[name]
	if !ok {
		f.t.Fatalf("no tool %s", name)
	}
	res, err := tl.Run(context.Background(), f.rc, tools.Call{ID: "call_1", Name: name, Arguments: raw})
	if err != nil {
		f.t.Fatalf("%s(%s): Go error %v", name, raw, err)
	}
	return res
}

// ok runs a call that must succeed.
func (f *fixture) ok(name string, args any) tools.Result {
	f.t.Helper()
	res := f.call(name, args)
	if res.IsError {
		f.t.Fatalf("%s(%v): %s", name, args, res.Text)
	}
	return res
}

// fail runs a call that must fail.
func (f *fixture) fail(name string, args any) tools.Result {
	f.t.Helper()
	res := f.call(name, args)
	if !res.IsError {
		f.t.Fatalf("%s(%v) succeeded, want is_error: %s", name, args, res.Text)
	}
	return res
}

func (f *fixture) path(rel string) string { return filepath.Join(f.dir, filepath.FromSlash(rel)) }

func (f *fixture) put(rel, content string, mode os.FileMode) {
	f.t.Helper()
	p := f.path(rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), mode); err != nil {
		f.t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) get(rel string) string {
	f.t.Helper()
	b, err := os.ReadFile(f.path(rel))
	if err != nil {
		f.t.Fatal(err)
	}
	return string(b)
}

// needPatch returns the path of GNU patch, installing it when missing.
func needPatch(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("patch"); err == nil {
		return p
	}
	t.Fatal("GNU patch is not installed (make test installs it: apt-get install patch)")
	return ""
}
