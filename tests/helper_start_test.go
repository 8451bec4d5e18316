package tests

import (
	"os/exec"
	"strings"
	"testing"
)

// spec: A1 — the real binary runs its sandbox helper
// before initialising the packages the helper does not need: the JSON
// Schema library (whose initialisation compiles meta-schemas, about 3 ms of
// each sandboxed command's start), SQLite and the desktop's Wails. Counts of
// initialised packages, from the runtime's own trace, pin it.
func TestHelperStartsBeforeHeavyPackages(t *testing.T) {
	bin := foyaBinary(t)
	count := func(args ...string) (int, string) {
		cmd := exec.Command(bin, args...)
		cmd.Env = append(cmd.Environ(), "GODEBUG=inittrace=1")
		out, _ := cmd.CombinedOutput() // the helper refuses to run by hand
		n := 0
		var names []string
		for _, line := range strings.Split(string(out), "\n") {
			if f := strings.Fields(line); len(f) > 1 && f[0] == "init" {
				n++
				names = append(names, f[1])
			}
		}
		return n, strings.Join(names, " ")
	}
	helper, names := count("__sandbox")
	all, _ := count("--version")
	for _, heavy := range []string{"github.com/santhosh-tekuri/jsonschema/v6", "modernc.org/sqlite", "foya/backend/tools"} {
		if strings.Contains(names+" ", heavy+" ") {
			t.Errorf("the helper's start initialised %s", heavy)
		}
	}
	if helper == 0 || helper >= all {
		t.Fatalf("the helper's start initialised %d packages, the whole program %d; want fewer", helper, all)
	}
	t.Logf("the helper's start initialises %d packages of %d", helper, all)
}
