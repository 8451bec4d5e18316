//go:build linux

package tests

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"foya/backend/cli"
	pt "foya/backend/provider/providertest"
	"foya/backend/sandbox"
)

// spec: A1, A2 — on a machine whose sandbox is
// landlock+seccomp (forced here through the probe), foya exec says at start,
// in one line on stderr, what that sandbox does not guarantee, and in Auto
// every command is asked about with that reason (the question, an
// approval.request event, names it); denied, the command does not run.
func TestExecNoticesWeakerSandbox(t *testing.T) {
	needSandbox(t)
	srv := pt.New(t, pt.Calls(call("c1", "bash", `{"command":"touch ran"}`)), pt.Say("done"))
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	weak := func() sandbox.Capability {
		return sandbox.Capability{Mechanism: "landlock+seccomp", Landlock: 7, Weaker: sandbox.WeakerLandlock}
	}
	code := cli.Run(context.Background(), []string{"exec", "--base-url", srv.URL, "--api-key", "x", "--model", "m",
		"--db", filepath.Join(dir, "foya.db"), "--workdir", dir, "--approval", "auto", "go"},
		cli.Env{Stdin: strings.NewReader("n\n"), Stdout: &stdout, Stderr: &stderr, Interactive: true, Probe: weak, Getenv: func(string) string { return "" }})
	if code != cli.ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout.String(), stderr.String())
	}
	lines := strings.Split(stderr.String(), "\n")
	if !strings.HasPrefix(lines[0], "foya: notice: the sandbox here (landlock+seccomp) is weaker: chmod, chown and touch -d") {
		t.Errorf("first stderr line %q; want the weaker-sandbox notice", lines[0])
	}
	if !strings.Contains(stderr.String(), "approval needed: bash (shell_weak_sandbox)") ||
		strings.Count(stderr.String(), "chmod, chown and touch -d can still change files outside the workspace") < 2 {
		t.Errorf("Auto did not ask with the weaker guarantee as the reason:\n%s", stderr.String())
	}
	if pathExists(filepath.Join(dir, "ran")) {
		t.Errorf("the denied command ran")
	}
}
