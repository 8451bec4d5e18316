package store

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"foya/backend/testwait"
)

// issue 22, bad input: another process (the sqlite3 shell in the middle of
// a transaction) holds the database's write lock for long. A write waits,
// boundedly, then fails with a message that names the database and the
// process, never SQLite's "database is locked"; nothing of it is written,
// and once the other process is done the same write goes through.
//
// spec: W3
func TestBusyDatabaseNamesTheHolder(t *testing.T) {
	if _, err := exec.LookPath("sqlite3"); err != nil {
		t.Skip("no sqlite3 shell here: install it (make deps-system does)")
	}
	defer func(d time.Duration) { busyWait = d }(busyWait)
	busyWait = 200 * time.Millisecond
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "foya.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	sh := exec.Command("sqlite3", path)
	in, err := sh.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := sh.Start(); err != nil {
		t.Fatal(err)
	}
	defer sh.Process.Kill()
	if _, err := in.Write([]byte("BEGIN IMMEDIATE; INSERT INTO settings (key, value) VALUES ('shell', '1');\n")); err != nil {
		t.Fatal(err)
	}
	testwait.Until(t, "the sqlite3 shell's write lock", func() bool { return lockHolder(path) != "" })

	err = s.SetSetting(ctx, "mine", "1")
	if !errors.Is(err, ErrBusy) {
		t.Fatalf("a write while another process holds the lock = %v; want ErrBusy", err)
	}
	msg := err.Error()
	t.Log(msg)
	if !strings.Contains(msg, path) || !strings.Contains(msg, "(sqlite3)") || strings.Contains(msg, "locked (") ||
		strings.Contains(msg, "database is locked") {
		t.Errorf("the message should name the database and the process, in words: %s", msg)
	}
	if _, ok, err := s.Setting(ctx, "mine"); ok || err != nil {
		t.Errorf("the failed write left its value (%v, %v)", ok, err)
	}

	in.Write([]byte("COMMIT;\n"))
	in.Close()
	if err := sh.Wait(); err != nil {
		t.Fatal(err)
	}
	if err := s.SetSetting(ctx, "mine", "1"); err != nil {
		t.Fatalf("the write once the other process is done: %v", err)
	}
	if v, ok, _ := s.Setting(ctx, "shell"); !ok || v != "1" {
		t.Errorf("the other process's write is lost")
	}
}
