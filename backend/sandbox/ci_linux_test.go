//go:build linux

package sandbox

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"foya/backend/testwait"
)

// TestEveryMechanismHere names each confining mechanism this machine
// lacks. The other tests run every mechanism that works here
// (restrictedModes), so without this a machine without user namespaces,
// Landlock or bubblewrap passed with that mechanism untested; under CI it
// now fails, naming what is missing: a green CI run means every mechanism
// was tested.
func TestEveryMechanismHere(t *testing.T) {
	c := Probe()
	if c.Landlock == 0 {
		testwait.MissingPart(t, "Landlock ("+c.Reason+")", "the landlock+netns and landlock+seccomp mechanisms")
	}
	if c.Landlock > 0 && !c.NetNS {
		testwait.MissingPart(t, lackUserNS(), "the landlock+netns mechanism")
	}
	if !c.Bubblewrap {
		testwait.MissingPart(t, "a working bubblewrap (Debian package bubblewrap)", "the bubblewrap mechanism")
	}
}

// On a machine without user namespaces the
// sandbox tests fail under CI with a line naming what is missing, and
// outside CI they skip with one line saying what was not tested. The
// machine is made for real, not faked: the test binary runs again in a
// user namespace of its own whose user.max_user_namespaces is 0, so that
// the probe's dry run of the namespaced helper is refused there as on a
// machine without them.
func TestCIFailsWithoutUserNamespaces(t *testing.T) {
	if !Probe().NetNS {
		testwait.Missing(t, lackUserNS(), "a machine without user namespaces made inside one")
	}
	if _, err := exec.LookPath("unshare"); err != nil {
		testwait.Missing(t, "unshare (Debian package util-linux)", "a machine without user namespaces made inside one")
	}
	run := func(ci string) (string, error) {
		t.Helper()
		cmd := exec.Command("unshare", "--user", "--map-root-user", "sh", "-c",
			`echo 0 > /proc/sys/user/max_user_namespaces && exec "$@"`, "sh",
			os.Args[0], "-test.run", "^(TestEveryMechanismHere|TestNoCapabilities)$", "-test.v", "-test.count=1")
		for _, kv := range os.Environ() {
			if !strings.HasPrefix(kv, "CI=") {
				cmd.Env = append(cmd.Env, kv)
			}
		}
		cmd.Env = append(cmd.Env, "CI="+ci)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}

	out, err := run("true")
	if err == nil {
		t.Errorf("CI=true without user namespaces: the sandbox tests passed; want them to fail\n%s", out)
	}
	for _, want := range []string{
		"CI: not tested: the landlock+netns mechanism: this machine lacks user namespaces (probe: user namespaces refused",
		"CI: not tested: capabilities in the namespaced sandbox: this machine lacks user namespaces",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("CI=true without user namespaces: the output lacks %q\n%s", want, out)
		}
	}

	out, err = run("")
	if err != nil {
		t.Errorf("without CI and without user namespaces: %v; want the tests to skip and pass\n%s", err, out)
	}
	for _, want := range []string{
		"not tested: the landlock+netns mechanism: this machine lacks user namespaces",
		"--- SKIP: TestNoCapabilities",
		"not tested: capabilities in the namespaced sandbox: this machine lacks user namespaces",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("without CI and without user namespaces: the output lacks %q\n%s", want, out)
		}
	}
}

// lackUserNS names user namespaces as missing, with the probe's error.
func lackUserNS() string {
	r, _, _ := strings.Cut(Probe().Reason, ": Landlock and seccomp")
	return "user namespaces (probe: " + r + ")"
}
