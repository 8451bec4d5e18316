package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/wailsapp/wails/v2/pkg/runtime"

	"foya/backend/api"
	"foya/backend/kernel"
	"foya/backend/llm"
)

// smokeHold bounds how long a smoke run keeps its window open after the UI
// reported ready, in case nobody closes its standard input.
const smokeHold = 2 * time.Minute

// AppOptions configure NewApp.
type AppOptions struct {
	// Smoke turns on the desktop smoke mode (FOYA_SMOKE=1): once the front
	// end has rendered, UIReady writes one report line to Out, and the app
	// quits when In reaches end of file (or after smokeHold).
	Smoke bool
	// SmokeOpen, in smoke mode, is the session the window opens
	// (FOYA_SMOKE_OPEN); its report then says what the conversation shows.
	SmokeOpen string
	// SmokeHoldScript, in smoke mode (FOYA_SMOKE_HOLD=1), holds the front
	// end's script at its first call (SmokeSession) until a line arrives
	// on In, after writing "foya: script started": the window then shows
	// only what index.html paints by itself, so that a test can look at it.
	SmokeHoldScript bool
	// ProcessStarted, in smoke mode, is when the process started: the
	// report then says how long after it the window painted its shell.
	ProcessStarted time.Time
	Out            io.Writer // nil discards
	In             io.Reader // nil counts as closed
	// Errs receives start-up and shutdown failures; nil means os.Stderr.
	Errs io.Writer
}

// App is the desktop window's side of Wails: it owns the kernel's life
// (open at start-up, retried on demand, closed at shutdown), bridges the
// kernel's events to the window, and binds what only the desktop can do
// (the folder picker, the smoke hook). The kernel's API is bound next to
// it as *api.Service (main.go), which reaches the kernel through
// openKernel. App is the only code that imports the Wails runtime.
//
// Wails calls startup on its own goroutine while the page loads, and bound
// methods from others; openKernel waits until startup has finished. When
// the kernel failed to open, openKernel tries again (the user may have
// fixed the cause and pressed "Try again"); mu serialises those attempts
// with shutdown.
type App struct {
	opts AppOptions
	open func(context.Context) (*kernel.Kernel, error)
	quit func(context.Context)
	// emit sends one Wails event to the window (runtime.EventsEmit).
	emit func(ctx context.Context, name string, data ...any)
	// pickDir shows the native folder dialog (runtime.OpenDirectoryDialog).
	pickDir func(context.Context, runtime.OpenDialogOptions) (string, error)
	// saveAs shows the native save dialog (runtime.SaveFileDialog).
	saveAs func(context.Context, runtime.SaveDialogOptions) (string, error)
	// notes shows desktop notifications (Notify).
	notes *notifier
	// show brings the window forward (runtime.WindowUnminimise, WindowShow).
	show func(context.Context)

	started chan struct{}   // closed at the end of startup
	ctx     context.Context // set by startup before started is closed
	bridge  *bridge         // set by startup before started is closed

	mu          sync.Mutex
	kernel      *kernel.Kernel // nil until opened
	unsubscribe func()         // ends the bridge's kernel subscription
	openErr     error          // why the last attempt to open failed
	closed      bool           // set by shutdown; no more attempts after it

	reportOnce sync.Once
	holdOnce   sync.Once
}

// NewApp returns an App that opens the kernel with default options
// (FOYA_DB, then the data folder) when Wails starts it.
func NewApp(opts AppOptions) *App {
	if opts.Out == nil {
		opts.Out = io.Discard
	}
	if opts.Errs == nil {
		opts.Errs = os.Stderr
	}
	a := &App{
		opts: opts,
		open: func(ctx context.Context) (*kernel.Kernel, error) {
			return kernel.Open(ctx, kernel.Options{})
		},
		quit:    runtime.Quit,
		emit:    runtime.EventsEmit,
		pickDir: runtime.OpenDirectoryDialog,
		saveAs:  runtime.SaveFileDialog,
		show: func(ctx context.Context) {
			runtime.WindowUnminimise(ctx)
			runtime.WindowShow(ctx)
		},
		started: make(chan struct{}),
	}
	a.notes = newNotifier()
	a.notes.onClick = a.showWindow
	a.notes.allowed = func(kind string) (bool, error) {
		k, err := a.openKernel()
		if err != nil {
			return false, err
		}
		return k.Notifies(a.ctx, kind)
	}
	return a
}

// showWindow brings the window forward (a click on a notification).
func (a *App) showWindow() {
	<-a.started
	a.show(a.ctx)
}

// startup opens the kernel. A failure is kept, not fatal: the window still
// opens and shows it, because a blank window explains nothing.
func (a *App) startup(ctx context.Context) {
	defer close(a.started)
	a.ctx = ctx
	a.bridge = newBridge(func(evs []llm.Event) { a.emit(ctx, eventsName, evs) })
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, err := a.openLocked(); err != nil {
		fmt.Fprintf(a.opts.Errs, "foya: %v\n", err)
	}
}

// openKernel returns the open kernel, trying once more to open it if the
// last attempt failed. It is what api.Service calls the kernel through.
func (a *App) openKernel() (*kernel.Kernel, error) {
	<-a.started
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.openLocked()
}

// openLocked returns the open kernel, opening it if an earlier attempt
// failed, and subscribes the bridge to a kernel it opens. a.mu must be held.
func (a *App) openLocked() (*kernel.Kernel, error) {
	if a.kernel != nil {
		return a.kernel, nil
	}
	if a.closed {
		return nil, errors.New("foya is shutting down")
	}
	k, err := a.open(a.ctx)
	if err != nil {
		a.openErr = fmt.Errorf("open kernel: %w", err)
		return nil, a.openErr
	}
	a.kernel, a.openErr = k, nil
	// The bridge carries the notices too (background commands, MCP
	// servers), in the same batches, so the window needs no timer to
	// follow them.
	unEvents, unNotices := k.Subscribe(a.bridge.add), k.SubscribeNotices(a.bridge.add)
	a.unsubscribe = func() { unEvents(); unNotices() }
	return k, nil
}

// shutdown stops the bridge and closes the kernel.
func (a *App) shutdown(context.Context) {
	<-a.started
	a.mu.Lock()
	defer a.mu.Unlock()
	a.closed = true
	a.bridge.close()
	a.notes.close()
	if a.kernel == nil {
		return
	}
	a.unsubscribe()
	if err := a.kernel.Close(); err != nil {
		fmt.Fprintf(a.opts.Errs, "foya: close kernel: %v\n", err)
	}
	a.kernel = nil
}

// PickFolder shows the system's folder dialog and returns the folder the
// user chose, or "" when they cancelled it. The browser has no such dialog;
// it completes typed paths with the CompletePath call instead.
func (a *App) PickFolder() (string, error) {
	<-a.started
	dir, err := a.pickDir(a.ctx, runtime.OpenDialogOptions{
		Title:                "Choose a project folder",
		CanCreateDirectories: true,
	})
	if err != nil {
		return "", &api.Error{Code: kernel.CodeUnavailable,
			Message: fmt.Sprintf("open the folder dialog: %v; type the folder's path instead", err)}
	}
	return dir, nil
}

// Notify shows a desktop notification of kind (kernel.NotifyApproval,
// NotifyRunEnded, NotifyRunFailed) with title and body, replacing the one
// it showed before: the window calls it when an approval request waits or
// a run ends while the window is not focused. A kind the person turned off
// (the notify.* settings) shows nothing. It fails, with what to do, where
// the desktop has no notification service; the window's title still
// counts the waiting requests.
func (a *App) Notify(kind, title, body string) error {
	if err := a.notes.notify(kind, title, body); err != nil {
		var se errNotifySetting
		if errors.As(err, &se) {
			return api.AsError(se.err)
		}
		return &api.Error{Code: kernel.CodeUnavailable,
			Message: fmt.Sprintf("show a desktop notification: %v; the window's title counts the approvals that wait", err)}
	}
	return nil
}

// UIReady is called by the front end once it has rendered the kernel's
// info and the sessions (or the error it shows instead). Outside smoke mode
// it does nothing. In smoke mode the first call writes
//
//	foya: ui ready version=V sessions=N
//
// (with " open=ID turns=T cards=C", and " images=I" when its cards show
// images, when the window opened SmokeOpen; with " screen=setup" when it
// opened on the first-run setup; or
// "foya: ui error=..." when the window shows an error) and quits the
// app when the smoke input closes; later calls are ignored.
func (a *App) UIReady(r UIReport) {
	if !a.opts.Smoke {
		return
	}
	a.reportOnce.Do(func() {
		<-a.started
		if r.ShellPainted > 0 && !a.opts.ProcessStarted.IsZero() {
			painted := time.UnixMilli(int64(r.ShellPainted))
			fmt.Fprintf(a.opts.Out, "foya: shell painted %d ms after the process started\n", painted.Sub(a.opts.ProcessStarted).Milliseconds())
		}
		if r.Error != "" {
			fmt.Fprintf(a.opts.Out, "foya: ui error=%q version=%s\n", r.Error, r.Version)
		} else if r.Open != "" {
			images := ""
			if r.Images > 0 {
				images = fmt.Sprintf(" images=%d", r.Images)
			}
			fmt.Fprintf(a.opts.Out, "foya: ui ready version=%s sessions=%d open=%s turns=%d cards=%d%s\n",
				r.Version, r.Sessions, r.Open, r.Turns, r.Cards, images)
		} else if r.Setup {
			fmt.Fprintf(a.opts.Out, "foya: ui ready version=%s sessions=%d screen=setup\n", r.Version, r.Sessions)
		} else {
			fmt.Fprintf(a.opts.Out, "foya: ui ready version=%s sessions=%d\n", r.Version, r.Sessions)
		}
		go a.quitWhenInputCloses()
	})
}

// SmokeSession is the session the window opens in smoke mode (SmokeOpen);
// "" outside smoke mode, so a normal start opens what the address names.
//
// With SmokeHoldScript it first reports "foya: script started" and waits
// for one line on In (the front end renders nothing until it returns).
func (a *App) SmokeSession() string {
	if !a.opts.Smoke {
		return ""
	}
	if a.opts.SmokeHoldScript {
		a.holdOnce.Do(func() {
			fmt.Fprintln(a.opts.Out, "foya: script started")
			readLine(a.opts.In)
		})
	}
	return a.opts.SmokeOpen
}

// readLine reads up to and including the next newline, one byte at a time
// so that nothing after it is taken from a later reader; nil or an error
// ends it.
func readLine(r io.Reader) {
	if r == nil {
		return
	}
	var b [1]byte
	for {
		if n, err := r.Read(b[:]); err != nil || n == 1 && b[0] == '\n' {
			return
		}
	}
}

// quitWhenInputCloses lets a smoke test hold the window open for its
// screenshot for as long as it needs, then close it, without timing guesses.
func (a *App) quitWhenInputCloses() {
	closed := make(chan struct{})
	if a.opts.In != nil {
		go func() {
			_, _ = io.Copy(io.Discard, a.opts.In)
			close(closed)
		}()
	} else {
		close(closed)
	}
	select {
	case <-closed:
	case <-time.After(smokeHold):
	}
	a.quit(a.ctx)
}
