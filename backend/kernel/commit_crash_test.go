package kernel

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"foya/backend/engine"
	"foya/backend/event"
	"foya/backend/llm"
	"foya/backend/store"
)

// crashChildEnv makes the test binary the process TestModeSwitchSurvivesAKill
// kills: it opens a kernel on the database it names and switches a mode.
const crashChildEnv = "FOYA_TEST_MODE_CRASH"

// hookedStore stops the child at the commit that stores a session's row or
// its session.mode event, before and after it is applied, and waits for the
// parent to let it go on: the parent kills it there instead.
type hookedStore struct {
	*store.Store
	in  *bufio.Reader
	out io.Writer
}

func (h hookedStore) Apply(ctx context.Context, c llm.Commit) ([]llm.Event, error) {
	hooked := c.Session != nil
	for _, ev := range c.Events {
		hooked = hooked || ev.Type == event.TypeSessionMode
	}
	if !hooked {
		return h.Store.Apply(ctx, c)
	}
	h.stop("before")
	evs, err := h.Store.Apply(ctx, c)
	h.stop("after")
	return evs, err
}

// stop says where the child is and waits for the parent's go-ahead.
func (h hookedStore) stop(where string) {
	fmt.Fprintln(h.out, "hook "+where)
	h.in.ReadString('\n')
}

// crashChild runs in the child process: it opens a kernel whose engine
// stores through hookedStore and runs op (set-mode: the session named in
// the environment to Full Access; create: a new Full Access session).
func crashChild(t *testing.T, op string) {
	ctx := context.Background()
	k, err := Open(ctx, Options{DBPath: os.Getenv("FOYA_TEST_DB")})
	if err != nil {
		t.Fatal(err)
	}
	hs := hookedStore{Store: k.store, in: bufio.NewReader(os.Stdin), out: os.Stdout}
	k.eng = engine.New(engine.Config{Store: hs, Tools: k.reg, Emit: k.publish, Owner: k.owner.id, Mask: k.mask})
	switch op {
	case "set-mode":
		err = k.SetMode(ctx, os.Getenv("FOYA_TEST_SESSION"), "full_access")
	case "create":
		_, err = k.CreateSession(ctx, NewSession{Workdir: os.Getenv("FOYA_TEST_WORKDIR"), ApprovalMode: "full_access"})
	}
	fmt.Println("done", err)
	k.Close()
}

// spec: A2, X2 — a switch to Full Access, and a session made in Full
// Access, is always on record: a process killed with SIGKILL just before
// or just after the commit that stores the session's mode leaves the mode
// and its session.mode event both stored or neither, never a mode with no
// record. The kill lands in a real child process, at the store's commit.
func TestModeSwitchSurvivesAKill(t *testing.T) {
	if op := os.Getenv(crashChildEnv); op != "" {
		crashChild(t, op)
		return
	}
	for _, op := range []string{"set-mode", "create"} {
		for _, at := range []string{"before", "after"} {
			t.Run(op+"/kill "+at, func(t *testing.T) { killAtCommit(t, op, at) })
		}
	}
}

// killAtCommit runs op in a child process, kills it with SIGKILL at the
// commit's hook at, and checks what the store holds.
func killAtCommit(t *testing.T, op, at string) {
	ctx := context.Background()
	dir := t.TempDir()
	db := filepath.Join(dir, "foya.db")
	st, err := store.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	manual, err := st.CreateSession(ctx, llm.Session{ID: "ses_manual", Workdir: dir, ApprovalMode: "manual"})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()

	cmd := exec.Command(os.Args[0], "-test.run=^TestModeSwitchSurvivesAKill$", "-test.count=1")
	cmd.Env = append(os.Environ(), crashChildEnv+"="+op, "FOYA_TEST_DB="+db, "FOYA_TEST_SESSION="+manual.ID,
		"FOYA_TEST_WORKDIR="+dir, "XDG_DATA_HOME="+filepath.Join(dir, "data"), "FOYA_DB=")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(stdout)
	killed := false
	for lines.Scan() {
		line := lines.Text()
		if line == "hook "+at {
			cmd.Process.Signal(syscall.SIGKILL)
			killed = true
			break
		}
		if line == "hook before" || line == "hook after" {
			io.WriteString(stdin, "go\n")
		}
	}
	cmd.Wait()
	if !killed {
		t.Fatalf("the child never reached the commit's hook %q", at)
	}

	st, err = store.Open(ctx, db)
	if err != nil {
		t.Fatalf("open the store after the kill: %v", err)
	}
	defer st.Close()
	sessions, err := st.Sessions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	fullAccess, records := 0, 0
	for _, s := range sessions {
		evs, err := st.EventsOfType(ctx, s.ID, event.TypeSessionMode)
		if err != nil {
			t.Fatal(err)
		}
		var to string
		for _, ev := range evs {
			var d event.SessionModeData
			if err := json.Unmarshal(ev.Data, &d); err != nil {
				t.Fatal(err)
			}
			to = d.To
		}
		if s.ApprovalMode == "full_access" {
			fullAccess++
		}
		if len(evs) > 0 {
			records++
		}
		if (s.ApprovalMode == "full_access") != (to == "full_access") {
			t.Errorf("killed %s the commit: session %s is in mode %s with session.mode events %d (last to %q); "+
				"want the mode and its record both stored or neither", at, s.ID, s.ApprovalMode, len(evs), to)
		}
	}
	// The kill landed where it was meant to: before the commit nothing of
	// the switch is stored, after it all of it is.
	want := map[string]int{"before": 0, "after": 1}[at]
	if fullAccess != want || records != want {
		t.Errorf("killed %s the commit: %d sessions in Full Access, %d with a session.mode record; want %d and %d",
			at, fullAccess, records, want, want)
	}
}
