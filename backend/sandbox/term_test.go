package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestCancelTermsTheWholeTree cancels a command whose shell waits for a
// child that cleans up on SIGTERM: the child gets the SIGTERM too, within
// the grace period, not only the SIGKILL after it, so its clean-up ran.
// (Signalling only the leader still ended the tree, because what is left
// of the group is killed once the leader exits, so no other test noticed:
// the mutation X1-signal-leader-only survived until this test.)
//
// spec: X1
func TestCancelTermsTheWholeTree(t *testing.T) {
	for _, m := range allModes(t) {
		t.Run(m.name, func(t *testing.T) {
			m.use(t)
			b := newBox(t)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			// The leader waits for its child when it is told to stop; the
			// child writes a file when it is told to stop, and only then.
			// "ready" comes from the leader once $child is set and the
			// child's trap is in place, so the cancel finds both ready.
			p := b.start(t, ctx, m, `trap 'wait "$child"; exit 0' TERM
sh -c 'trap "echo termed > \"$SESS/termed\"; exit 0" TERM; : > "$SESS/trapped"; while :; do sleep 1; done' &
child=$!
while [ ! -e "$SESS/trapped" ]; do sleep 0.01; done
echo ready
wait "$child"`)
			waitOutput(t, p, "ready")
			cancel()
			waitDone(t, p, "the cancel")
			b2, err := os.ReadFile(filepath.Join(b.sess, "termed"))
			if err != nil || string(b2) != "termed\n" {
				data, _, _ := p.Read(0)
				t.Fatalf("the child's clean-up on SIGTERM: %q, %v; want it written (output %q)", b2, err, data)
			}
		})
	}
}
