package shell

import (
	"strings"
	"testing"

	"foya/backend/approval"
	"foya/backend/sandbox"
)

// TestWeakerSandboxAsksInAuto: where the mechanism is
// landlock+seccomp, which does not keep file attributes outside the
// workspace (chmod, touch -d), Auto asks before every command, and the
// question names what the sandbox does not guarantee; a machine with the
// full sandbox does not ask.
//
// spec: A1, A2
func TestWeakerSandboxAsksInAuto(t *testing.T) {
	needSandbox(t)
	weak := func() sandbox.Capability {
		return sandbox.Capability{Mechanism: "landlock+seccomp", Landlock: 7, Weaker: sandbox.WeakerLandlock}
	}
	full := func() sandbox.Capability {
		return sandbox.Capability{Mechanism: "landlock+netns", Landlock: 7, NetNS: true}
	}
	for _, c := range []struct {
		name  string
		probe func() sandbox.Capability
		mode  approval.Mode
		asks  bool
	}{
		{"weaker, Auto", weak, approval.Auto, true},
		{"weaker, Manual", weak, approval.Manual, true},
		{"full, Auto", full, approval.Auto, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := newBox(t, Options{Probe: c.probe})
			g := &gate{mode: c.mode}
			for range 2 {
				res := b.bash(t, b.rc("s1", g), map[string]any{"command": "echo hi"})
				if res.IsError || !strings.Contains(res.Text, "hi") {
					t.Fatalf("bash: %s", res.Text)
				}
			}
			if !c.asks {
				if len(g.asked) != 0 {
					t.Errorf("asked %v; want no question", g.kinds())
				}
				return
			}
			if len(g.asked) != 2 {
				t.Fatalf("asked %d times (%v); want before each of 2 commands", len(g.asked), g.kinds())
			}
			for _, r := range g.asked {
				if r.Action.Kind != approval.ShellWeakSandbox || !strings.Contains(r.Why, "chmod, chown and touch -d can still change files outside the workspace") {
					t.Errorf("asked %s with %q; want %s naming the weaker guarantee", r.Action.Kind, r.Why, approval.ShellWeakSandbox)
				}
			}
		})
	}
}
