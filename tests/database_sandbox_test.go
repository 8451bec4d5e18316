//go:build linux

package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"foya/backend/approval"
	"foya/backend/kernel"
	pt "foya/backend/provider/providertest"
	"foya/backend/sandbox/sandboxtest"
)

// spec: A1, A2 — the sandbox's half of keeping Foya's database from
// commands: with the database
// inside the workspace (foya --db WS/foya.db), a sandboxed command can
// neither switch its own session to Full Access with the foya binary's
// mode command, nor write the database with sqlite, nor read it; the
// session's mode stays. In Full Access the same command works (control).
func TestSandboxKeepsTheDatabase(t *testing.T) {
	needSandbox(t)
	bin := foyaBinary(t)
	for _, mode := range []approval.Mode{approval.Manual, approval.Auto, approval.FullAccess} {
		t.Run(string(mode), func(t *testing.T) {
			ws := sandboxtest.Dir(t)
			// The binary is copied into the workspace: the temp folder it
			// was built in is hidden from sandboxed commands.
			b, err := os.ReadFile(bin)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(ws, "foya"), b, 0o755); err != nil {
				t.Fatal(err)
			}
			h := &harness{t: t, dir: ws, db: filepath.Join(ws, "foya.db")}
			var turns []pt.Turn
			for i, cmd := range []string{
				`./foya mode "$FOYA_TEST_SID" full-access --db foya.db; echo "mode exit $?"`,
				`python3 -c 'import sqlite3; c = sqlite3.connect("foya.db"); c.execute("UPDATE sessions SET approval_mode = ?", ("full_access",)); c.commit(); print("sqlite wrote")'`,
				`cat foya.db | head -c 16; echo; strings foya.db-wal 2>/dev/null | head -3`,
				// The ownership locks beside the database, which decide
				// which runs are alive.
				`echo "locks seen: $(ls foya.db.owners 2>/dev/null | grep -c lock)"; touch foya.db.owners/planted && echo planted`,
			} {
				args, _ := json.Marshal(map[string]any{"command": cmd})
				turns = append(turns, pt.Calls(call(fmt.Sprintf("c%d", i), "bash", string(args))))
			}
			h.srv = pt.New(t, append(turns, pt.Say("done"))...)
			h.open(nil)
			ans := &answerer{}
			ans.watch(h.k, func(kernel.Approval) kernel.Answer { return kernel.Answer{Choice: kernel.AllowOnce} })
			sess := h.session(string(mode))
			os.Setenv("FOYA_TEST_SID", sess.ID)
			t.Cleanup(func() { os.Unsetenv("FOYA_TEST_SID") })
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			run := h.runIn(ctx, sess.ID, "take over")
			if run.Status != kernel.RunCompleted {
				t.Fatalf("run %s: %s", run.Status, run.Error)
			}
			calls, err := h.k.Calls(ctx, run.ID)
			if err != nil || len(calls) != 4 {
				t.Fatalf("calls %d %v", len(calls), err)
			}
			var text []string
			for _, c := range calls {
				text = append(text, c.Result.Text)
			}
			all := strings.Join(text, "\n---\n")
			after, err := h.k.Session(ctx, sess.ID)
			if err != nil {
				t.Fatal(err)
			}
			sawDB := strings.Contains(text[2], "SQLite format 3")
			planted := pathExists(filepath.Join(ws, "foya.db.owners", "planted"))
			if mode == approval.FullAccess {
				if !strings.Contains(text[0], "mode exit 0") || !sawDB || strings.Contains(text[3], "locks seen: 0") || !planted {
					t.Errorf("Full Access: the database was not reachable (control):\n%s", all)
				}
				return
			}
			if after.ApprovalMode != string(mode) {
				t.Errorf("%s: the session's mode is now %s; a sandboxed command changed it:\n%s", mode, after.ApprovalMode, all)
			}
			if strings.Contains(text[0], "mode exit 0") || strings.Contains(text[1], "sqlite wrote") || sawDB ||
				!strings.Contains(text[3], "locks seen: 0") || planted {
				t.Errorf("%s: a sandboxed command reached the database:\n%s", mode, all)
			}
		})
	}
}
