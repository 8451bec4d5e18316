//go:build linux

package tests

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"foya/backend/kernel"
)

// Bad input: a database on a read-only mount. Foya opens it
// read-only and says so: the sessions can be listed, a change fails with
// a message that says why, and nothing is written (no owners folder, no
// -wal made beside it).
//
// spec: W3
func TestReadOnlyDatabaseOpensReadOnly(t *testing.T) {
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("no unshare here")
	}
	bin := foyaBinary(t)
	data := t.TempDir()
	db := filepath.Join(data, "foya.db")
	k, err := kernel.Open(context.Background(), kernel.Options{DBPath: db})
	if err != nil {
		t.Fatal(err)
	}
	sess, err := k.CreateSession(context.Background(), kernel.NewSession{Workdir: t.TempDir(), ApprovalMode: "manual"})
	if err != nil {
		t.Fatal(err)
	}
	if err := k.Close(); err != nil {
		t.Fatal(err)
	}
	// In a user and mount namespace of its own, the data folder is
	// mounted read-only over itself.
	script := `mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" || { echo "no read-only mount: $?"; exit 99; }
"$2" sessions --db "$1/foya.db"; echo "sessions exit $?"
"$2" mode "$3" auto --db "$1/foya.db"; echo "mode exit $?"
ls -a "$1"`
	cmd := exec.Command("unshare", "--user", "--map-root-user", "--mount", "sh", "-c", script, "sh", data, bin, sess.ID)
	cmd.Env = append(cmd.Environ(), providerEnv("")...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	text := out.String()
	if strings.Contains(text, "no read-only mount") {
		t.Skipf("no read-only mount here: %s", text)
	}
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	for _, want := range []string{"is open read-only (it is on a read-only file system)", sess.ID, "sessions exit 0",
		"the database is open read-only (it is on a read-only file system): nothing can be changed", "mode exit 1"} {
		if !strings.Contains(text, want) {
			t.Errorf("want %q in:\n%s", want, text)
		}
	}
	for _, bad := range dbTrouble {
		if strings.Contains(text, bad) {
			t.Errorf("%q in:\n%s", bad, text)
		}
	}
	if out, err := runSQLite(db, "SELECT approval_mode FROM sessions;"); err != nil || strings.TrimSpace(out) != "manual" {
		t.Errorf("the session's mode is %q (%v); the read-only database was changed", out, err)
	}
}
