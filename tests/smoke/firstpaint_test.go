package smoke

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"foya/backend/provider/providertest"
)

// TestDesktopFirstPaint starts the real desktop binary with its front end's
// script held at its first call (FOYA_SMOKE_HOLD): while it waits, the
// window must already show what index.html paints by itself (the static
// shell), not a blank window. It takes screenshots from the start, logs the
// time from the start to the first one that is not blank (first paint;
// docs/benchmarks.md), lets the script go, and checks that no screenshot
// after the first paint is blank until the front end reports ready. No
// time is asserted.
//
// spec: W1
func TestDesktopFirstPaint(t *testing.T) {
	requireSmoke(t)
	bin, version := buildDesktop(t)
	dir := t.TempDir()
	app := startDesktop(t, bin, dir, filepath.Join(dir, "data", "foya.db"), "FOYA_SMOKE_HOLD=1")
	app.waitDisplay(t)

	shot := outPath(t, "desktop-first-paint-poll.png")
	var firstPaint, mapped time.Duration
	look := func(when string) {
		t.Helper()
		blank, desc := app.blank(t, shot)
		if mapped == 0 && !strings.HasPrefix(desc, "1x1,") {
			mapped = time.Since(app.started) // the window is on screen, blank or not
		}
		switch {
		case !blank && firstPaint == 0:
			firstPaint = time.Since(app.started)
			copyFile(t, shot, outPath(t, "desktop-first-paint.png"))
		case blank && firstPaint != 0:
			t.Fatalf("the window is blank %s, after its first paint at %v (%s); screenshot %s; output:\n%s",
				when, firstPaint.Round(time.Millisecond), desc, shot, app.output())
		}
	}
	// Until the script's first call: the window maps, then paints.
	for held := false; !held; {
		select {
		case line, ok := <-app.lines:
			switch {
			case !ok:
				<-app.exited
				t.Fatalf("foya exited (%v) before its script started; output:\n%s", app.waitErr, app.output())
			case line == "foya: script started":
				held = true
				t.Logf("start to the script's first call: %v", time.Since(app.started).Round(time.Millisecond))
			case strings.HasPrefix(line, "foya: ui "):
				t.Fatalf("the window reported %q while its script was to be held; output:\n%s", line, app.output())
			}
		default:
			look("before its script started")
		}
	}
	// The script waits: only index.html's own paint can be on screen. It
	// may lag the call by a few frames, so the screen is looked at until
	// it shows (bounded, so that a window that never paints fails).
	deadline := time.Now().Add(readyTimeout)
	for firstPaint == 0 {
		blank, desc := app.blank(t, shot)
		if mapped == 0 && !strings.HasPrefix(desc, "1x1,") {
			mapped = time.Since(app.started)
		}
		if !blank {
			firstPaint = time.Since(app.started)
			copyFile(t, shot, outPath(t, "desktop-first-paint.png"))
		} else if time.Now().After(deadline) {
			t.Fatalf("the window is still blank %v after its script started and waits (%s): index.html paints nothing by itself; screenshot %s",
				readyTimeout, desc, shot)
		}
	}
	look("while its script waits")
	t.Logf("start to the window on screen: %v (0: not seen before the paint)", mapped.Round(time.Millisecond))
	t.Logf("start to first paint (the static shell): %v", firstPaint.Round(time.Millisecond))
	if _, err := app.stdin.Write([]byte("\n")); err != nil {
		t.Fatalf("let the script go: %v", err)
	}
	var ready string
	for ready == "" {
		select {
		case line, ok := <-app.lines:
			if !ok {
				<-app.exited
				t.Fatalf("foya exited (%v) before the window reported ready; output:\n%s", app.waitErr, app.output())
			}
			if strings.HasPrefix(line, "foya: shell painted ") {
				t.Log(strings.TrimPrefix(line, "foya: ")) // as the page itself timed it
			}
			if strings.HasPrefix(line, "foya: ui ") {
				ready = line
			}
		default:
			look("while the front end starts")
		}
	}
	t.Logf("start to the front end's report: %v", time.Since(app.started).Round(time.Millisecond))
	if want := fmt.Sprintf("foya: ui ready version=%s sessions=0 screen=setup", version); ready != want {
		t.Fatalf("ready line = %q; want %q", ready, want)
	}
	look("after the front end reported ready")
	app.screenshot(t, "desktop-after-first-paint.png")
	app.quit(t)
}

// TestDesktopApprovalShortcut runs a session in Manual in the real desktop
// window: the test types a prompt into the composer and sends it with
// Enter (xdotool, real key presses on the X display), the scripted model
// asks for a bash command, the window's title counts the waiting request,
// and the test presses Y, the Allow once key: the command runs (its file
// appears in the project) and the run ends.
//
// spec: A2, W3
func TestDesktopApprovalShortcut(t *testing.T) {
	requireSmoke(t)
	if _, err := exec.LookPath("xdotool"); err != nil {
		t.Fatalf("xdotool not found: install the system packages with make deps")
	}
	bin, _ := buildDesktop(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "data", "foya.db")
	project := filepath.Join(dir, "project")
	if err := os.MkdirAll(project, 0o755); err != nil {
		t.Fatal(err)
	}
	srv := providertest.New(t,
		providertest.Say("Ready when you are."),
		providertest.Calls(providertest.Call{Name: "bash", Arguments: `{"command":"echo allowed by the shortcut > approved.txt"}`}),
		providertest.Say("The command ran."),
	)
	add := exec.Command(bin, "providers", "add", "scripted", "--base-url", srv.URL, "--model", "smoke-model", "--api-key-stdin")
	add.Env = smokeEnv(t, dir, db)
	add.Stdin = strings.NewReader("smoke\n")
	if out, err := add.CombinedOutput(); err != nil {
		t.Fatalf("foya providers add: %v\n%s", err, out)
	}
	sessionID, _ := seedRun(t, bin, dir, db, "--workdir", project, "--approval", "manual", "Get ready")

	app := startDesktop(t, bin, dir, db, "FOYA_SMOKE_OPEN="+sessionID)
	if ready := app.waitReady(t); !strings.HasPrefix(ready, "foya: ui ready ") {
		t.Fatalf("ready line = %q; want the conversation", ready)
	}
	win := strings.Fields(app.xdo(t, "search", "--sync", "--onlyvisible", "--name", "Foya"))[0]
	app.xdo(t, "windowfocus", "--sync", win)
	geo := map[string]int{}
	for _, kv := range strings.Fields(app.xdo(t, "getwindowgeometry", "--shell", win)) {
		k, v, _ := strings.Cut(kv, "=")
		var n int
		fmt.Sscan(v, &n)
		geo[k] = n
	}
	// The composer spans the bottom of the main pane (right of the
	// sidebar, which is at most 320 pixels wide).
	x, y := geo["X"]+320+(geo["WIDTH"]-320)/2, geo["Y"]+geo["HEIGHT"]-60
	app.xdo(t, "mousemove", "--sync", fmt.Sprint(x), fmt.Sprint(y), "click", "1")
	app.xdo(t, "type", "--delay", "30", "Run the command")
	app.xdo(t, "key", "Return")

	// The title counts the waiting request once it shows.
	deadline := time.Now().Add(readyTimeout)
	for !strings.HasPrefix(app.xdo(t, "getwindowname", win), "(1) ") {
		if time.Now().After(deadline) {
			app.screenshot(t, "desktop-approval-missing.png")
			t.Fatalf("no approval request in the window's title within %v (title %q); model requests %d; output:\n%s",
				readyTimeout, app.xdo(t, "getwindowname", win), len(srv.Requests()), app.output())
		}
		time.Sleep(100 * time.Millisecond)
	}
	app.screenshot(t, "desktop-approval.png")
	// Y answers Allow once. A request ignores keys for its first half
	// second (so a key meant for the composer never answers it), so the
	// key is pressed until the command ran.
	approved := filepath.Join(project, "approved.txt")
	for {
		// The shell makes the file before it writes the line: a
		// beginning of the line is read again.
		const want = "allowed by the shortcut\n"
		if b, err := os.ReadFile(approved); err == nil && string(b) == want {
			break
		} else if err == nil && !strings.HasPrefix(want, string(b)) {
			t.Fatalf("approved.txt = %q", b)
		}
		if time.Now().After(deadline) {
			app.screenshot(t, "desktop-approval-unanswered.png")
			t.Fatalf("the command did not run within %v of pressing Y; output:\n%s", readyTimeout, app.output())
		}
		app.xdo(t, "key", "y")
		time.Sleep(200 * time.Millisecond)
	}
	for strings.HasPrefix(app.xdo(t, "getwindowname", win), "(") {
		if time.Now().After(deadline) {
			t.Fatalf("the window's title still counts a request: %q", app.xdo(t, "getwindowname", win))
		}
		time.Sleep(100 * time.Millisecond)
	}
	app.screenshot(t, "desktop-approval-answered.png")
	app.quit(t)
}

// waitDisplay waits for the line that names the test's X display.
func (d *desktop) waitDisplay(t *testing.T) {
	t.Helper()
	deadline := time.After(readyTimeout)
	for d.display == "" {
		select {
		case line, ok := <-d.lines:
			if !ok {
				<-d.exited
				t.Fatalf("xvfb-run exited (%v) before naming its display; output:\n%s", d.waitErr, d.output())
			}
			if m := displayLine.FindStringSubmatch(line); m != nil {
				d.display = m[1]
			}
		case <-deadline:
			t.Fatalf("no display within %v; output:\n%s", readyTimeout, d.output())
		}
	}
}

// xdo runs xdotool against the test's display and returns its output.
func (d *desktop) xdo(t *testing.T, args ...string) string {
	t.Helper()
	return d.x(t, "xdotool", args...)
}

func outPath(t *testing.T, name string) string {
	t.Helper()
	if err := os.MkdirAll("out", 0o755); err != nil {
		t.Fatal(err)
	}
	p, err := filepath.Abs(filepath.Join("out", name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
