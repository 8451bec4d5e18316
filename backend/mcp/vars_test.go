package mcp_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"foya/backend/mcp"
)

// TestProjectVarsExpandedAtStart: a project's server's ${VAR} and
// ${VAR:-default} are expanded when it starts, from the environment its
// process gets (Options.Environ): the test server starts only if its
// mode variable was expanded. One that reads variables that are not set
// and have no default does not start: it fails with all of them named.
// spec: M2
func TestProjectVarsExpandedAtStart(t *testing.T) {
	environ := []string{"SERVER_MODE=ok", "EMPTY="}
	m, reg := newManager(t, mcp.Options{Environ: func() []string { return environ }})
	dir := t.TempDir()
	good := stdioEntry(t, "good", "${SERVER_MODE}")
	good.Args = []string{"${EMPTY:-fallback}", "${env:SERVER_MODE}"}
	bad := stdioEntry(t, "bad", "${FOYA_TEST_UNSET_B}")
	bad.Args = []string{"${FOYA_TEST_UNSET_A}", "${EMPTY}", "${SET_LATER:-x}", "${FOYA_TEST_UNSET_A}"}
	m.Set(dir, []mcp.Entry{good, bad})
	m.Wait(context.Background(), dir)
	if st := status(m, "good"); st.State != mcp.Ready {
		t.Fatalf("good: %s (%s)", st.State, st.Error)
	}
	if _, _, ok := reg.Lookup("mcp__good__echo"); !ok {
		t.Error("the good server's tools are not registered")
	}
	st := status(m, "bad")
	if st.State != mcp.Failed || !strings.Contains(st.Error, "not started") ||
		!strings.Contains(st.Error, "${EMPTY}, ${FOYA_TEST_UNSET_A}, ${FOYA_TEST_UNSET_B}") || strings.Contains(st.Error, "SET_LATER") {
		t.Errorf("bad: %s (%s); want failed, naming the three variables", st.State, st.Error)
	}
}

// TestEntryVars: the variables an entry reads, split into those that
// decide what runs (command, arguments, cwd, URL) and those only passed
// (env and header values); RunVars gives their values as approving
// covers them. Malformed references are not variables.
// spec: M2
func TestEntryVars(t *testing.T) {
	e := mcp.Entry{Command: "${BIN}/server", Args: []string{"--root=${ROOT:-.}", "${", "${not a name}", "${input:x}"}, Cwd: "${WORK}",
		Env: map[string]string{"TOKEN": "${TOKEN}", "ALSO": "${BIN}"}, Headers: map[string]string{"X": "${env:HDR}"}}
	run, pass := e.Vars()
	if !slices.Equal(run, []string{"BIN", "ROOT", "WORK"}) || !slices.Equal(pass, []string{"HDR", "TOKEN"}) {
		t.Errorf("run %v, pass %v", run, pass)
	}
	got := e.RunVars([]string{"BIN=/opt/x", "ROOT=", "TOKEN=secret"})
	if want := []string{"BIN=/opt/x", "ROOT unset", "WORK unset"}; !slices.Equal(got, want) {
		t.Errorf("RunVars = %v; want %v", got, want)
	}
	if _, err := e.ExpandVars([]string{"BIN=/b", "WORK=/w", "TOKEN=t", "HDR=h"}); err == nil || !strings.Contains(err.Error(), "cannot be expanded") {
		t.Errorf("malformed references: %v", err)
	}
	e.Args = e.Args[:2]
	x, err := e.ExpandVars([]string{"BIN=/b", "WORK=/w", "TOKEN=t", "HDR=h"})
	if err != nil || x.Command != "/b/server" || x.Args[0] != "--root=." || x.Cwd != "/w" || x.Env["TOKEN"] != "t" || x.Headers["X"] != "h" || e.Env["TOKEN"] != "${TOKEN}" {
		t.Errorf("expanded: %+v, %v", x, err)
	}
}
