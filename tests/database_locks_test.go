//go:build linux

package tests

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"foya/backend/kernel"
	pt "foya/backend/provider/providertest"
)

// With the database inside the workspace, a
// Full Access command that writes it (the sqlite3 shell) changes foya.db,
// its -wal and its -shm; the workspace index looked at what the command
// changed, opened and closed those files, and so dropped every POSIX lock
// this process held on them (closing any descriptor of a file does that).
// The next process to close the database then took itself for its last
// user and removed the -wal and -shm still in use: disk I/O errors, then a
// malformed database. The kernel must keep its locks, and another process
// closing the database must leave the side files in place.
//
// spec: W3
func TestCommandsKeepTheDatabaseLocks(t *testing.T) {
	needSQLite(t)
	h := &harness{t: t, dir: t.TempDir()}
	h.db = filepath.Join(h.dir, "foya.db")
	var turns []pt.Turn
	for i := range 3 {
		cmd := fmt.Sprintf(`sqlite3 -cmd '.timeout 5000' foya.db "INSERT OR REPLACE INTO settings (key, value) VALUES ('test.cmd%d', 'x'); SELECT count(*) FROM settings;" && echo wrote`, i)
		args, _ := json.Marshal(map[string]any{"command": cmd})
		turns = append(turns, pt.Calls(call(fmt.Sprintf("c%d", i), "bash", string(args))))
	}
	h.srv = pt.New(t, append(turns, pt.Say("done"))...)
	h.open(nil)
	sess := h.session("full_access")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	run := h.runIn(ctx, sess.ID, "write the database")
	if run.Status != kernel.RunCompleted {
		t.Fatalf("run %s: %s", run.Status, run.Error)
	}
	calls, err := h.k.Calls(ctx, run.ID)
	if err != nil || len(calls) != 3 {
		t.Fatalf("calls %d %v", len(calls), err)
	}
	for _, c := range calls {
		if !strings.Contains(c.Result.Text, "wrote") {
			t.Fatalf("the command did not write the database:\n%s", c.Result.Text)
		}
	}
	changes, err := h.k.Changes(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range changes {
		t.Errorf("the database's write was taken for the command's change of %s", c.Path)
	}
	// SQLite holds a read lock on the -shm (its "dead man switch") for as
	// long as a connection is open.
	if !pathExists(h.db + "-shm") {
		t.Fatalf("%s-shm was removed while Foya used it: another process took itself for the database's last user", h.db)
	}
	if n := locksHeld(t, os.Getpid(), h.db+"-shm"); n == 0 {
		t.Fatalf("this process holds no lock on %s-shm any more: the next process to close the database will remove it", h.db)
	}
	// Another process opens and closes the database: the side files stay.
	out, err := runSQLite(h.db, "SELECT count(*) FROM settings WHERE key LIKE 'test.cmd%';")
	if err != nil || strings.TrimSpace(out) != "3" {
		t.Fatalf("sqlite3: %q %v", out, err)
	}
	for _, side := range []string{"-wal", "-shm"} {
		if !pathExists(h.db + side) {
			t.Fatalf("%s%s was removed while Foya used it", h.db, side)
		}
	}
	if err := h.k.SetMode(ctx, sess.ID, "manual"); err != nil {
		t.Fatalf("a write after the commands: %v", err)
	}
	if out, err := runSQLite(h.db, "PRAGMA integrity_check;"); err != nil || strings.TrimSpace(out) != "ok" {
		t.Fatalf("integrity_check: %q %v", out, err)
	}
}

// locksHeld counts the POSIX locks pid holds on the file at path, from
// /proc/locks (reading the file itself would drop them).
func locksHeld(t *testing.T, pid int, path string) int {
	t.Helper()
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open("/proc/locks")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// 1: POSIX  ADVISORY  READ 1234 08:02:1311 128 128
		fs := strings.Fields(sc.Text())
		if len(fs) < 6 || fs[1] != "POSIX" || fs[4] != strconv.Itoa(pid) {
			continue
		}
		id := strings.Split(fs[5], ":")
		if ino, err := strconv.ParseUint(id[len(id)-1], 10, 64); err == nil && ino == st.Ino {
			n++
		}
	}
	return n
}
