package tests

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
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

	"foya/backend/event"
	"foya/backend/kernel"
	"foya/backend/llm"
	pt "foya/backend/provider/providertest"
	"foya/backend/testwait"
)

// bigContent returns n bytes of numbered text lines. Each line is built
// by hand, not with fmt: a 100 MiB content is two million lines, and under
// -race fmt.Fprintf took seconds of them.
func bigContent(n int) string {
	const tail = " of a large file written in one call\n"
	var b strings.Builder
	b.Grow(n + 64)
	var num [8]byte
	for i := 0; b.Len() < n; i++ {
		for j, v := len(num)-1, i; j >= 0; j, v = j-1, v/10 {
			num[j] = byte('0' + v%10)
		}
		b.WriteString("line ")
		b.Write(num[:])
		b.WriteString(tail)
	}
	return b.String()[:n]
}

// writeArgs returns write's arguments for path and content as a model
// sends them: JSON with only the escapes JSON needs. The builder is grown
// once and its string not copied: content may be 100 MiB.
func writeArgs(path, content string) string {
	var b strings.Builder
	b.Grow(len(path) + len(content) + len(content)/16 + 64)
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(map[string]string{"path": path, "content": content})
	return strings.TrimSuffix(b.String(), "\n")
}

// fileSum returns the SHA-256 and the size of a file, read in pieces.
func fileSum(path string) (sum [sha256.Size]byte, n int64, err error) {
	f, err := os.Open(path)
	if err != nil {
		return sum, 0, err
	}
	defer f.Close()
	h := sha256.New()
	n, err = io.Copy(h, f)
	h.Sum(sum[:0])
	return sum, n, err
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
		if ev.Type == event.TypeRunEnd {
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
	testwait.Receive(t, polled, "the poller to stop")
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
// (a model's argument must not make events, database or memory grow
// many times over): the call's events stay small (the first 4 KiB of the
// arguments, then byte counts), the database holds the arguments once, and
// the process's peak memory stays within a small multiple of them. Over
// the 64 MiB default limit the write is refused with an error that names
// the setting; with the limit raised (foya settings set) it is written, and
// its content is the same blob as the call's arguments. Either way the
// arguments read back from the history are exactly those the model sent.
//
// spec: L1, L2, T2, T4, O4, F1
func TestExecLargeWriteIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("streams 100 MiB twice")
	}
	bin := foyaBinary(t)
	const size = 100 << 20
	content := bigContent(size)
	contentSum := sha256.Sum256([]byte(content))
	args := writeArgs("big.txt", content)
	content = ""
	sum := sha256.Sum256([]byte(args))
	for _, tc := range []struct {
		name  string
		limit string // files.maxWriteBytes, if set
		want  string // the result's text, or its start
		peak  int64  // bound on the peak resident set
	}{
		{"refused", "", "write: content is 100.0 MiB; the limit is 64.0 MiB (setting files.maxWriteBytes): write large files in parts or generate them with a command", 4*size + 64<<20},
		{"written", "128MiB", "Created big.txt", 6*size + 64<<20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := pt.New(t, pt.Calls(pt.Call{ID: "c1", Name: "write", Arguments: args, Chunk: 256 << 10}), pt.Say("done"))
			dir := t.TempDir()
			db := filepath.Join(t.TempDir(), "foya.db")
			if tc.limit != "" {
				if res := runFoya(t, bin, nil, "settings", "--db", db, "set", "files.maxWriteBytes", tc.limit); res.code != 0 {
					t.Fatalf("foya settings set: %d %s", res.code, res.stderr)
				}
			}
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
				case event.TypeToolUpdate:
					updates++
				case event.TypeToolEnd:
					end = ev
				}
			}
			t.Logf("call c1: %d events, %d bytes (%d updates); database %d bytes; peak RSS %.1f MiB",
				callEvents, callBytes, updates, dbSize(t, db), float64(peak)/(1<<20))
			if code != 0 {
				last := evs[len(evs)-1]
				t.Fatalf("foya exec: exit %d; last event %s %.300s", code, last.Type, last.Data)
			}
			text, _ := field(end, "text").(string)
			// Hashed as it is read: 100 MiB more in this race-enabled
			// process costs seconds of the race detector's bookkeeping.
			gotSum, gotLen, err := fileSum(filepath.Join(dir, "big.txt"))
			if tc.limit == "" {
				if field(end, "isError") != true || text != tc.want || !os.IsNotExist(err) {
					t.Errorf("tool.end %.300s, big.txt: %v; want the error %q and no file", end.Data, err, tc.want)
				}
			} else if !strings.HasPrefix(text, tc.want) || gotSum != contentSum {
				t.Errorf("tool.end %.300s, big.txt: %d bytes, %v; want %q and the content", end.Data, gotLen, err, tc.want)
			}
			// 400 pieces arrived; no more than one update per MiB or a few a second.
			if callBytes > 64<<10 || updates > 200 {
				t.Errorf("the call's events: %d of them, %d bytes; want under 64 KiB and 200 updates", callEvents, callBytes)
			}
			if n := dbSize(t, db); n > 2*size {
				t.Errorf("database %d bytes after a %d-byte call; want under twice the arguments", n, size)
			}
			if peak == 0 {
				t.Log("no /proc/PID/status here: the peak resident set is not measured")
			}
			if peak > tc.peak {
				t.Errorf("peak RSS %.1f MiB; want under %.1f MiB", float64(peak)/(1<<20), float64(tc.peak)/(1<<20))
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
		})
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

// argsUpdates returns, for call id, the argsDelta pieces joined, the
// argsBytes of its last streaming update, and how many such updates came.
func argsUpdates(evs []llm.Event, id string) (preview string, last int, n int) {
	for _, ev := range evs {
		if ev.Type != event.TypeToolUpdate || field(ev, "id") != id || field(ev, "argsBytes") == nil {
			continue
		}
		n++
		if d, ok := field(ev, "argsDelta").(string); ok {
			preview += d
		}
		last = int(field(ev, "argsBytes").(float64))
	}
	return preview, last, n
}

// A write of 2 MiB: its content is stored once, as one
// blob that the call's row, the assistant message and the file change's
// "after" share; the history gives the exact arguments back; clients saw
// the first 4 KiB of the arguments and then only their size; and the next
// request sends a note instead of the content.
//
// spec: L1, T2, F1, O5
func TestLargeWriteSharesItsContentBlob(t *testing.T) {
	content := bigContent(2 << 20)
	args := writeArgs("big.txt", content)
	h := newHarness(t, nil, pt.Calls(pt.Call{ID: "w1", Name: "write", Arguments: args, Chunk: 64 << 10}), pt.Say("done"))
	run := h.run("write it")
	if run.Status != kernel.RunCompleted {
		t.Fatalf("run %s: %s", run.Status, run.Error)
	}
	if got, err := os.ReadFile(filepath.Join(h.dir, "big.txt")); err != nil || string(got) != content {
		t.Fatalf("big.txt: %d bytes, %v; want the content", len(got), err)
	}
	if n := dbInt(t, h.db, `SELECT count(*) FROM blobs WHERE size = ?`, len(content)); n != 1 {
		t.Errorf("%d blobs of the content's size; want 1, shared by the call, the message and the file change", n)
	}
	if n := dbInt(t, h.db, `SELECT coalesce(sum(size), 0) FROM blobs`); n > int64(len(content))+1<<10 {
		t.Errorf("blobs hold %d bytes for %d bytes of content; want one copy", n, len(content))
	}
	if n := dbInt(t, h.db, `SELECT length(arguments) + length(args_ref) FROM tool_calls WHERE id = 'w1'`); n > 1<<10 {
		t.Errorf("the call's row holds %d bytes of arguments; want a reference", n)
	}
	if n := dbInt(t, h.db, `SELECT max(length(body)) FROM messages`); n > 4<<10 {
		t.Errorf("a stored message of %d bytes; want references only", n)
	}
	changes, err := h.k.Changes(context.Background(), run.SessionID)
	if err != nil || len(changes) != 1 || changes[0].SHAAfter != fmt.Sprintf("%x", sha256.Sum256([]byte(content))) {
		t.Fatalf("changes %+v, %v; want one whose after is the content", changes, err)
	}

	msgs, _ := h.k.Messages(context.Background(), run.SessionID)
	calls, _ := h.k.Calls(context.Background(), run.ID)
	if msgs[1].Message.ToolCalls[0].Arguments != args || calls[0].Arguments != args {
		t.Error("the arguments read back from the history differ from those the model sent")
	}

	preview, last, n := argsUpdates(h.eventList(), "w1")
	if preview != args[:4<<10] || last != len(args) || n > 12 {
		t.Errorf("%d updates with %d bytes of preview, last count %d; want the first 4 KiB, then %d, in a few updates",
			n, len(preview), last, len(args))
	}

	reqs := h.srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests; want 2", len(reqs))
	}
	var sent string
	for _, m := range reqs[1].Messages {
		for _, c := range m.ToolCalls {
			sent = c.Arguments
		}
	}
	var v map[string]string
	if err := json.Unmarshal([]byte(sent), &v); err != nil || v["path"] != "big.txt" || !strings.Contains(v["content"], "2097152 bytes left out") || len(reqs[1].Raw) > 64<<10 {
		t.Errorf("the second request (%d bytes) sent the call as %.200q; want the path and a note", len(reqs[1].Raw), sent)
	}

	// A later turn reads the history back from the store: the same note,
	// byte for byte, so the prompt cache still hits.
	h.srv.Append(pt.Say("still done"))
	h.runIn(context.Background(), run.SessionID, "and now?")
	reqs = h.srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests; want 3", len(reqs))
	}
	var again string
	for _, m := range reqs[2].Messages {
		for _, c := range m.ToolCalls {
			again = c.Arguments
		}
	}
	if again != sent || len(reqs[2].Raw) > 64<<10 {
		t.Errorf("the next turn's request (%d bytes) sent the call as %.200q; want the same note as before", len(reqs[2].Raw), again)
	}
}

// Arguments escaped in a way JSON allows but Foya would not write (\/,
// upper-case \u escapes) still come back byte for byte.
//
// spec: T2
func TestLargeArgumentsComeBackExactly(t *testing.T) {
	body := strings.Repeat(`line with a \/ slash and \u00E9\n`, 4000)
	args := `{"path":"odd.txt","content":"` + body + `"}`
	h := newHarness(t, nil, pt.Calls(pt.Call{ID: "w1", Name: "write", Arguments: args, Chunk: 10000}), pt.Say("done"))
	run := h.run("write it")
	calls, err := h.k.Calls(context.Background(), run.ID)
	if err != nil || calls[0].Arguments != args {
		t.Fatalf("call read back: %v; want the exact arguments", err)
	}
	if n := dbInt(t, h.db, `SELECT count(*) FROM tool_calls WHERE id = 'w1' AND args_ref IS NOT NULL AND length(args_ref) > 0`); n != 1 {
		t.Fatal("the call's arguments are not stored by reference")
	}
	msgs, _ := h.k.Messages(context.Background(), run.SessionID)
	if msgs[1].Message.ToolCalls[0].Arguments != args {
		t.Fatal("the message read back differs from the model's")
	}
}

// Small arguments still reach clients whole, as argsDelta pieces, each
// update with the size so far; and a call streamed in 1 KiB pieces gives a
// few updates, not one per piece.
//
// spec: L1
func TestArgumentUpdatesAreBounded(t *testing.T) {
	small := `{"query":"anything at all"}`
	long := writeArgs("x.txt", bigContent(3<<20))
	h := newHarness(t, nil,
		pt.Calls(pt.Call{ID: "s1", Name: "tool_search", Arguments: small},
			pt.Call{ID: "l1", Name: "write", Arguments: long, Chunk: 1 << 10}),
		pt.Say("done"))
	h.run("go")
	evs := h.eventList()
	if preview, last, n := argsUpdates(evs, "s1"); preview != small || last != len(small) || n == 0 {
		t.Errorf("small call: preview %q, count %d; want the whole arguments", preview, last)
	}
	preview, last, n := argsUpdates(evs, "l1")
	if preview != long[:4<<10] || last != len(long) {
		t.Errorf("long call: %d bytes of preview, last count %d; want 4096 and %d", len(preview), last, len(long))
	}
	// 3,000 pieces: at most the preview's pieces, one per MiB, two a
	// second and the closing count.
	if n > 40 {
		t.Errorf("long call: %d updates for 3,000 pieces; want a few", n)
	}
}

// files.maxWriteBytes bounds one write's content: it is
// a setting with a 64 MiB default, read at each call; over it, write says
// how large the content is, what the limit is and which setting holds it.
//
// spec: T4, K1
func TestWriteLimitIsASetting(t *testing.T) {
	ctx := context.Background()
	big, small := bigContent(2<<20), bigContent(512<<10)
	h := newHarness(t, nil,
		pt.Calls(call("w1", "write", writeArgs("big.txt", big)), call("w2", "write", writeArgs("small.txt", small))),
		pt.Say("done"))
	all, _ := h.k.Settings(ctx)
	if all[kernel.SettingMaxWrite] != "67108864" {
		t.Errorf("default %s = %q; want 67108864", kernel.SettingMaxWrite, all[kernel.SettingMaxWrite])
	}
	for _, bad := range []string{"", "0", "-5", "lots", "12 TB", "99999999999GiB", "5KiBMiB", "1.5MiB"} {
		if err := h.k.SetSetting(ctx, kernel.SettingMaxWrite, bad); err == nil {
			t.Errorf("SetSetting(%q) = nil; want an error", bad)
		}
	}
	if err := h.k.SetSetting(ctx, kernel.SettingMaxWrite, "1MiB"); err != nil {
		t.Fatal(err)
	}
	h.run("write both")
	var texts []string
	for _, ev := range h.eventList() {
		if ev.Type == event.TypeToolEnd {
			texts = append(texts, fmt.Sprint(field(ev, "text")))
		}
	}
	want := "write: content is 2.0 MiB; the limit is 1.0 MiB (setting files.maxWriteBytes): write large files in parts or generate them with a command"
	if len(texts) != 2 || texts[0] != want || !strings.HasPrefix(texts[1], "Created small.txt") {
		t.Fatalf("results %q; want %q, then small.txt created", texts, want)
	}
	if _, err := os.Stat(filepath.Join(h.dir, "big.txt")); !os.IsNotExist(err) {
		t.Errorf("big.txt: %v; want nothing written", err)
	}
}

// foya exec's readable output names a large call by its path, though
// clients get only the first 4 KiB of its arguments.
//
// spec: L1
func TestExecReadableNamesALargeCall(t *testing.T) {
	bin := foyaBinary(t)
	srv := pt.New(t, pt.Calls(pt.Call{ID: "c1", Name: "write", Arguments: `{"path":"notes.txt","content":` + strconv.Quote(bigContent(100<<10)) + `}`}), pt.Say("done"))
	dir := t.TempDir()
	res := runFoya(t, bin, nil, "exec", "--base-url", srv.URL, "--api-key", "x", "--model", "m",
		"--db", filepath.Join(t.TempDir(), "foya.db"), "--workdir", dir, "--approval", "auto", "write notes")
	if res.code != 0 || !strings.Contains(res.stderr, "✓ write notes.txt: Created notes.txt") {
		t.Fatalf("exit %d, stderr:\n%s\nwant the call named by its path", res.code, res.stderr)
	}
}
