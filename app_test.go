package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"foya/backend/kernel"
)

// newTestApp returns an App whose kernel lives in a temporary database and
// whose quit is recorded instead of ending a Wails loop.
func newTestApp(t *testing.T, opts AppOptions) (*App, string, *quitRecorder) {
	t.Helper()
	db := filepath.Join(t.TempDir(), "foya.db")
	if opts.Errs == nil {
		opts.Errs = tlog{t}
	}
	a := NewApp(opts)
	a.open = func(ctx context.Context) (*kernel.Kernel, error) {
		return kernel.Open(ctx, kernel.Options{DBPath: db})
	}
	q := &quitRecorder{done: make(chan struct{})}
	a.quit = q.quit
	return a, db, q
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
	a, db, _ := newTestApp(t, AppOptions{})
	ctx := t.Context()
	a.startup(ctx)
	defer a.shutdown(ctx)

	info := a.Info()
	if info.Version != kernel.Version || info.DBPath != db {
		t.Errorf("Info() = %+v; want version %q and database %q", info, kernel.Version, db)
	}
	ss, err := a.Sessions()
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
	ctx := t.Context()
	a.startup(ctx)
	defer a.shutdown(ctx) // must not touch a kernel that is not there

	if got, want := a.Info(), kernel.BuildInfo(); got != want {
		t.Errorf("Info() = %+v; want %+v", got, want)
	}
	if got, want := errs.String(), "foya: open kernel: database is locked\n"; got != want {
		t.Errorf("start-up logged %q; want %q", got, want)
	}
	ss, err := a.Sessions()
	if ss != nil || !errors.Is(err, cause) || err.Error() != "open kernel: database is locked" {
		t.Errorf("Sessions() = %v, %v; want nil, \"open kernel: database is locked\"", ss, err)
	}
}

func TestAppOpensTheKernelOnTryAgain(t *testing.T) {
	a, db, _ := newTestApp(t, AppOptions{})
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

	if _, err := a.Sessions(); err == nil || err.Error() != "open kernel: database is locked" {
		t.Fatalf("Sessions() while the database is locked: error = %v; want \"open kernel: database is locked\"", err)
	}
	fail = false // the user fixed it and pressed "Try again"
	ss, err := a.Sessions()
	if err != nil || ss == nil {
		t.Fatalf("Sessions() after the cause went away = %v, %v; want an empty list", ss, err)
	}
	if got := a.Info().DBPath; got != db {
		t.Errorf("Info().DBPath after reopening = %q; want %q", got, db)
	}
}

func TestAppAfterShutdown(t *testing.T) {
	a, _, _ := newTestApp(t, AppOptions{})
	a.startup(t.Context())
	a.shutdown(t.Context())
	a.shutdown(t.Context()) // twice is harmless
	if _, err := a.Sessions(); err == nil {
		t.Error("Sessions() after shutdown succeeded; want an error, not a reopened kernel")
	}
	if got, want := a.Info(), (kernel.Info{Version: kernel.Version}); got != want {
		t.Errorf("Info() after shutdown = %+v; want %+v", got, want)
	}
}

func TestAppBoundMethodsWaitForStartup(t *testing.T) {
	// Wails runs startup on its own goroutine while the page loads, so the
	// first bound call can arrive before the kernel is open.
	a, _, _ := newTestApp(t, AppOptions{})
	type reply struct {
		ss  []kernel.Session
		err error
	}
	got := make(chan reply, 1)
	go func() {
		ss, err := a.Sessions()
		got <- reply{ss, err}
	}()
	a.startup(t.Context())
	defer a.shutdown(t.Context())
	r := <-got
	if r.err != nil || r.ss == nil {
		t.Errorf("Sessions() before startup finished = %v, %v; want an empty list", r.ss, r.err)
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
			a, _, q := newTestApp(t, AppOptions{Smoke: tt.smoke, Out: &out, In: in})
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
				<-q.done // the smoke run ends once its input closes
			}
		})
	}
}

func TestAppSmokeQuitsWhenNobodyClosesItsInput(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		in, closeIn := io.Pipe() // never closed by the "test driver"
		defer closeIn.Close()
		a, _, q := newTestApp(t, AppOptions{Smoke: true, In: in})
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

func TestNewAppDefaultsItsOutput(t *testing.T) {
	a := NewApp(AppOptions{Smoke: true, In: strings.NewReader(""), Errs: io.Discard})
	a.open = func(context.Context) (*kernel.Kernel, error) { return nil, errors.New("no kernel here") }
	q := &quitRecorder{done: make(chan struct{})}
	a.quit = q.quit
	a.startup(t.Context())
	a.UIReady(UIReport{Error: "no kernel here"}) // must not panic on a nil Out
	<-q.done                                     // empty input: quits at once
}
