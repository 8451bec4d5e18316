package sandbox

import (
	"path/filepath"
	"testing"
)

// A reaping helper (Full Access and landlock+seccomp: no PID namespace)
// whose parent is not the runner that started it runs nothing and ends.
// That is what a helper finds when its runner died while it was starting:
// the parent-death signal came before the helper could catch it, and the
// Go runtime drops a SIGUSR1 nobody asked for, so without this check the
// command ran on with no one to stop it. The crash harness (tests/crash)
// found background commands of a killed foya exec alive that way. The
// test names another parent instead of killing one at the
// right instant, which no test can do reliably.
//
// spec: X1
func TestOrphanedHelperRunsNothing(t *testing.T) {
	modes := []mode{plainMode}
	if Probe().Landlock > 0 {
		modes = append(modes, llMode)
	}
	old := helperParent
	helperParent = func() int { return 1 } // init: never this helper's parent while the test lives
	t.Cleanup(func() { helperParent = old })
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			m.use(t)
			b := newBox(t)
			mark := filepath.Join(b.ws, "ran")
			res := b.run(t, m, "echo ran > "+mark)
			if exists(mark) {
				t.Fatalf("the orphaned helper ran the command (exit %d %s)", res.ExitCode, res.Signal)
			}
			if res.Signal != "SIGUSR1" {
				t.Errorf("Result.Signal = %q (exit %d, output %q); want SIGUSR1, the parent-death signal it missed", res.Signal, res.ExitCode, res.Output)
			}
		})
	}
}
