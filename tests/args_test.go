package tests

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"foya/backend/kernel"
	"foya/backend/llm"
	pt "foya/backend/provider/providertest"
)

// bigContent returns n bytes of numbered text lines.
func bigContent(n int) string {
	var b strings.Builder
	b.Grow(n + 64)
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "line %08d of a large file written in one call\n", i)
	}
	return b.String()[:n]
}

// writeArgs returns write's arguments for path and content as a model
// sends them: JSON with only the escapes JSON needs.
func writeArgs(path, content string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(map[string]string{"path": path, "content": content})
	return strings.TrimSuffix(b.String(), "\n")
}

// execEvents runs foya exec --json with args and returns its events, the
// size in bytes of each event's line, its exit code and its peak resident
// set. The peak is VmHWM from /proc/PID/status, read while the process
// runs and once more, with the process stopped, when run.end arrives.
// (ru_maxrss from wait4 would not do: a child started from this test
// process inherits the test's own high-water mark through exec.)
func execEvents(t *testing.T, bin string, args ...string) (evs []llm.Event, sizes []int, code int, peak int64) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	var mu sync.Mutex
	note := func() {
		if n := vmHWM(pid); n > 0 {
			mu.Lock()
			peak = max(peak, n)
			mu.Unlock()
		}
	}
	done := make(chan struct{})
	polled := make(chan struct{})
	go func() {
		defer close(polled)
		for {
			note()
			select {
			case <-done:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	sc := bufio.NewScanner(out)
	sc.Buffer(nil, 512<<20)
	for sc.Scan() {
		var ev llm.Event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("line %.200q is not an event: %v", sc.Text(), err)
		}
		if ev.Type == llm.EventRunEnd {
			syscall.Kill(pid, syscall.SIGSTOP)
			note()
			syscall.Kill(pid, syscall.SIGCONT)
		}
		evs = append(evs, ev)
		sizes = append(sizes, len(sc.Bytes()))
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("read events: %v", err)
	}
	close(done)
	<-polled
	err = cmd.Wait()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if code != 0 {
		t.Logf("stderr: %s", stderr.String())
	}
	return evs, sizes, code, peak
}

// vmHWM is a process's peak resident set in bytes, or 0 once it is gone.
func vmHWM(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// dbSize is the size of a database with its write-ahead log.
func dbSize(t *testing.T, db string) int64 {
	t.Helper()
	var n int64
	for _, p := range []string{db, db + "-wal"} {
		if fi, err := os.Stat(p); err == nil {
			n += fi.Size()
		}
	}
	return n
}

// A 100 MiB write streamed in 256 KiB pieces through the real foya exec
// (issue 9 class 11): the call's events stay small (the first 4 KiB of the
// arguments, then byte counts), the database holds the arguments once, the
// process's peak memory stays within a small multiple of the arguments, and
// the write, over the 64 MiB default limit, is refused with an error that
// names the setting. The arguments read back from the history are exactly
// the ones the model sent.
//
// spec: L1, L2, T2, T4, O4
func TestExecLargeWriteIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("streams 100 MiB")
	}
	bin := foyaBinary(t)
	const size = 100 << 20
	content := bigContent(size)
	args := writeArgs("big.txt", content)
	sum := sha256.Sum256([]byte(args))
	srv := pt.New(t, pt.Calls(pt.Call{ID: "c1", Name: "write", Arguments: args, Chunk: 256 << 10}), pt.Say("done"))
	content = ""
	dir := t.TempDir()
	db := filepath.Join(t.TempDir(), "foya.db")
	evs, sizes, code, peak := execEvents(t, bin, "exec", "--base-url", srv.URL, "--api-key", "x", "--model", "m",
		"--db", db, "--workdir", dir, "--approval", "auto", "--json", "write a big file")

	var callEvents, callBytes, updates int
	var end llm.Event
	for i, ev := range evs {
		if field(ev, "id") != "c1" {
			continue
		}
		callEvents++
		callBytes += sizes[i]
		switch ev.Type {
		case llm.EventToolUpdate:
			updates++
		case llm.EventToolEnd:
			end = ev
		}
	}
	t.Logf("call c1: %d events, %d bytes (%d updates); database %d bytes; peak RSS %.1f MiB",
		callEvents, callBytes, updates, dbSize(t, db), float64(peak)/(1<<20))
	if code != 0 {
		last := evs[len(evs)-1]
		t.Fatalf("foya exec: exit %d; last event %s %.300s", code, last.Type, last.Data)
	}
	want := "write: content is 100.0 MiB; the limit is 64.0 MiB (setting files.maxWriteBytes): write large files in parts or generate them with a command"
	if field(end, "isError") != true || field(end, "text") != want {
		t.Errorf("tool.end %.300s; want the error %q", end.Data, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "big.txt")); !os.IsNotExist(err) {
		t.Errorf("big.txt: %v; want no file", err)
	}
	// 400 pieces arrived; no more than one update per MiB or a few a second.
	if callBytes > 64<<10 || updates > 200 {
		t.Errorf("the call's events: %d of them, %d bytes; want under 64 KiB and 200 updates", callEvents, callBytes)
	}
	if n := dbSize(t, db); n > 2*size {
		t.Errorf("database %d bytes after a %d-byte call; want under twice the arguments", n, size)
	}
	if peak > 4*size+64<<20 {
		t.Errorf("peak RSS %.1f MiB; want under 4 × 100 MiB + 64 MiB", float64(peak)/(1<<20))
	}
	// The next request does not carry the 100 MiB again.
	reqs := srv.Requests()
	if len(reqs) != 2 || len(reqs[1].Raw) > 1<<20 {
		t.Errorf("%d requests, the second of %d bytes; want 2, under 1 MiB", len(reqs), len(reqs[len(reqs)-1].Raw))
	}

	// The history keeps the exact arguments.
	k, err := kernel.Open(context.Background(), kernel.Options{DBPath: db})
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	list, _ := k.Sessions(context.Background())
	msgs, err := k.Messages(context.Background(), list[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, m := range msgs {
		for _, c := range m.Message.ToolCalls {
			if c.ID == "c1" {
				found = true
				if sha256.Sum256([]byte(c.Arguments)) != sum {
					t.Errorf("the stored call's arguments (%d bytes) differ from those sent", len(c.Arguments))
				}
			}
		}
	}
	if !found {
		t.Error("no call c1 in the history")
	}
}

// dbRows runs a query on a database file and returns its one int64.
func dbInt(t *testing.T, db, query string, args ...any) int64 {
	t.Helper()
	d, err := sql.Open("sqlite", "file:"+db+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var n sql.NullInt64
	if err := d.QueryRow(query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n.Int64
}
