package tests

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"foya/backend/kernel"
	"foya/backend/llm"
	pt "foya/backend/provider/providertest"
)

// sessionOfExec returns the session ID foya exec --json printed (every
// event carries it).
func sessionOfExec(t *testing.T, stdout string) string {
	t.Helper()
	sc := bufio.NewScanner(strings.NewReader(stdout))
	for sc.Scan() {
		var ev llm.Event
		if json.Unmarshal(sc.Bytes(), &ev) == nil && ev.SessionID != "" {
			return ev.SessionID
		}
	}
	t.Fatalf("no session ID in:\n%s", stdout)
	return ""
}

// Issue 29, item 5, the command line's contract: foya exec --isolated runs
// each session in a worktree of the repository; foya apply brings the
// first's change into the folder (exit 0) and refuses to overwrite it with
// the second's (exit 3, the conflict listed with both diffs, nothing
// written); foya discard removes a copy, and refuses twice.
func TestCLIIsolatedExecApplyDiscard(t *testing.T) {
	bin := foyaBinary(t)
	srv := pt.New(t,
		pt.Calls(call("r1", "read", `{"path":"a.txt"}`)), pt.Calls(call("w1", "write", `{"path":"a.txt","content":"first\n"}`)), pt.Say("one"),
		pt.Calls(call("r2", "read", `{"path":"a.txt"}`)), pt.Calls(call("w2", "write", `{"path":"a.txt","content":"second\n"}`)), pt.Say("two"))
	dir := t.TempDir()
	isoRepo(t, dir, map[string]string{"a.txt": "base\n"})
	db := filepath.Join(t.TempDir(), "foya.db")
	exec := func(prompt string) string {
		t.Helper()
		res := runFoya(t, bin, nil, "exec", "--base-url", srv.URL, "--api-key", "x", "--model", "m", "--db", db,
			"--workdir", dir, "--approval", "auto", "--isolated", "--json", prompt)
		if res.code != 0 {
			t.Fatalf("exec --isolated: exit %d\n%s%s", res.code, res.stdout, res.stderr)
		}
		return sessionOfExec(t, res.stdout)
	}
	first, second := exec("edit a.txt"), exec("edit a.txt too")
	if got := fileText(t, filepath.Join(dir, "a.txt")); got != "base\n" {
		t.Fatalf("a.txt = %q after two isolated sessions: they wrote the folder", got)
	}
	res := runFoya(t, bin, nil, "apply", "--db", db, first)
	if res.code != 0 || !strings.Contains(res.stdout, "Applied 1 file(s)") || fileText(t, filepath.Join(dir, "a.txt")) != "first\n" {
		t.Fatalf("apply the first: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	res = runFoya(t, bin, nil, "apply", "--db", db, "--preview", second)
	if res.code != 3 || !strings.Contains(res.stdout, "applying would leave them") {
		t.Fatalf("apply --preview: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	res = runFoya(t, bin, nil, "apply", "--db", db, second)
	if res.code != 3 || !strings.Contains(res.stdout, "1 conflict(s)") || !strings.Contains(res.stdout, "a.txt (folder: changed, session: changed)") ||
		!strings.Contains(res.stdout, "+first") || !strings.Contains(res.stdout, "+second") {
		t.Fatalf("apply the second: exit %d; want 3 with the conflict listed\n%s%s", res.code, res.stdout, res.stderr)
	}
	if got := fileText(t, filepath.Join(dir, "a.txt")); got != "first\n" {
		t.Fatalf("a.txt = %q: the conflict overwrote the folder", got)
	}
	res = runFoya(t, bin, nil, "apply", "--db", db, "--json", second)
	var ar kernel.ApplyResult
	if res.code != 3 || json.Unmarshal([]byte(res.stdout), &ar) != nil || len(ar.Conflicts) != 1 || ar.Conflicts[0].Path != "a.txt" {
		t.Fatalf("apply --json: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	res = runFoya(t, bin, nil, "discard", "--db", db, second)
	if res.code != 0 || !strings.Contains(res.stdout, "foya/"+second) {
		t.Fatalf("discard: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	if out := isoGit(t, dir, "branch", "--list", "foya/"+second); out != "" {
		t.Fatalf("branch left: %q", out)
	}
	res = runFoya(t, bin, nil, "discard", "--db", db, second)
	if res.code != 2 || !strings.Contains(res.stderr, "discarded already") {
		t.Fatalf("discard twice: exit %d; want 2\n%s%s", res.code, res.stdout, res.stderr)
	}
	res = runFoya(t, bin, nil, "doctor", "--db", db)
	if !strings.Contains(res.stdout, "Isolated sessions") || !strings.Contains(res.stdout, first) {
		t.Fatalf("doctor lists no copies:\n%s", res.stdout)
	}
}

// Issue 29, item 5, bad input on the command line: a copy session on a
// folder without git applied back; apply of a session that is not
// isolated, of no session, and flags that do not go together.
func TestCLIIsolatedBadInput(t *testing.T) {
	bin := foyaBinary(t)
	srv := pt.New(t,
		pt.Calls(call("w", "write", `{"path":"new.txt","content":"made\n"}`)), pt.Say("done"),
		pt.Say("plain"))
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "keep.txt"), []byte("k\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(t.TempDir(), "foya.db")
	common := []string{"exec", "--base-url", srv.URL, "--api-key", "x", "--model", "m", "--db", db, "--workdir", dir, "--approval", "auto"}
	// The folder's setup command runs in the copy first; exec prints it.
	if res := runFoya(t, bin, nil, "settings", "--db", db, "set", "isolate.setup."+dir, "echo setting up"); res.code != 0 {
		t.Fatalf("settings set: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	res := runFoya(t, bin, nil, append(common, "--isolated", "make a file")...)
	if res.code != 0 || !strings.Contains(res.stderr, "works in a copy") || !strings.Contains(res.stderr, "foya apply ses_") ||
		!strings.Contains(res.stderr, "setup: $ echo setting up") {
		t.Fatalf("exec --isolated: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	if !strings.Contains(res.stderr, "setup done") && !strings.Contains(res.stderr, "setup failed: it must run in the sandbox") {
		t.Fatalf("exec --isolated did not print the setup's end:\n%s", res.stderr)
	}
	res = runFoya(t, bin, nil, "sessions", "--db", db, "--json")
	var list []kernel.Session
	if err := json.Unmarshal([]byte(res.stdout), &list); err != nil || len(list) != 1 || list[0].Isolation == nil || list[0].Isolation.Kind != "copy" {
		t.Fatalf("sessions --json = %s (%v)", res.stdout, err)
	}
	copied := list[0].ID
	if res = runFoya(t, bin, nil, "sessions", "--db", db); !strings.Contains(res.stdout, dir+" [copy]") {
		t.Fatalf("sessions does not say the session is a copy of %s:\n%s", dir, res.stdout)
	}
	if res = runFoya(t, bin, nil, "apply", "--db", db, copied); res.code != 0 || fileText(t, filepath.Join(dir, "new.txt")) != "made\n" {
		t.Fatalf("apply the copy: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	res = runFoya(t, bin, nil, append(common, "--json", "not isolated")...)
	if res.code != 0 {
		t.Fatalf("exec: exit %d\n%s", res.code, res.stderr)
	}
	plain := sessionOfExec(t, res.stdout)
	for _, c := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"apply", "--db", db, plain}, 2, "works in its folder"},
		{[]string{"discard", "--db", db, plain}, 2, "works in its folder"},
		{[]string{"apply", "--db", db, "ses_none"}, 2, "not found"},
		{[]string{"apply", "--db", db}, 2, "give one SESSION"},
		{[]string{"apply", "--db", db, "--preview", "--take", "a", copied}, 2, "give one of them"},
		{append(common, "--isolation", "container", "x"), 2, "give worktree or copy"},
		{append(common, "--branch", "b", "x"), 2, "add --isolated"},
		{append(common, "--isolated", "--session", plain, "x"), 2, "starts a new session"},
	} {
		res := runFoya(t, bin, nil, c.args...)
		if res.code != c.code || !strings.Contains(res.stderr, c.says) {
			t.Errorf("foya %s: exit %d, stderr %q; want %d saying %q", strings.Join(c.args, " "), res.code, res.stderr, c.code, c.says)
		}
	}
}
