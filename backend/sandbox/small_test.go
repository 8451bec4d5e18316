//go:build linux

package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"foya/backend/testwait"
)

// With FOYA_TEST_SMALL_HELPER naming a built small helper (cmd/foya-sandbox,
// any stamp), every test of this package starts it instead of the test
// binary: the whole suite, the escapes included, then runs against what
// make build ships (docs/benchmarks.md, "The shell path").
func init() {
	if p := os.Getenv("FOYA_TEST_SMALL_HELPER"); p != "" {
		helperExe = func() (string, error) { return p, nil }
	}
}

// buildSmallHelper builds cmd/foya-sandbox with the given stamp into a
// folder of the test's, statically as make build does.
func buildSmallHelper(t *testing.T, stamp string) string {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		testwait.Missing(t, "the go command", "the small helper's tests")
	}
	p := filepath.Join(t.TempDir(), SmallHelperName)
	cmd := exec.Command(gobin, "build", "-ldflags", "-X foya/backend/sandbox.HelperStamp="+stamp, "-o", p, "foya/cmd/foya-sandbox")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build the small helper: %v\n%s", err, out)
	}
	return p
}

// Issue 27 item 2: the small helper is used only when it is of this very
// build (its stamp is the runner's) and only its owner can replace it;
// started as the helper, it confines and reaps as the binary itself does.
// spec: A1, X1
func TestSmallHelper(t *testing.T) {
	if os.Getenv("FOYA_TEST_SMALL_HELPER") != "" {
		t.Skip("the whole package runs with a small helper already")
	}
	p := buildSmallHelper(t, "stamp-of-this-test")
	old := HelperStamp
	t.Cleanup(func() { HelperStamp = old })

	HelperStamp = "stamp-of-this-test"
	if !helperOfThisBuild(p) {
		t.Fatal("the small helper of this build is not taken")
	}
	HelperStamp = "stamp-of-another-build"
	if helperOfThisBuild(p) {
		t.Fatal("a small helper of another build (another stamp) is taken")
	}
	HelperStamp = "stamp-of-this-test"
	if err := os.Chmod(p, 0o777); err != nil {
		t.Fatal(err)
	}
	if helperOfThisBuild(p) {
		t.Fatal("a small helper that others can replace (mode 0777) is taken")
	}
	if err := os.Chmod(p, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(p).CombinedOutput(); err == nil || !strings.Contains(string(out), "foya starts it") {
		t.Fatalf("run by hand: %v, %q; want a refusal", err, out)
	}

	oldExe := helperExe
	helperExe = func() (string, error) { return p, nil }
	t.Cleanup(func() { helperExe = oldExe })
	b := newBox(t)
	plainMode.use(t)
	if res := b.run(t, plainMode, `cat /proc/$PPID/comm`); res.ExitCode != 0 || strings.TrimSpace(string(res.Output)) != SmallHelperName {
		t.Fatalf("Full Access: the shell's parent is %q (exit %d); want the small helper", res.Output, res.ExitCode)
	}
	for _, m := range restrictedModes(t) {
		if m.force == "bwrap" || m.force == "bwrap+userns" {
			continue // bwrap confines, not the helper
		}
		t.Run(m.name, func(t *testing.T) {
			m.use(t)
			res := b.run(t, m, `echo in > "$WS/in"; echo out > "$OUT/escaped"; cat /proc/$PPID/comm /proc/1/comm 2>/dev/null`)
			if _, err := os.Stat(filepath.Join(b.out, "escaped")); err == nil {
				t.Fatalf("%s with the small helper: a write outside the workspace got through:\n%s", m.name, res.Output)
			}
			if got := readFile(filepath.Join(b.ws, "in")); got != "in\n" {
				t.Fatalf("%s with the small helper: the workspace write gave %q:\n%s", m.name, got, res.Output)
			}
			if !strings.Contains(string(res.Output), SmallHelperName) {
				t.Fatalf("%s: the small helper did not run the command:\n%s", m.name, res.Output)
			}
		})
	}
}
