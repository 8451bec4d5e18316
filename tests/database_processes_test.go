//go:build linux

package tests

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"foya/backend/kernel"
	"foya/backend/llm"
	"foya/backend/provider"
	pt "foya/backend/provider/providertest"
	"foya/backend/testwait"
)

// needSQLite skips without the sqlite3 shell (make deps-system installs it).
func needSQLite(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("sqlite3"); err != nil {
		t.Skip("no sqlite3 shell here: install it (make deps-system does)")
	}
}

// runSQLite runs the sqlite3 shell on db, waiting up to 10 s for a lock
// as a careful user would.
func runSQLite(db, sql string) (string, error) {
	cmd := exec.Command("sqlite3", "-cmd", ".timeout 10000", db, sql)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("%w: %s", err, errb.String())
	}
	if errb.Len() > 0 {
		return out.String(), errors.New(errb.String())
	}
	return out.String(), nil
}

// dbTrouble is what no process may ever print about the database.
var dbTrouble = []string{"disk I/O error", "malformed", "database is locked", "SQLITE_BUSY", "SQLITE_IOERR", "SQLITE_CORRUPT"}

// procLog counts the operations of the processes a test starts and keeps
// every failure.
type procLog struct {
	ops  atomic.Int64
	mu   sync.Mutex
	errs []string
}

func (l *procLog) fail(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.errs) < 50 {
		l.errs = append(l.errs, fmt.Sprintf(format, args...))
	}
}

func (l *procLog) failures() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.errs...)
}

// foya runs a foya command and notes its failure.
func (l *procLog) foya(bin, what string, args ...string) bool {
	l.ops.Add(1)
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), providerEnv("")...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	text := out.String() + errb.String()
	if err != nil {
		l.fail("%s: %v\n%s", what, err, text)
		return false
	}
	for _, bad := range dbTrouble {
		if strings.Contains(text, bad) {
			l.fail("%s printed %q:\n%s", what, bad, text)
			return false
		}
	}
	return true
}

func (l *procLog) sqlite(db, what, sql string) (string, bool) {
	l.ops.Add(1)
	out, err := runSQLite(db, sql)
	if err != nil {
		l.fail("sqlite3 %s: %v", what, err)
		return out, false
	}
	return out, true
}

// loops is how many times each outside process runs in make test; soak
// runs them until FOYA_SOAK's duration (make soak) has passed.
const loops = 6

// until says whether loop i should run.
func until(i int, deadline time.Time) bool {
	if !deadline.IsZero() {
		return time.Now().Before(deadline)
	}
	return i < loops
}

// Foya processes share one database. The user's case: a kernel runs a long
// Full Access session whose commands write the database (the sqlite3
// shell, a second foya mode) while processes outside it do the same in a
// loop: foya mode on another session, foya exec --session, foya settings
// set, foya providers add, foya sessions, and the sqlite3 shell reading
// and writing. No process sees an I/O error or "database is locked", no
// write is lost, integrity_check is ok, and the kernel publishes the mode
// changes made from the terminal as session.mode events (what its UI
// shows), without a restart. With the database inside the workspace (the
// default for a session on the home folder) and outside it.
//
// FOYA_SOAK=10m (make soak) runs the same until that much time has passed
// and logs the figures docs/reliability.md quotes.
//
// spec: W3, W4
func TestManyProcessesOneDatabase(t *testing.T) {
	needSQLite(t)
	bin := foyaBinary(t)
	var soak time.Duration
	if v := os.Getenv("FOYA_SOAK"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			t.Fatalf("FOYA_SOAK=%q: %v", v, err)
		}
		soak = d
	}
	for _, where := range []string{"inside", "outside"} {
		t.Run(where, func(t *testing.T) { manyProcesses(t, bin, where == "inside", soak) })
	}
}

func manyProcesses(t *testing.T, bin string, inside bool, soak time.Duration) {
	h := &harness{t: t, dir: t.TempDir()}
	h.db = filepath.Join(t.TempDir(), "foya.db")
	if inside {
		h.db = filepath.Join(h.dir, "foya.db")
	}
	db := h.db
	var deadline time.Time
	if soak > 0 {
		deadline = time.Now().Add(soak)
	}
	h.srv = pt.New(t) // runs below bring their own model servers
	h.open(nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute+soak)
	defer cancel()
	main := h.session("full_access")
	other := h.session("manual") // foya mode switches it from outside
	execSess := h.session("full_access")
	watchedSess := h.session("manual") // the session the commands switch

	var (
		mu    sync.Mutex
		modes []string // session.mode events of other, as published
	)
	h.k.Subscribe(func(ev llm.Event) {
		if ev.Type == "session.mode" && ev.SessionID == other.ID {
			var d struct{ To string }
			json.Unmarshal(ev.Data, &d)
			mu.Lock()
			modes = append(modes, d.To)
			mu.Unlock()
		}
	})

	var l procLog
	var wg sync.WaitGroup
	// The long session: each turn, one command writes the database.
	sessionRuns := 0
	wg.Go(func() {
		for r := 0; r == 0 || !deadline.IsZero() && time.Now().Before(deadline); r++ {
			var turns []pt.Turn
			for i := range 8 {
				var cmd string
				if i%2 == 0 {
					cmd = fmt.Sprintf(`sqlite3 -cmd '.timeout 10000' %q "INSERT INTO settings (key, value) VALUES ('test.cmd.%d.%d', 'x'); SELECT count(*) FROM events;" >/dev/null && echo wrote`, db, r, i)
				} else {
					mode := []string{"auto", "manual"}[i/2%2]
					cmd = fmt.Sprintf(`%q mode %s %s --db %q && echo switched`, bin, watchedSess.ID, mode, db)
				}
				args, _ := json.Marshal(map[string]any{"command": cmd})
				turns = append(turns, pt.Calls(call(fmt.Sprintf("c%d", i), "bash", string(args))))
			}
			srv := pt.New(t, append(turns, pt.Say("done"))...)
			model, err := provider.New(provider.Config{BaseURL: srv.URL, APIKey: "x", Model: "m", MaxRetries: -1})
			if err != nil {
				l.fail("model: %v", err)
				return
			}
			l.ops.Add(1)
			run, err := h.k.Run(ctx, kernel.RunOptions{SessionID: main.ID, Prompt: "write the database", Model: model})
			if err != nil || run.Status != kernel.RunCompleted {
				l.fail("the session's run %d: %v %s %s", r, err, run.Status, run.Error)
				return
			}
			calls, err := h.k.Calls(ctx, run.ID)
			if err != nil {
				l.fail("calls: %v", err)
				return
			}
			for _, c := range calls {
				l.ops.Add(1)
				if !strings.Contains(c.Result.Text, "wrote") && !strings.Contains(c.Result.Text, "switched") {
					l.fail("a command of the session failed:\n%s", c.Result.Text)
				}
			}
			changes, err := h.k.Changes(ctx, main.ID)
			if err != nil {
				l.fail("changes: %v", err)
				return
			}
			for _, c := range changes {
				l.fail("the database's write was taken for a change of %s", c.Path)
			}
			sessionRuns++
		}
	})
	// The outside processes, each in its own loop until the session is done
	// (soak) or for loops turns.
	var modesSet []string
	var execs, settingsSet, providersAdded, sqliteWrites atomic.Int64
	outside := func(body func(i int) bool) {
		wg.Go(func() {
			for i := 0; until(i, deadline); i++ {
				if !body(i) {
					return
				}
			}
		})
	}
	outside(func(i int) bool {
		mode := []string{"auto", "manual"}[i%2]
		ok := l.foya(bin, "foya mode", "mode", other.ID, mode, "--db", db)
		if ok {
			modesSet = append(modesSet, mode)
		}
		return ok
	})
	execSrv := pt.New(t)
	outside(func(i int) bool {
		execSrv.Append(pt.Say("hello"))
		ok := l.foya(bin, "foya exec --session", "exec", "--session", execSess.ID, "--base-url", execSrv.URL, "--api-key", "x",
			"--model", "m", "--db", db, "hello")
		if ok {
			execs.Add(1)
		}
		return ok
	})
	outside(func(i int) bool {
		ok := l.foya(bin, "foya settings set", "settings", "--db", db, "set", fmt.Sprintf("model.images.loop-%d", i), "true") &&
			l.foya(bin, "foya sessions", "sessions", "--db", db)
		if ok {
			settingsSet.Add(1)
		}
		return ok
	})
	outside(func(i int) bool {
		ok := l.foya(bin, "foya providers add", "providers", "add", fmt.Sprintf("p%d", i), "--base-url", execSrv.URL, "--model", "m", "--db", db)
		if ok {
			providersAdded.Add(1)
		}
		return ok
	})
	outside(func(i int) bool {
		if _, ok := l.sqlite(db, "read", "SELECT count(*) FROM events; SELECT count(*) FROM sessions;"); !ok {
			return false
		}
		_, ok := l.sqlite(db, "write", fmt.Sprintf("INSERT INTO settings (key, value) VALUES ('test.sqlite.%d', 'x');", i))
		if ok {
			sqliteWrites.Add(1)
		}
		return ok
	})
	wg.Wait()
	for _, f := range l.failures() {
		t.Error(f)
	}
	if t.Failed() {
		return
	}

	// Nothing lost.
	count := func(sql string) int {
		out, err := runSQLite(db, sql)
		if err != nil {
			t.Fatalf("sqlite3: %v", err)
		}
		n, _ := strconv.Atoi(strings.TrimSpace(out))
		return n
	}
	if n := count(`SELECT count(*) FROM settings WHERE key LIKE 'test.cmd.%'`); n != 4*sessionRuns {
		t.Errorf("the session's commands wrote %d settings; %d are there", 4*sessionRuns, n)
	}
	if n := count(`SELECT count(*) FROM settings WHERE key LIKE 'test.sqlite.%'`); n != int(sqliteWrites.Load()) {
		t.Errorf("the sqlite3 shell wrote %d settings; %d are there", sqliteWrites.Load(), n)
	}
	if n := count(`SELECT count(*) FROM settings WHERE key LIKE 'model.images.loop-%'`); n != int(settingsSet.Load()) {
		t.Errorf("foya settings set wrote %d settings; %d are there", settingsSet.Load(), n)
	}
	if n := count(fmt.Sprintf(`SELECT count(*) FROM runs WHERE session_id = '%s' AND status = 'completed'`, execSess.ID)); n != int(execs.Load()) {
		t.Errorf("foya exec --session completed %d runs; %d are stored", execs.Load(), n)
	}
	profiles, err := h.k.Profiles().List(ctx)
	if err != nil || len(profiles) != int(providersAdded.Load()) {
		t.Errorf("foya providers add added %d; %d are there (%v)", providersAdded.Load(), len(profiles), err)
	}
	if out, err := runSQLite(db, "PRAGMA integrity_check;"); err != nil || strings.TrimSpace(out) != "ok" {
		t.Errorf("integrity_check: %q %v", out, err)
	}
	// The mode changes made from the terminal reached the kernel's
	// subscribers as events, in order.
	last := modesSet[len(modesSet)-1]
	testwait.Until(t, "the session.mode events of the terminal's foya mode", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(modes) == len(modesSet)
	})
	mu.Lock()
	if strings.Join(modes, " ") != strings.Join(modesSet, " ") {
		t.Errorf("session.mode events published %v; the terminal set %v", modes, modesSet)
	}
	mu.Unlock()
	if s, err := h.k.Session(ctx, other.ID); err != nil || s.ApprovalMode != last {
		t.Errorf("the session's mode is %q (%v); the terminal set %q last", s.ApprovalMode, err, last)
	}
	t.Logf("database %s the workspace: %d operations (%d session runs, %d foya exec, %d foya mode, %d providers added, %d sqlite3 writes), errors: %d",
		map[bool]string{true: "inside", false: "outside"}[inside], l.ops.Load(), sessionRuns, execs.Load(), len(modesSet),
		providersAdded.Load(), sqliteWrites.Load(), len(l.failures()))
}
