package tests

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/creack/pty"

	"foya/backend/event"
	"foya/backend/kernel"
	"foya/backend/llm"
	pt "foya/backend/provider/providertest"
)

// hostile holds every way text can control a terminal that the model and
// its tools get to try.
const hostile = "\x1b]52;c;ZWNobyBwd25lZA==\x07" + // OSC 52: write the clipboard
	"\x1b]0;pwned title\x1b\\" + // OSC 0: window title, ST-terminated
	"\x1b[2J\x1b[H\x1b[3A" + // CSI: clear the screen, cursor home, cursor up
	"\x1bP1$qm\x1b\\\x1b_Gx\x1b\\\x1b^pm\x1b\\" + // DCS, APC, PM
	"\u009b2J\u009d0;c1 title\u009c" + // C1 CSI, OSC, ST as characters
	"\a\b\b\rOK " + // BEL, backspace and carriage-return overwrites
	"file\u202etxt.exe\u2066x\u2069" // bidi override and isolate

// Model text, tool names, arguments, tool results and
// errors holding terminal controls (OSC 52, OSC 0, CSI 2J, DCS/APC/PM, C1,
// BEL, BS, CR, bidi overrides) reach a real terminal (a pseudo-terminal)
// from foya exec without one ESC byte or C1 control; foya show prints them
// visibly too; --json stays exact JSON with the model's text intact.
//
// spec: L4
func TestExecKeepsTerminalControlsOffTheTerminal(t *testing.T) {
	bin := foyaBinary(t)
	dir := t.TempDir()
	db := filepath.Join(t.TempDir(), "foya.db")
	// A file whose contents the read tool returns.
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte(hostile+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	turns := func() []pt.Turn {
		return []pt.Turn{
			{Text: "Here: " + hostile + "\n", Calls: []pt.Call{
				call("r1", "read", `{"path":"notes.txt"}`),
				// Real control bytes on the command's output, and in the
				// command itself.
				call("b1", "bash", `{"command":`+q(`printf '\033]52;c;eA==\007\033]0;t\007\033[2J\302\233\r'; echo "`+hostile+`"; exit 3`)+`}`),
				call("x1", "no_such\x1b]0;tool title\a", `{"path":`+q(hostile)+`}`),
			}},
			pt.Say("done " + hostile),
		}
	}

	srv := pt.New(t, turns()...)
	cmd := exec.Command(bin, "exec", "--base-url", srv.URL, "--model", "m", "--db", db, "--workdir", dir,
		"--approval", "auto", "show me")
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	tty, err := pty.Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	var screen bytes.Buffer
	_, err = io.Copy(&screen, tty) // until foya exits and the terminal hangs up
	var pe *os.PathError
	if err != nil && !(errors.As(err, &pe)) {
		t.Fatal(err)
	}
	tty.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("foya exec: %v\n%q", err, screen.String())
	}
	out := screen.String()
	if !strings.Contains(out, "Here:") || !strings.Contains(out, "done") || !strings.Contains(out, "no_such") {
		t.Fatalf("the terminal did not show the run:\n%q", out)
	}
	// What was there is shown, visibly.
	if !strings.Contains(out, `\u001B]52;c;`) || !strings.Contains(out, `\u009B2J`) || !strings.Contains(out, `\u202E`) {
		t.Errorf("the controls are not shown visibly:\n%q", out)
	}
	assertInert(t, "foya exec on a terminal", out)

	// foya show prints the stored history the same way.
	sessions := runFoya(t, bin, nil, "sessions", "--db", db, "--json")
	var list []kernel.Session
	if err := json.Unmarshal([]byte(sessions.stdout), &list); err != nil || len(list) != 1 {
		t.Fatalf("sessions: %s %v", sessions.stdout, err)
	}
	show := runFoya(t, bin, nil, "show", "--db", db, list[0].ID)
	if show.code != 0 || !strings.Contains(show.stdout, "done") {
		t.Fatalf("show: %d %s %s", show.code, show.stdout, show.stderr)
	}
	assertInert(t, "foya show", show.stdout+show.stderr)

	// --json: exact JSON; the text decodes to exactly what the model sent.
	srv2 := pt.New(t, turns()...)
	res := runFoya(t, bin, nil, "exec", "--base-url", srv2.URL, "--model", "m", "--db", db, "--workdir", dir,
		"--approval", "auto", "--json", "again")
	if res.code != 0 {
		t.Fatalf("exec --json: exit %d %s", res.code, res.stderr)
	}
	assertInert(t, "foya exec --json", res.stdout)
	var text strings.Builder
	sc := bufio.NewScanner(strings.NewReader(res.stdout))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var ev llm.Event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("line %q is not JSON: %v", sc.Text(), err)
		}
		if ev.Type == event.TypeTextDelta {
			text.WriteString(field(ev, "text").(string))
		}
	}
	if want := "Here: " + hostile + "\n" + "done " + hostile; text.String() != want {
		t.Fatalf("--json text = %q; want the model's text exactly, %q", text.String(), want)
	}
}

// assertInert fails when s could control a terminal: an ESC, BEL or
// backspace byte, a C1 control as a byte or a character, a carriage return
// that does not end a line, a bidi control, or bytes that are not UTF-8.
func assertInert(t *testing.T, what, s string) {
	t.Helper()
	if !utf8.ValidString(s) {
		t.Errorf("%s: output is not UTF-8 (a raw C1 byte?):\n%q", what, s)
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == 0x1b, c == 0x07, c == 0x08, c == 0x7f:
			t.Fatalf("%s: byte %#x at %d reached the terminal:\n%q", what, c, i, s)
		case c == '\r' && (i+1 == len(s) || s[i+1] != '\n'):
			t.Fatalf("%s: a carriage return at %d overwrites the line:\n%q", what, i, s)
		}
	}
	for i, r := range s {
		if r >= 0x80 && r <= 0x9f || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 {
			t.Fatalf("%s: %U at %d reached the terminal:\n%q", what, r, i, s)
		}
	}
}
