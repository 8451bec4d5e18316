package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/wailsapp/wails/v2/pkg/runtime"

	"foya/backend/api"
	"foya/backend/kernel"
	"foya/backend/llm"
	"foya/backend/provider"
	"foya/backend/provider/providertest"
	"foya/backend/testwait"
)

// newTestApp returns an App whose kernel lives in a temporary database,
// whose quit and emits are recorded instead of reaching a Wails loop, and
// the Service the window would call, as main.go binds it.
func newTestApp(t *testing.T, opts AppOptions) (*App, *api.Service, string, *quitRecorder) {
	t.Helper()
	db := filepath.Join(t.TempDir(), "foya.db")
	if opts.Errs == nil {
		opts.Errs = tlog{t}
	}
	a := NewApp(opts)
	a.open = func(ctx context.Context) (*kernel.Kernel, error) {
		return kernel.Open(ctx, kernel.Options{DBPath: db, TextFlush: time.Millisecond})
	}
	q := &quitRecorder{done: make(chan struct{})}
	a.quit = q.quit
	a.emit = func(context.Context, string, ...any) { t.Error("an event reached a window that is not there") }
	a.pickDir = func(context.Context, runtime.OpenDialogOptions) (string, error) {
		t.Error("a folder dialog opened in a test")
		return "", nil
	}
	a.saveAs = func(context.Context, runtime.SaveDialogOptions) (string, error) {
		t.Error("a save dialog opened in a test")
		return "", nil
	}
	return a, api.New(t.Context(), a.openKernel), db, q
}

// tlog sends the app's diagnostics to the test log.
type tlog struct{ t *testing.T }

func (l tlog) Write(p []byte) (int, error) {
	l.t.Log(strings.TrimSuffix(string(p), "\n"))
	return len(p), nil
}

type quitRecorder struct {
	once sync.Once
	done chan struct{}
}

func (q *quitRecorder) quit(context.Context) { q.once.Do(func() { close(q.done) }) }

func (q *quitRecorder) called() bool {
	select {
	case <-q.done:
		return true
	default:
		return false
	}
}

func TestAppReadsTheKernel(t *testing.T) {
	a, svc, db, _ := newTestApp(t, AppOptions{})
	ctx := t.Context()
	a.startup(ctx)
	defer a.shutdown(ctx)

	info, err := svc.Info()
	if err != nil || info.Version != kernel.Version || info.DBPath != db {
		t.Errorf("Info() = %+v, %v; want version %q and database %q", info, err, kernel.Version, db)
	}
	ss, err := svc.Sessions()
	if err != nil {
		t.Fatalf("Sessions() error = %v", err)
	}
	if ss == nil || len(ss) != 0 {
		t.Errorf("Sessions() = %#v; want an empty, non-nil list for a new database", ss)
	}
}

func TestAppShowsAKernelThatFailedToOpen(t *testing.T) {
	cause := errors.New("database is locked")
	var errs bytes.Buffer
	a := NewApp(AppOptions{Errs: &errs})
	a.open = func(context.Context) (*kernel.Kernel, error) { return nil, cause }
	svc := api.New(t.Context(), a.openKernel)
	ctx := t.Context()
	a.startup(ctx)
	defer a.shutdown(ctx) // must not touch a kernel that is not there

	if got, err := svc.Info(); err != nil || got != (kernel.Info{Version: kernel.Version}) {
		t.Errorf("Info() = %+v, %v; want only the version", got, err)
	}
	if got, want := errs.String(), "foya: open kernel: database is locked\n"; got != want {
		t.Errorf("start-up logged %q; want %q", got, want)
	}
	// Wails rejects the call with the error's text, which the window parses.
	ss, err := svc.Sessions()
	if want := `{"code":"unavailable","message":"open kernel: database is locked"}`; ss != nil || err == nil || err.Error() != want {
		t.Errorf("Sessions() = %v, %v; want nil, %s", ss, err, want)
	}
}

func TestAppOpensTheKernelOnTryAgain(t *testing.T) {
	a, svc, db, _ := newTestApp(t, AppOptions{})
	realOpen := a.open
	fail := true
	a.open = func(ctx context.Context) (*kernel.Kernel, error) {
		if fail {
			return nil, errors.New("database is locked")
		}
		return realOpen(ctx)
	}
	a.startup(t.Context())
	defer a.shutdown(t.Context())

	if _, err := svc.Sessions(); err == nil || !strings.Contains(err.Error(), "open kernel: database is locked") {
		t.Fatalf("Sessions() while the database is locked: error = %v; want \"open kernel: database is locked\"", err)
	}
	fail = false // the user fixed it and pressed "Try again"
	ss, err := svc.Sessions()
	if err != nil || ss == nil {
		t.Fatalf("Sessions() after the cause went away = %v, %v; want an empty list", ss, err)
	}
	if got, _ := svc.Info(); got.DBPath != db {
		t.Errorf("Info().DBPath after reopening = %q; want %q", got.DBPath, db)
	}
}

func TestAppAfterShutdown(t *testing.T) {
	a, svc, _, _ := newTestApp(t, AppOptions{})
	a.startup(t.Context())
	a.shutdown(t.Context())
	a.shutdown(t.Context()) // twice is harmless
	if _, err := svc.Sessions(); err == nil {
		t.Error("Sessions() after shutdown succeeded; want an error, not a reopened kernel")
	}
	if got, _ := svc.Info(); got != (kernel.Info{Version: kernel.Version}) {
		t.Errorf("Info() after shutdown = %+v; want only the version", got)
	}
}

func TestAppBoundMethodsWaitForStartup(t *testing.T) {
	// Wails runs startup on its own goroutine while the page loads, so the
	// first bound call can arrive before the kernel is open.
	a, svc, _, _ := newTestApp(t, AppOptions{})
	type reply struct {
		ss  []kernel.Session
		err error
	}
	got := make(chan reply, 1)
	go func() {
		ss, err := svc.Sessions()
		got <- reply{ss, err}
	}()
	a.startup(t.Context())
	defer a.shutdown(t.Context())
	r := testwait.Receive(t, got, "Sessions() to answer")
	if r.err != nil || r.ss == nil {
		t.Errorf("Sessions() before startup finished = %v, %v; want an empty list", r.ss, r.err)
	}
}

// emitRecorder records what the bridge sends to the window.
type emitRecorder struct {
	mu     sync.Mutex
	names  []string
	events []llm.Event
	more   chan struct{} // gets a value after each emit
}

func (r *emitRecorder) emit(_ context.Context, name string, data ...any) {
	r.mu.Lock()
	r.names = append(r.names, name)
	for _, d := range data {
		r.events = append(r.events, d.([]llm.Event)...)
	}
	r.mu.Unlock()
	select {
	case r.more <- struct{}{}:
	default:
	}
}

// TestAppBridgesKernelEvents runs a scripted turn through the kernel the
// app opened and checks that the window receives every stored event of it,
// once each, in seq order, as "foya:events".
//
// spec: W3
func TestAppBridgesKernelEvents(t *testing.T) {
	a, _, _, _ := newTestApp(t, AppOptions{})
	rec := &emitRecorder{more: make(chan struct{}, 1)}
	a.emit = rec.emit
	ctx := t.Context()
	a.startup(ctx)
	defer a.shutdown(ctx)
	k, err := a.openKernel()
	if err != nil {
		t.Fatal(err)
	}

	srv := providertest.New(t, providertest.Say("Hello from the scripted model, in several pieces."))
	model, err := provider.New(provider.Config{BaseURL: srv.URL, APIKey: "x", Model: "m", MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	s, err := k.CreateSession(ctx, kernel.NewSession{Workdir: t.TempDir(), ApprovalMode: "auto", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := k.Run(ctx, kernel.RunOptions{SessionID: s.ID, Prompt: "hello", Model: model}); err != nil {
		t.Fatal(err)
	}
	stored, err := k.Events(ctx, s.ID, 0)
	if err != nil || len(stored) == 0 {
		t.Fatalf("Events() = %d events, %v; want the run's events", len(stored), err)
	}
	last := stored[len(stored)-1].Seq
	deadline := time.After(time.Minute) // a bound on a broken bridge, not a timing assert
	for {
		rec.mu.Lock()
		n := len(rec.events)
		done := n > 0 && rec.events[n-1].Seq >= last
		rec.mu.Unlock()
		if done {
			break
		}
		select {
		case <-rec.more:
		case <-deadline:
			t.Fatalf("the window got %d events; want %d (up to seq %d)", n, len(stored), last)
		}
	}

	rec.mu.Lock()
	defer rec.mu.Unlock()
	var got, want []string
	for _, ev := range rec.events {
		got = append(got, fmt.Sprintf("%d %s", ev.Seq, ev.Type))
	}
	for _, ev := range stored {
		want = append(want, fmt.Sprintf("%d %s", ev.Seq, ev.Type))
	}
	if !slices.Equal(got, want) {
		t.Errorf("the window got\n%s\nwant the stored events\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, name := range rec.names {
		if name != eventsName {
			t.Errorf("emitted %q; want only %q", name, eventsName)
		}
	}
}

// TestAppStopsBridgingAtShutdown checks that an event other than a delta
// reaches the window at once, and nothing after shutdown.
//
// spec: W3
func TestAppStopsBridgingAtShutdown(t *testing.T) {
	a, _, _, _ := newTestApp(t, AppOptions{})
	rec := &emitRecorder{more: make(chan struct{}, 1)}
	a.emit = rec.emit
	ctx := t.Context()
	a.startup(ctx)
	k, err := a.openKernel()
	if err != nil {
		t.Fatal(err)
	}
	s, err := k.CreateSession(ctx, kernel.NewSession{Workdir: t.TempDir(), ApprovalMode: "auto"})
	if err != nil {
		t.Fatal(err)
	}
	if err := k.SetMode(ctx, s.ID, "manual"); err != nil {
		t.Fatal(err)
	}
	rec.mu.Lock()
	before := len(rec.events)
	rec.mu.Unlock()
	if before != 1 {
		t.Fatalf("a mode switch reached the window as %d events; want 1, at once", before)
	}
	a.shutdown(ctx)
	a.bridge.add(llm.Event{Type: llm.EventRunEnd, SessionID: s.ID, Seq: 99})
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.events) != before {
		t.Errorf("after shutdown the window got %d more events; want none", len(rec.events)-before)
	}
}

// TestAppPickFolder checks the native folder picker: the chosen folder, ""
// when cancelled, a coded error when there is no dialog.
//
// spec: W3
func TestAppPickFolder(t *testing.T) {
	tests := []struct {
		name    string
		dialog  string
		err     error
		want    string
		wantErr string
	}{
		{name: "a chosen folder", dialog: "/home/ada/project", want: "/home/ada/project"},
		{name: "cancelled", dialog: "", want: ""},
		{name: "no dialog", err: errors.New("no display"),
			wantErr: `{"code":"unavailable","message":"open the folder dialog: no display; type the folder's path instead"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, _, _, _ := newTestApp(t, AppOptions{})
			var asked runtime.OpenDialogOptions
			a.pickDir = func(_ context.Context, o runtime.OpenDialogOptions) (string, error) {
				asked = o
				return tt.dialog, tt.err
			}
			a.startup(t.Context())
			defer a.shutdown(t.Context())
			got, err := a.PickFolder()
			gotErr := ""
			if err != nil {
				gotErr = err.Error()
			}
			if got != tt.want || gotErr != tt.wantErr {
				t.Errorf("PickFolder() = %q, %q; want %q, %q", got, gotErr, tt.want, tt.wantErr)
			}
			if asked.Title == "" {
				t.Error("the dialog has no title")
			}
		})
	}
}

func TestAppUIReady(t *testing.T) {
	tests := []struct {
		name    string
		smoke   bool
		reports []UIReport
		want    string
	}{
		{
			name:    "outside smoke mode nothing is printed",
			smoke:   false,
			reports: []UIReport{{Version: "1.0.0", Sessions: 2}},
			want:    "",
		},
		{
			name:    "smoke mode prints what the window shows",
			smoke:   true,
			reports: []UIReport{{Version: "1.0.0", Sessions: 2}},
			want:    "foya: ui ready version=1.0.0 sessions=2\n",
		},
		{
			name:    "smoke mode prints the error the window shows",
			smoke:   true,
			reports: []UIReport{{Version: "1.0.0", Error: "open kernel: \"x\" is locked"}},
			want:    "foya: ui error=\"open kernel: \\\"x\\\" is locked\" version=1.0.0\n",
		},
		{
			name:    "smoke mode prints what the opened session's conversation shows",
			smoke:   true,
			reports: []UIReport{{Version: "1.0.0", Sessions: 1, Open: "ses_1", Turns: 1, Cards: 2}},
			want:    "foya: ui ready version=1.0.0 sessions=1 open=ses_1 turns=1 cards=2\n",
		},
		{
			name:    "smoke mode prints the images the opened session's cards show",
			smoke:   true,
			reports: []UIReport{{Version: "1.0.0", Sessions: 1, Open: "ses_1", Turns: 1, Cards: 1, Images: 1}},
			want:    "foya: ui ready version=1.0.0 sessions=1 open=ses_1 turns=1 cards=1 images=1\n",
		},
		{
			name:    "only the first report counts",
			smoke:   true,
			reports: []UIReport{{Version: "1.0.0", Sessions: 0}, {Version: "1.0.0", Sessions: 5}},
			want:    "foya: ui ready version=1.0.0 sessions=0\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			in, closeIn := io.Pipe()
			a, _, _, q := newTestApp(t, AppOptions{Smoke: tt.smoke, Out: &out, In: in})
			a.startup(t.Context())
			defer a.shutdown(t.Context())

			for _, r := range tt.reports {
				a.UIReady(r)
			}
			if got := out.String(); got != tt.want {
				t.Errorf("UIReady(%+v) printed %q; want %q", tt.reports, got, tt.want)
			}
			if q.called() {
				t.Fatal("the app quit while its smoke input was still open")
			}
			closeIn.Close()
			if tt.smoke {
				testwait.Receive(t, q.done, "the smoke run to quit once its input closed")
			}
		})
	}
}

// TestAppSmokeSession: the session a smoke run opens is given to the window
// only in smoke mode (the desktop smoke test); a normal start opens what
// the address names.
func TestAppSmokeSession(t *testing.T) {
	if got := NewApp(AppOptions{Smoke: true, SmokeOpen: "ses_1"}).SmokeSession(); got != "ses_1" {
		t.Errorf("SmokeSession in smoke mode = %q; want ses_1", got)
	}
	if got := NewApp(AppOptions{SmokeOpen: "ses_1"}).SmokeSession(); got != "" {
		t.Errorf("SmokeSession outside smoke mode = %q; want empty", got)
	}
}

func TestAppSmokeQuitsWhenNobodyClosesItsInput(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		in, closeIn := io.Pipe() // never closed by the "test driver"
		defer closeIn.Close()
		a, _, _, q := newTestApp(t, AppOptions{Smoke: true, In: in})
		// No kernel in the bubble: only the app's own goroutines run here.
		a.open = func(context.Context) (*kernel.Kernel, error) { return nil, errors.New("not needed") }
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		a.startup(ctx)
		defer a.shutdown(ctx)

		a.UIReady(UIReport{Version: "1"})
		time.Sleep(smokeHold - time.Second)
		synctest.Wait()
		if q.called() {
			t.Fatalf("quit before smokeHold (%v) passed", smokeHold)
		}
		time.Sleep(time.Second)
		synctest.Wait()
		if !q.called() {
			t.Fatalf("still open after smokeHold (%v)", smokeHold)
		}
	})
}

// TestNewAppDefaultsItsOutput: an App made without Out discards its smoke
// report and one made without Errs writes failures to standard error;
// given writers are kept. A smoke report with no Out neither panics nor
// keeps the app from quitting once its input ends.
func TestNewAppDefaultsItsOutput(t *testing.T) {
	if a := NewApp(AppOptions{}); a.opts.Out != io.Discard || a.opts.Errs != os.Stderr {
		t.Errorf("NewApp(AppOptions{}): Out %v, Errs %v; want io.Discard and os.Stderr", a.opts.Out, a.opts.Errs)
	}
	var out, errs strings.Builder
	if a := NewApp(AppOptions{Out: &out, Errs: &errs}); a.opts.Out != &out || a.opts.Errs != &errs {
		t.Errorf("NewApp with Out and Errs replaced them: Out %v, Errs %v", a.opts.Out, a.opts.Errs)
	}

	a := NewApp(AppOptions{Smoke: true, In: strings.NewReader(""), Errs: io.Discard})
	a.open = func(context.Context) (*kernel.Kernel, error) { return nil, errors.New("no kernel here") }
	q := &quitRecorder{done: make(chan struct{})}
	a.quit = q.quit
	a.startup(t.Context())
	a.UIReady(UIReport{Error: "no kernel here"}) // must not panic on a nil Out
	testwait.Receive(t, q.done, "the app to quit at the end of its (empty) input")
}
