package smoke

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"foya/backend/provider/providertest"
)

// Bounds on waiting, so that a broken build fails instead of hanging. They
// are generous on purpose (a first WebKit start on a busy 2-core machine is
// slow) and nothing asserts on how long anything took.
const (
	buildTimeout = 10 * time.Minute
	readyTimeout = 3 * time.Minute
	exitTimeout  = time.Minute
)

// minStdDev is the least standard deviation of the window's pixel values
// (0 to 1) that counts as "something was drawn". A window that shows only
// its background colour scores 0; Foya's window with text scores well above.
const minStdDev = 0.02

// blankStdDev is the most standard deviation of a window that counts as
// blank for the first-paint test: one that shows only its background
// colour scores 0, index.html's static shell about 0.025.
const blankStdDev = 0.005

// desktopTags are the build tags of the real desktop binary.
const desktopTags = "desktop,production,webkit2_41"

func TestDesktopWindowShowsTheEmptyStore(t *testing.T) {
	requireSmoke(t)
	bin, version := buildDesktop(t)

	dir := t.TempDir()
	app := startDesktop(t, bin, dir, filepath.Join(dir, "data", "foya.db"))
	line := app.waitReady(t)

	// The front end rendered the kernel's own version (set at link time),
	// the new store's empty list, and opened on the first-run setup (no
	// provider profile, no session), not an error.
	if want := fmt.Sprintf("foya: ui ready version=%s sessions=0 screen=setup", version); line != want {
		t.Fatalf("ready line = %q; want %q", line, want)
	}
	app.screenshot(t, "desktop-empty.png")
	app.quit(t)
}

// TestDesktopWindowShowsStoredSessions starts the real desktop binary (Wails
// v2, a webview front end over the Go kernel) on a database that foya exec
// filled, and checks that the window renders the stored session.
//
// spec: W1, W3
func TestDesktopWindowShowsStoredSessions(t *testing.T) {
	requireSmoke(t)
	bin, version := buildDesktop(t)

	// Seed one session the way a user would: foya exec against a model,
	// played here by the scripted OpenAI-compatible server.
	dir := t.TempDir()
	db := filepath.Join(dir, "data", "foya.db")
	project := filepath.Join(dir, "project")
	if err := os.MkdirAll(project, 0o755); err != nil {
		t.Fatal(err)
	}
	srv := providertest.New(t, providertest.Say("Hello from the scripted model."))
	seed := exec.Command(bin, "exec", "--base-url", srv.URL, "--api-key", "smoke", "--model", "smoke-model",
		"--workdir", project, "--approval", "manual", "Say hello to the smoke test")
	seed.Env = smokeEnv(t, dir, db)
	if out, err := seed.CombinedOutput(); err != nil {
		t.Fatalf("foya exec: %v\n%s", err, out)
	}

	app := startDesktop(t, bin, dir, db)
	line := app.waitReady(t)
	t.Logf("start to the first paint's report: %v", time.Since(app.started).Round(time.Millisecond))
	if want := fmt.Sprintf("foya: ui ready version=%s sessions=1", version); line != want {
		t.Fatalf("ready line = %q; want %q", line, want)
	}
	shot := app.screenshot(t, "desktop.png")
	app.quit(t)
	t.Logf("screenshot: %s", shot)
}

// TestDesktopWindowShowsTheConversation seeds a stored session with a
// scripted run (foya exec: a write, then an answer), starts the real
// desktop binary in smoke mode with FOYA_SMOKE_OPEN naming that session,
// and checks that the window opened it in the real conversation view: its
// report counts the turn and the write's card the view rendered, and the
// screenshot of it is kept. The time from start to the report is logged
// (docs/benchmarks.md), not asserted.
//
// spec: W1, W3
func TestDesktopWindowShowsTheConversation(t *testing.T) {
	requireSmoke(t)
	bin, version := buildDesktop(t)

	dir := t.TempDir()
	db := filepath.Join(dir, "data", "foya.db")
	project := filepath.Join(dir, "project")
	if err := os.MkdirAll(project, 0o755); err != nil {
		t.Fatal(err)
	}
	srv := providertest.New(t,
		providertest.Calls(providertest.Call{Name: "write", Arguments: `{"path":"hello.txt","content":"hello from the smoke run\n"}`}),
		providertest.Say("Wrote hello.txt for the smoke test."),
	)
	sessionID, _ := seedRun(t, bin, dir, db, "--base-url", srv.URL, "--api-key", "smoke", "--model", "smoke-model",
		"--workdir", project, "--approval", "auto", "Write hello.txt for the smoke test")
	if b, err := os.ReadFile(filepath.Join(project, "hello.txt")); err != nil || string(b) != "hello from the smoke run\n" {
		t.Fatalf("hello.txt = %q, %v; want the seeded run's write", b, err)
	}

	app := startDesktop(t, bin, dir, db, "FOYA_SMOKE_OPEN="+sessionID)
	ready := app.waitReady(t)
	elapsed := time.Since(app.started)
	want := fmt.Sprintf("foya: ui ready version=%s sessions=1 open=%s turns=1 cards=1", version, sessionID)
	if ready != want {
		t.Fatalf("ready line = %q; want %q (the conversation view with the stored turn and its write card)", ready, want)
	}
	shot := app.screenshot(t, "desktop-conversation.png")
	app.quit(t)
	t.Logf("start to the conversation's report: %v", elapsed.Round(time.Millisecond))
	t.Logf("screenshot: %s", shot)
}

// TestDesktopWindowShowsKernelError starts the real desktop binary on a
// database whose folder is a regular file: the window opens and reports the
// kernel's error instead of a session list. It skips only where the smoke
// test is not asked for (requireSmoke); a window that reports ready fails
// it (it used to skip then, so the regression it exists for showed as a
// skip).
//
// spec: W3
func TestDesktopWindowShowsKernelError(t *testing.T) {
	requireSmoke(t)
	bin, version := buildDesktop(t)

	// The database's folder is a regular file, so no store can open it.
	dir := t.TempDir()
	blocker := filepath.Join(dir, "not-a-folder")
	if err := os.WriteFile(blocker, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	app := startDesktop(t, bin, dir, filepath.Join(blocker, "foya.db"))
	line := app.waitReady(t)

	// A window that reports ready here opened a store that cannot exist:
	// that is the regression this test is for, so it fails, never skips.
	if strings.HasPrefix(line, "foya: ui ready ") {
		app.quit(t)
		t.Fatalf("ready line = %q: the kernel opened a database under a regular file; want a ui error line", line)
	}
	if !strings.HasPrefix(line, "foya: ui error=") || !strings.Contains(line, "version="+version) {
		t.Fatalf("ready line = %q; want a ui error line with version=%s", line, version)
	}
	app.screenshot(t, "desktop-error.png")
	app.quit(t)
}

// requireSmoke skips the test unless asked for, and fails it when asked for
// on a machine that lacks the tools (make deps installs them).
func requireSmoke(t *testing.T) {
	t.Helper()
	if os.Getenv("FOYA_SMOKE_TEST") != "1" {
		t.Skip("desktop smoke test: set FOYA_SMOKE_TEST=1 to run it (make test does)")
	}
	for _, tool := range []string{"xvfb-run", "Xvfb", "xauth", "import", "convert"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s not found: install the system packages with make deps", tool)
		}
	}
}

// The binary is built once for all tests of the package, into binDir, with
// a kernel version of its own so that a test can tell the window shows the
// kernel's answer and not a constant of the front end.
var (
	buildOnce sync.Once
	binDir    string
	binPath   string
	binVer    string
	buildErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// buildDesktop builds the real desktop binary (once) and returns its path
// and the kernel version linked into it. When FOYA_SMOKE_BIN names a
// binary (make test-package points it at the one the .deb installed), that
// binary is tested instead, with the version its --version prints.
func buildDesktop(t *testing.T) (path, version string) {
	t.Helper()
	if bin := os.Getenv("FOYA_SMOKE_BIN"); bin != "" {
		return givenDesktop(t, bin)
	}
	root := repoRoot(t)
	if _, err := os.Stat(filepath.Join(root, "frontend", "dist", "index.html")); err != nil {
		t.Fatalf("the front end is not built (%v): run make frontend first", err)
	}
	buildOnce.Do(func() {
		binVer = "0.0.0-smoke." + randomHex(t)
		binDir, buildErr = os.MkdirTemp("", "foya-smoke-bin-")
		if buildErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "foya")
		ctx, cancel := context.WithTimeout(context.Background(), buildTimeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, "go", "build",
			"-tags", desktopTags,
			"-ldflags", "-X foya/backend/kernel.Version="+binVer,
			"-o", binPath, ".")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build -tags %s: %w\n%s", desktopTags, err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath, binVer
}

// givenDesktop returns bin and its version: the second word of what
// bin --version prints ("foya 1.2.3 (commit abc1234, 2026-12-01)").
func givenDesktop(t *testing.T, bin string) (path, version string) {
	t.Helper()
	if !filepath.IsAbs(bin) {
		t.Fatalf("FOYA_SMOKE_BIN=%s: want an absolute path", bin)
	}
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		t.Fatalf("%s --version: %v", bin, err)
	}
	f := strings.Fields(string(out))
	if len(f) < 2 || f[0] != "foya" {
		t.Fatalf("%s --version = %q; want foya VERSION ...", bin, out)
	}
	return bin, f[1]
}

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "wails.json")); err != nil {
		t.Fatalf("repository root not found at %s: %v", root, err)
	}
	return root
}

func randomHex(t *testing.T) string {
	t.Helper()
	b := make([]byte, 4)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// desktop is one running desktop app under its own Xvfb.
type desktop struct {
	cmd      *exec.Cmd
	stdin    io.WriteCloser
	lines    chan string   // stdout, line by line; closed at end of output
	exited   chan struct{} // closed when the process has been waited for
	waitErr  error
	authFile string
	display  string
	// shellPainted: the window said when it painted its shell (smoke mode).
	shellPainted bool

	started time.Time // when xvfb-run was started

	mu  sync.Mutex
	log bytes.Buffer // everything the process printed, for failure messages
}

var displayLine = regexp.MustCompile(`^foya-smoke: display=(:\d+)$`)

// startDesktop starts bin in smoke mode under xvfb-run, with HOME and the
// XDG folders inside dir so that it touches nothing of the user, and with
// its database at db, and extra in its environment.
func startDesktop(t *testing.T, bin, dir, db string, extra ...string) *desktop {
	t.Helper()
	d := &desktop{
		authFile: filepath.Join(dir, "Xauthority"),
		lines:    make(chan string, 64),
		exited:   make(chan struct{}),
	}
	// xvfb-run picks a free display; the shell tells us which before it
	// hands over to foya.
	d.cmd = exec.Command("xvfb-run", "-a", "-f", d.authFile,
		"-s", "-screen 0 1280x900x24 -br",
		"sh", "-c", `echo "foya-smoke: display=$DISPLAY"; exec "$0"`, bin)
	d.cmd.Dir = dir
	d.cmd.Env = append(smokeEnv(t, dir, db), extra...)
	// Own process group, so that cleanup ends Xvfb and WebKit's helpers too.
	d.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}

	var err error
	if d.stdin, err = d.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := d.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	d.cmd.Stderr = lockedWriter{&d.mu, &d.log}
	d.started = time.Now()
	if err := d.cmd.Start(); err != nil {
		t.Fatalf("start xvfb-run: %v", err)
	}
	scanned := make(chan struct{})
	go func() {
		defer close(scanned)
		defer close(d.lines)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			d.mu.Lock()
			d.log.WriteString(sc.Text() + "\n")
			d.mu.Unlock()
			d.lines <- sc.Text()
		}
	}()
	go func() {
		<-scanned // Wait must not run before the pipe has been read to its end
		d.waitErr = d.cmd.Wait()
		close(d.exited)
	}()
	t.Cleanup(func() {
		select {
		case <-d.exited:
			return
		default:
		}
		_ = syscall.Kill(-d.cmd.Process.Pid, syscall.SIGKILL)
		<-d.exited
	})
	return d
}

// smokeEnv is the environment of a foya started by the test: HOME, the XDG
// folders and the runtime folder inside dir, the database at db.
func smokeEnv(t *testing.T, dir, db string) []string {
	t.Helper()
	home := filepath.Join(dir, "home")
	runtimeDir := filepath.Join(dir, "run")
	for _, d := range []string{home, runtimeDir} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	env := []string{
		"HOME=" + home,
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"),
		"XDG_STATE_HOME=" + filepath.Join(home, ".local", "state"),
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"),
		"XDG_RUNTIME_DIR=" + runtimeDir,
		"FOYA_DB=" + db,
		"FOYA_SMOKE=1",
		"GDK_BACKEND=x11",
		"LANG=C.UTF-8",
	}
	// Keep only what finds programs; drop the caller's display, session bus
	// and data folders.
	for _, k := range []string{"PATH", "TMPDIR"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// waitReady waits for the display line and then the front end's report,
// and returns the report line.
func (d *desktop) waitReady(t *testing.T) string {
	t.Helper()
	deadline := time.After(readyTimeout)
	for {
		select {
		case line, ok := <-d.lines:
			if !ok {
				<-d.exited
				t.Fatalf("foya exited (%v) before the window reported ready; output:\n%s", d.waitErr, d.output())
			}
			if m := displayLine.FindStringSubmatch(line); m != nil {
				d.display = m[1]
				continue
			}
			if strings.HasPrefix(line, "foya: shell painted ") {
				t.Log(strings.TrimPrefix(line, "foya: ")) // docs/benchmarks.md
				d.shellPainted = true
				continue
			}
			if strings.HasPrefix(line, "foya: ui ") {
				if d.display == "" {
					t.Fatalf("no display line before %q; output:\n%s", line, d.output())
				}
				if !d.shellPainted {
					t.Fatalf("no shell painted line before %q (boot-theme.js notes the first paint): output:\n%s", line, d.output())
				}
				return line
			}
		case <-deadline:
			t.Fatalf("no ready line from the window within %v; output:\n%s", readyTimeout, d.output())
		}
	}
}

// screenshot saves the screen to out/name and checks that the window on
// it is not blank: the screen is trimmed to the window (the root window is
// black) and the window's pixels must vary. Painting can lag the report
// by a frame, so a blank result is retried a few times.
func (d *desktop) screenshot(t *testing.T, name string) string {
	t.Helper()
	if err := os.MkdirAll("out", 0o755); err != nil {
		t.Fatal(err)
	}
	path, err := filepath.Abs(filepath.Join("out", name))
	if err != nil {
		t.Fatal(err)
	}
	var desc string
	for try := 1; try <= 10; try++ {
		if try > 1 {
			time.Sleep(500 * time.Millisecond)
		}
		var blank bool
		if blank, desc = d.blankBelow(t, path, minStdDev); !blank {
			t.Logf("window %s", desc)
			return path
		}
	}
	t.Fatalf("the window looks blank on %s: %s (want a window of at least 400x300 and a standard deviation > %v); output:\n%s",
		path, desc, minStdDev, d.output())
	return ""
}

// blank saves the screen to path and says whether the window on it is
// blank: the screen is trimmed to the window (the root window is black,
// so a window not mapped yet trims to nothing) and its pixels must vary
// (a window that shows only its background colour does not). desc says
// what was measured.
func (d *desktop) blank(t *testing.T, path string) (blank bool, desc string) {
	t.Helper()
	return d.blankBelow(t, path, blankStdDev)
}

// blankBelow is blank with the least standard deviation that is not.
func (d *desktop) blankBelow(t *testing.T, path string, least float64) (blank bool, desc string) {
	t.Helper()
	var w, h int
	var dev float64
	d.x(t, "import", "-display", d.display, "-window", "root", path)
	out := d.x(t, "convert", path, "-trim", "+repage", "-format", "%w %h %[fx:standard_deviation]", "info:")
	if _, err := fmt.Sscan(out, &w, &h, &dev); err != nil {
		t.Fatalf("read convert's answer %q: %v", out, err)
	}
	desc = fmt.Sprintf("%dx%d, standard deviation %s", w, h, strconv.FormatFloat(dev, 'f', 4, 64))
	return !(w >= 400 && h >= 300 && dev > least), desc
}

// x runs an ImageMagick command against the test's display.
func (d *desktop) x(t *testing.T, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = append(os.Environ(), "XAUTHORITY="+d.authFile, "DISPLAY="+d.display)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, stderr.String())
	}
	return strings.TrimSpace(string(out))
}

// quit closes the app's input, which ends a smoke run, and waits for a
// clean exit.
func (d *desktop) quit(t *testing.T) {
	t.Helper()
	if err := d.stdin.Close(); err != nil {
		t.Fatalf("close foya's input: %v", err)
	}
	go func() {
		for range d.lines { // keep draining so the process never blocks on output
		}
	}()
	select {
	case <-d.exited:
	case <-time.After(exitTimeout):
		t.Fatalf("foya did not quit within %v after its input closed; output:\n%s", exitTimeout, d.output())
	}
	if d.waitErr != nil {
		t.Fatalf("foya exited with %v; output:\n%s", d.waitErr, d.output())
	}
}

func (d *desktop) output() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.log.String()
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// seedRun runs foya exec --json with args on the smoke test's store and
// returns the session it made (from its first event) and all it printed.
func seedRun(t *testing.T, bin, dir, db string, args ...string) (string, []byte) {
	t.Helper()
	seed := exec.Command(bin, append([]string{"exec", "--json"}, args...)...)
	seed.Env = smokeEnv(t, dir, db)
	out, err := seed.Output()
	if err != nil {
		t.Fatalf("foya exec: %v\n%s", err, out)
	}
	var first struct {
		SessionID string `json:"sessionId"`
	}
	line, _, _ := strings.Cut(string(out), "\n")
	if err := json.Unmarshal([]byte(line), &first); err != nil || first.SessionID == "" {
		t.Fatalf("foya exec --json: first line %q (%v); want an event with its sessionId", line, err)
	}
	return first.SessionID, out
}
