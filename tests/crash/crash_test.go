package crash

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"foya/backend/kernel"
	"foya/backend/llm"
	"foya/backend/provider"
	pt "foya/backend/provider/providertest"
	"foya/backend/sandbox"
	"foya/backend/store"
)

var (
	kills = flag.Int("kills", 10, "how many foya exec runs to kill")
	seed  = flag.Uint64("seed", 0, "the first kill's seed (0: from the clock); kill i uses seed+i")
)

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == sandbox.HelperArg {
		os.Exit(sandbox.HelperMain(os.Args[2:]))
	}
	flag.Parse()
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

var (
	buildOnce sync.Once
	binDir    string
	binPath   string
	buildErr  error
)

// foyaBinary builds the real foya once, as a user's go build would: no
// desktop tags and no race detector, so each run starts as fast as the
// shipped command line does.
func foyaBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		binDir, buildErr = os.MkdirTemp("", "foya-crash-bin-")
		if buildErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "foya")
		out, err := exec.Command("go", "build", "-o", binPath, "../..").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// stats count where the kills landed.
type stats struct {
	killed, finished, interruptedCalls, unconfirmed, reverted int
}

// Kills foya exec at random moments of a scripted run that writes, edits,
// deletes and runs shell commands, and checks what a restart finds. Each
// kill is a subtest named by its seed; replay one with
// go test ./tests/crash -run 'TestCrash/seed=N$' -args -seed N -kills 1.
//
// spec: X2, K4, F1, D1
func TestCrash(t *testing.T) {
	bin := foyaBinary(t)
	first := *seed
	if first == 0 {
		first = uint64(time.Now().UnixNano())
	}
	t.Logf("seeds %d to %d (replay one: -args -seed N -kills 1)", first, first+uint64(*kills)-1)
	var st stats
	passed, failed := 0, 0
	for i := range *kills {
		s := first + uint64(i)
		ok := t.Run(fmt.Sprintf("seed=%d", s), func(t *testing.T) { crashOnce(t, bin, s, &st) })
		if ok {
			passed++
		} else {
			failed++
			t.Logf("seed %d failed; replay: go test ./tests/crash -run 'TestCrash/seed=%d$' -v -args -seed %d -kills 1", s, s, s)
		}
	}
	msg := fmt.Sprintf("crash harness: %d passed, %d failed (%d killed during the run, %d ran to the end first; %d calls interrupted; %d unconfirmed File Changes; %d reverts after a restart)",
		passed, failed, st.killed, st.finished, st.interruptedCalls, st.unconfirmed, st.reverted)
	t.Log(msg)
	fmt.Println(msg)
}

// crashOnce runs one scripted foya exec in a fresh data folder and
// workspace, kills it, and checks the restart.
func crashOnce(t *testing.T, bin string, s uint64, st *stats) {
	rng := rand.New(rand.NewPCG(s, s^0x9e3779b97f4a7c15))
	base := t.TempDir()
	ws := filepath.Join(base, "ws")
	data := filepath.Join(base, "data")
	home := filepath.Join(base, "home")
	pids := filepath.Join(base, "pids")
	for _, d := range []string{ws, data, home, pids} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	// The trash lives under XDG_DATA_HOME: the child's and ours are one.
	t.Setenv("HOME", home)
	t.Setenv("XDG_DATA_HOME", filepath.Join(home, ".local", "share"))
	db := filepath.Join(data, "foya.db")
	log := filepath.Join(base, "calls.log")
	sc := plan(rng, log, pids)
	srv := pt.New(t, sc.turns...)
	killAt := 1 + rng.IntN(sc.events())
	pause := time.Duration(rng.IntN(3000)) * time.Microsecond

	cmd := exec.Command(bin, "exec", "--base-url", srv.URL, "--api-key", "x", "--model", "m", "--db", db,
		"--workdir", ws, "--approval", "full-access", "--json", "work on the files")
	cmd.Env = append(os.Environ(), "FOYA_DB=", "OPENAI_BASE_URL=", "OPENAI_API_KEY=")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(out)
	lines.Buffer(make([]byte, 1<<20), 1<<24)
	n := 0
	for n < killAt && lines.Scan() {
		n++
	}
	finished := n < killAt
	if !finished {
		time.Sleep(pause)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	for lines.Scan() {
	}
	cmd.Wait()
	if finished {
		st.finished++
	} else {
		st.killed++
	}
	t.Logf("%d calls in %d turns; killed after event %d (+%v)%s", sc.calls, len(sc.turns), n, pause, map[bool]string{true: ", after the run ended"}[finished])

	ctx := context.Background()
	c := &checker{t: t, db: db, ws: ws, log: log, kinds: sc.kinds}
	// The database as the kill left it, then as the app opens it.
	c.integrity(ctx, db, "after the kill")
	before := c.unfinished(ctx, db)
	k, err := kernel.Open(ctx, kernel.Options{DBPath: db})
	if err != nil {
		t.Fatalf("open the kernel after the kill: %v\nfoya's stderr: %s", err, stderr.String())
	}
	defer k.Close()
	sessions, err := k.Sessions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	c.backgroundGone(pids)
	c.noTempFiles("after the restart")
	if len(sessions) == 0 {
		c.logCounts(nil) // killed before the session was stored: nothing ran
		return
	}
	if len(sessions) != 1 {
		t.Fatalf("%d sessions; want 1", len(sessions))
	}
	sess := sessions[0]
	calls := c.runs(ctx, k, sess.ID, before, st)
	c.logCounts(calls)
	st.unconfirmed += c.changes(ctx, k, sess.ID)
	if c.revert(ctx, k, sess.ID) {
		st.reverted++
	}
	c.noTempFiles("after the revert")
	c.goOn(ctx, k, sess.ID)
	c.integrity(ctx, db, "after the restart")
}

// checker holds one kill's checks.
type checker struct {
	t     *testing.T
	db    string
	ws    string
	log   string
	kinds map[string]string
}

func (c *checker) integrity(ctx context.Context, db, when string) {
	c.t.Helper()
	if _, err := os.Stat(db); errors.Is(err, fs.ErrNotExist) {
		return // killed before the database was made
	}
	problems, err := store.Check(ctx, db)
	if err != nil || problems != nil {
		c.t.Errorf("PRAGMA integrity_check %s: %v %q", when, err, problems)
	}
}

// unfinished returns, by run, the calls of the runs the kill left
// running, as stored before any recovery.
func (c *checker) unfinished(ctx context.Context, db string) map[string][]llm.CallRecord {
	out := map[string][]llm.CallRecord{}
	if _, err := os.Stat(db); errors.Is(err, fs.ErrNotExist) {
		return out
	}
	s, err := store.Open(ctx, db)
	if err != nil {
		c.t.Fatalf("open the store after the kill: %v", err)
	}
	defer s.Close()
	runs, err := s.RunningRuns(ctx)
	if err != nil {
		c.t.Fatal(err)
	}
	for _, r := range runs {
		calls, err := s.Calls(ctx, r.ID)
		if err != nil {
			c.t.Fatal(err)
		}
		out[r.ID] = calls
	}
	return out
}

// runs checks that every run the kill left running is interrupted now,
// that its unfinished calls got the "interrupted, not replayed" result and
// its finished ones kept theirs (spec X2), and that no call is left
// unfinished. It returns every stored call by ID.
func (c *checker) runs(ctx context.Context, k *kernel.Kernel, sessionID string, before map[string][]llm.CallRecord, st *stats) map[string]kernel.Call {
	c.t.Helper()
	runs, err := k.Runs(ctx, sessionID)
	if err != nil {
		c.t.Fatal(err)
	}
	all := map[string]kernel.Call{}
	for _, r := range runs {
		calls, err := k.Calls(ctx, r.ID)
		if err != nil {
			c.t.Fatal(err)
		}
		was, running := before[r.ID]
		if running && r.Status != kernel.RunInterrupted {
			c.t.Errorf("run %s was running at the kill; after the restart it is %s, want interrupted (its owner's lock is open in: %s)", r.ID, r.Status, holders(c.db+".owners"))
		}
		if r.Status == kernel.RunRunning {
			c.t.Errorf("run %s is still running after the restart", r.ID)
		}
		prior := map[string]llm.CallRecord{}
		for _, cr := range was {
			prior[cr.ID] = cr
		}
		for _, cl := range calls {
			if _, dup := all[cl.ID]; dup {
				c.t.Errorf("call %s is stored twice", cl.ID)
			}
			all[cl.ID] = cl
			if !llm.CallState(cl.State).Terminal() {
				c.t.Errorf("call %s (%s) is %s after the restart", cl.ID, cl.Name, cl.State)
			}
			p, ok := prior[cl.ID]
			switch {
			case !ok:
			case p.State.Terminal():
				if string(cl.State) != string(p.State) || cl.Result == nil || p.Result == nil || cl.Result.Text != p.Result.Text {
					c.t.Errorf("call %s had ended %s before the restart; now %s: recovery must keep a finished call's result", cl.ID, p.State, cl.State)
				}
			default:
				st.interruptedCalls++
				if cl.State != kernel.CallInterrupted || cl.Result == nil || !strings.Contains(cl.Result.Text, "interrupted, not replayed") {
					c.t.Errorf("call %s was %s at the kill; now %s %+v, want interrupted, not replayed", cl.ID, p.State, cl.State, cl.Result)
				}
			}
		}
	}
	return all
}

// logCounts checks that no shell command ran twice (each appends its call
// ID to the log once), that every foreground command stored as done ran,
// and that none stored as waiting to run did.
func (c *checker) logCounts(calls map[string]kernel.Call) {
	c.t.Helper()
	b, err := os.ReadFile(c.log)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		c.t.Fatal(err)
	}
	count := map[string]int{}
	for _, l := range strings.Fields(string(b)) {
		count[l]++
	}
	for id, n := range count {
		if n > 1 {
			c.t.Errorf("call %s ran %d times", id, n)
		}
		cl, ok := calls[id]
		switch {
		case !ok:
			c.t.Errorf("call %s ran but is not stored", id)
		case cl.State == kernel.CallInterrupted && cl.Result != nil && strings.Contains(cl.Result.Text, "waiting to run"):
			c.t.Errorf("call %s ran but its result says it was waiting to run: %s", id, cl.Result.Text)
		}
	}
	for id, cl := range calls {
		if c.kinds[id] == kindBash && cl.State == kernel.CallDone && count[id] != 1 {
			c.t.Errorf("call %s is stored as done but its command ran %d times", id, count[id])
		}
	}
}

// backgroundGone checks that no background command outlived the killed
// foya (their process trees die with it). A PID is taken for the command
// only while the process it names runs "sleep" in this workspace: a PID
// whose process ended may have been given to someone else's since, which
// must be neither blamed nor touched. One that is the command's is killed.
func (c *checker) backgroundGone(pids string) {
	c.t.Helper()
	entries, _ := os.ReadDir(pids)
	for _, e := range entries {
		b, _ := os.ReadFile(filepath.Join(pids, e.Name()))
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil || pid <= 1 {
			continue // killed while writing it
		}
		ours := func() bool {
			stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
			if err != nil {
				return false
			}
			// A zombie is dead; its parent has not reaped it yet.
			if _, rest, _ := strings.Cut(string(stat), ") "); strings.HasPrefix(rest, "Z") {
				return false
			}
			cwd, err := os.Readlink(fmt.Sprintf("/proc/%d/cwd", pid))
			cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
			return err == nil && cwd == c.ws && strings.HasPrefix(string(cmdline), "sleep\x00")
		}
		deadline := time.Now().Add(5 * time.Second)
		for ours() && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if ours() {
			c.t.Errorf("background command %s (pid %d) outlived the killed foya: %s", strings.TrimSuffix(e.Name(), ".pid"), pid, ancestry(pid))
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// holders lists the processes that have a file of dir open, for a
// failure message.
func holders(dir string) string {
	var out []string
	procs, _ := filepath.Glob("/proc/[0-9]*/fd/*")
	for _, fd := range procs {
		if l, err := os.Readlink(fd); err == nil && strings.HasPrefix(l, dir) {
			pid, _ := strconv.Atoi(strings.Split(fd, "/")[2])
			out = append(out, fd+" → "+filepath.Base(l)+": "+ancestry(pid))
		}
	}
	return strings.Join(out, "; ")
}

// ancestry describes a process and its parents, for a failure message.
func ancestry(pid int) string {
	var parts []string
	for range 4 {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			break
		}
		cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		_, rest, _ := strings.Cut(string(stat), ") ")
		f := strings.Fields(rest)
		parts = append(parts, fmt.Sprintf("%d %s [%s]", pid, f[0], strings.ReplaceAll(strings.TrimSpace(string(cmdline)), "\x00", " ")))
		if pid, err = strconv.Atoi(f[1]); err != nil || pid <= 1 {
			break
		}
	}
	return strings.Join(parts, " <- ")
}

// disk is what a path holds now, in File Change terms.
type disk struct {
	exists, dir bool
	sha         string
	perm        uint32
}

func (c *checker) stat(path string) disk {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return disk{}
	}
	if err != nil {
		c.t.Fatal(err)
	}
	d := disk{exists: true, dir: fi.IsDir(), perm: uint32(fi.Mode().Perm())}
	if fi.Mode().IsRegular() {
		b, err := os.ReadFile(path)
		if err != nil {
			c.t.Fatal(err)
		}
		sum := sha256.Sum256(b)
		d.sha = hex.EncodeToString(sum[:])
	}
	return d
}

// matches reports whether a path's state is the after side of a change
// (or, with before, its before side).
func matches(d disk, fc kernel.Change, before bool) bool {
	exists, sha, mode := fc.ExistsAfter, fc.SHAAfter, fc.ModeAfter
	if before {
		exists, sha, mode = fc.ExistedBefore, fc.SHABefore, fc.ModeBefore
	}
	if d.exists != exists {
		return false
	}
	if !exists || fc.IsDir {
		return !exists || d.dir
	}
	return !d.dir && d.sha == sha && (mode == 0 || d.perm == mode&0o777)
}

// changes checks every File Change of the session: for each path they
// follow one another (each one's before is the one before it's after), the
// newest matches the disk, unless a change is marked unconfirmed, and no
// foreground call made two changes to one path (it would have run twice).
// The check holds for any File Change, whichever tool made it. It returns
// how many are unconfirmed.
func (c *checker) changes(ctx context.Context, k *kernel.Kernel, sessionID string) int {
	c.t.Helper()
	list, err := k.Changes(ctx, sessionID)
	if err != nil {
		c.t.Fatal(err)
	}
	last := map[string]kernel.Change{}
	seen := map[string]bool{}
	unconfirmed := 0
	for _, fc := range list {
		if fc.Unconfirmed {
			unconfirmed++
		}
		key := fc.CallID + "\x00" + fc.Path
		// A background command's changes are looked at whenever it may
		// have made some (before another command, before a file tool
		// changes a path, at its end), so one `>>` can be recorded as the
		// file's creation and then its write: several records, which
		// must still follow one another.
		if fc.CallID != "" && seen[key] && c.kinds[fc.CallID] != kindBg {
			c.t.Errorf("call %s changed %s twice", fc.CallID, fc.Path)
		}
		seen[key] = true
		if prev, ok := last[fc.Path]; ok && !prev.Unconfirmed && !fc.Unconfirmed {
			if prev.ExistsAfter != fc.ExistedBefore || !fc.IsDir && prev.SHAAfter != fc.SHABefore {
				c.t.Errorf("change %s (%s by %s) of %s does not start where %s (%s by %s) left it; the path's records:\n%s",
					fc.ID, fc.Op, fc.CallID, fc.Path, prev.ID, prev.Op, prev.CallID, chain(list, fc.Path))
			}
		}
		last[fc.Path] = fc
	}
	for path, fc := range last {
		if fc.Unconfirmed {
			continue
		}
		if d := c.stat(path); !matches(d, fc, false) {
			c.t.Errorf("%s on disk (%+v) is not what its last change %s (%s by %s, %s) left, and the change is not marked unconfirmed; the path's records:\n%s",
				path, d, fc.ID, fc.Op, fc.CallID, c.kinds[fc.CallID], chain(list, path))
		}
	}
	return unconfirmed
}

// chain lists the records of one path, oldest first, for a failure's
// message: what each call found there, in the order they were stored.
func chain(list []kernel.Change, path string) string {
	var b strings.Builder
	for _, fc := range list {
		if fc.Path != path {
			continue
		}
		fmt.Fprintf(&b, "\t%s %s by %s (tool %s, run %s): exists %v→%v sha %.8s→%.8s unconfirmed=%v revertOf=%s at %s\n",
			fc.ID, fc.Op, fc.CallID, fc.Tool, fc.RunID, fc.ExistedBefore, fc.ExistsAfter, fc.SHABefore, fc.SHAAfter,
			fc.Unconfirmed, fc.RevertOf, fc.CreatedAt.Format("15:04:05.000000"))
	}
	return b.String()
}

// revert reverts the newest confirmed change of a file that no later
// change covers, and checks that the disk is back to its before side.
// It reports whether there was one.
func (c *checker) revert(ctx context.Context, k *kernel.Kernel, sessionID string) bool {
	c.t.Helper()
	list, err := k.Changes(ctx, sessionID)
	if err != nil {
		c.t.Fatal(err)
	}
	newest := map[string]string{}
	for _, fc := range list {
		newest[fc.Path] = fc.ID
	}
	for i := len(list) - 1; i >= 0; i-- {
		fc := list[i]
		// A change whose before side Foya could not keep (the file
		// changed while the index read it, as a background command's
		// append can) says so and is refused by a revert: nothing to check.
		if fc.IsDir || fc.Unconfirmed || fc.NotRestorable != "" || newest[fc.Path] != fc.ID {
			continue
		}
		res, err := k.Revert(ctx, kernel.RevertRequest{ChangeIDs: []string{fc.ID}})
		if err != nil || len(res.Conflicts) > 0 || len(res.Reverted) == 0 {
			c.t.Errorf("revert %s (%s of %s): %v, conflicts %+v", fc.ID, fc.Op, fc.Path, err, res.Conflicts)
			return true
		}
		if d := c.stat(fc.Path); !matches(d, fc, true) {
			c.t.Errorf("after reverting %s (%s), %s is %+v; want its before side", fc.ID, fc.Op, fc.Path, d)
		}
		return true
	}
	return false
}

// noTempFiles checks that no atomic write's temporary file is left in the
// workspace (their names: tempPrefix in backend/tools/files/atomic.go).
func (c *checker) noTempFiles(when string) {
	c.t.Helper()
	filepath.WalkDir(c.ws, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), ".foya-write-") {
			c.t.Errorf("temporary file %s is left %s", p, when)
		}
		return nil
	})
}

// goOn continues the session after the restart: the conversation goes on
// (every call the model saw is answered) and nothing runs again.
func (c *checker) goOn(ctx context.Context, k *kernel.Kernel, sessionID string) {
	c.t.Helper()
	logBefore, _ := os.ReadFile(c.log)
	srv := pt.New(c.t, pt.Say("carrying on"))
	model, err := provider.New(provider.Config{BaseURL: srv.URL, APIKey: "x", Model: "m", MaxRetries: -1})
	if err != nil {
		c.t.Fatal(err)
	}
	r, err := k.Run(ctx, kernel.RunOptions{SessionID: sessionID, Prompt: "go on", Model: model})
	if err != nil || r.Status != kernel.RunCompleted {
		c.t.Errorf("a run after the restart: %v %s %s", err, r.Status, r.Error)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		c.t.Fatalf("%d model requests after the restart; want 1", len(reqs))
	}
	answered := map[string]bool{}
	for _, m := range reqs[0].Messages {
		if m.Role == "tool" {
			answered[m.ToolCallID] = true
		}
	}
	for _, m := range reqs[0].Messages {
		for _, tc := range m.ToolCalls {
			if !answered[tc.ID] {
				c.t.Errorf("call %s is in the history sent to the model without an answer", tc.ID)
			}
		}
	}
	if logAfter, _ := os.ReadFile(c.log); string(logAfter) != string(logBefore) {
		c.t.Errorf("commands ran after the restart:\n%s", strings.TrimPrefix(string(logAfter), string(logBefore)))
	}
}
