package tests

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"foya/backend/cli"
	pt "foya/backend/provider/providertest"
	"foya/backend/sandbox/sandboxtest"
)

// TestSandboxGrantsFromTheCLI: foya exec --allow-write lets the session's
// sandboxed commands write a folder; foya sandbox lists, allows and revokes
// a session's grants; what may not be allowed, a missing session and bad
// flags are usage errors with the reason, and nothing is stored.
//
// spec: A2
func TestSandboxGrantsFromTheCLI(t *testing.T) {
	needSandbox(t)
	db := filepath.Join(t.TempDir(), "foya.db")
	root := sandboxtest.Dir(t)
	ws, out := filepath.Join(root, "ws"), filepath.Join(root, "out")
	for _, d := range []string{ws, out} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	args, _ := json.Marshal(map[string]string{"command": fmt.Sprintf("echo x > %q/f && echo wrote", out)})
	if code, _, stderr := foya(t, nil, "exec", "--db", db, "--workdir", ws, "--base-url", "http://127.0.0.1:9", "--model", "m",
		"--approval", "auto", "--allow-write", "/", "go"); code != cli.ExitUsage || !strings.Contains(stderr, "--allow-write: cannot allow /") {
		t.Fatalf("exec --allow-write /: exit %d %q; want 2 and the reason", code, stderr)
	}
	srv := pt.New(t, pt.Calls(call("c1", "bash", string(args))), pt.Say("done"))
	code, stdout, stderr := foya(t, nil, "exec", "--db", db, "--workdir", ws, "--base-url", srv.URL, "--model", "m",
		"--approval", "auto", "--allow-write", out, "--json", "go")
	if code != cli.ExitOK || escRead(filepath.Join(out, "f")) != "x\n" {
		t.Fatalf("exec --allow-write %s: exit %d, the file %q\n%s\n%s", out, code, escRead(filepath.Join(out, "f")), stdout, stderr)
	}
	var session string
	for _, line := range strings.Split(stdout, "\n") {
		var ev struct{ SessionID string }
		if json.Unmarshal([]byte(line), &ev) == nil && ev.SessionID != "" {
			session = ev.SessionID
			break
		}
	}
	if session == "" {
		t.Fatalf("no session in exec's events:\n%s", stdout)
	}
	code, stdout, _ = foya(t, nil, "sandbox", "--db", db, session)
	if code != cli.ExitOK || !strings.Contains(stdout, out+" writable for the session") {
		t.Fatalf("sandbox %s: exit %d\n%s", session, code, stdout)
	}
	code, stdout, stderr = foya(t, nil, "sandbox", "allow", "--db", db, "--network", "--once", session)
	if code != cli.ExitOK || !strings.Contains(stdout, "the network on for the next command") {
		t.Fatalf("sandbox allow --network --once: exit %d\n%s%s", code, stdout, stderr)
	}
	bad := []struct {
		args []string
		want string
	}{
		{[]string{"sandbox", "allow", "--db", db, "--write", "/", session}, "cannot allow /"},
		{[]string{"sandbox", "allow", "--db", db, "--write", filepath.Dir(db), session}, "Foya's own data"},
		{[]string{"sandbox", "allow", "--db", db, "--write", out, "--network", session}, "usage: foya sandbox"},
		{[]string{"sandbox", "allow", "--db", db, session}, "usage: foya sandbox"},
		{[]string{"sandbox", "allow", "--db", db, "--network", "ses_missing"}, "no session ses_missing"},
		{[]string{"sandbox", "revoke", "--db", db, session, "ten"}, "not a number"},
		{[]string{"sandbox", "revoke", "--db", db, session, "999"}, "has no sandbox grant 999"},
		{[]string{"sandbox", "--db", db}, "usage: foya sandbox"},
	}
	for _, c := range bad {
		if code, _, stderr := foya(t, nil, c.args...); code != cli.ExitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("foya %s: exit %d %q; want 2 saying %q", strings.Join(c.args, " "), code, stderr, c.want)
		}
	}
	code, stdout, _ = foya(t, nil, "sandbox", "--db", db, "--json", session)
	var grants []struct {
		ID   int64
		Kind string
	}
	if err := json.Unmarshal([]byte(stdout), &grants); code != cli.ExitOK || err != nil || len(grants) != 2 {
		t.Fatalf("sandbox --json: exit %d, %v\n%s; want the two grants", code, err, stdout)
	}
	for _, g := range grants {
		if code, _, stderr := foya(t, nil, "sandbox", "revoke", "--db", db, session, fmt.Sprint(g.ID)); code != cli.ExitOK {
			t.Fatalf("sandbox revoke %d: exit %d %s", g.ID, code, stderr)
		}
	}
	if code, stdout, _ := foya(t, nil, "sandbox", "--db", db, session); code != cli.ExitOK || !strings.Contains(stdout, "no sandbox grants") {
		t.Errorf("after revoking: exit %d %q", code, stdout)
	}
}
