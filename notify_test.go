package main

import (
	"bufio"
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/godbus/dbus/v5"

	"foya/backend/api"
	"foya/backend/kernel"
	"foya/backend/testwait"
)

// testBus starts a private session bus (the real dbus-daemon) and returns
// its address; without dbus-daemon the test is skipped, or fails under CI.
func testBus(t *testing.T) string {
	t.Helper()
	daemon, err := exec.LookPath("dbus-daemon")
	if err != nil {
		testwait.Missing(t, "dbus-daemon (Debian package dbus-daemon)", "desktop notifications over a session bus")
	}
	cmd := exec.Command(daemon, "--session", "--nofork", "--nopidfile", "--print-address=1",
		"--address=unix:path="+filepath.Join(t.TempDir(), "bus"))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("dbus-daemon printed no address: %v", err)
	}
	return strings.TrimSpace(line)
}

// shown is one Notify call a notification service received.
type shown struct {
	App, Icon, Title, Body string
	Replaces               uint32
	Urgency                byte
}

// noteServer is a notification service on a test bus, as a desktop's:
// it records each Notify and answers with a new ID.
type noteServer struct {
	conn   *dbus.Conn
	mu     sync.Mutex
	shown  []shown
	closed []uint32
}

// click sends what a desktop sends when the person clicks notification id.
func (s *noteServer) click(t *testing.T, id uint32) {
	t.Helper()
	if err := s.conn.Emit(notifyPath, notifyAction, id, "default"); err != nil {
		t.Fatal(err)
	}
}

func (s *noteServer) Notify(app string, replaces uint32, icon, title, body string, actions []string,
	hints map[string]dbus.Variant, timeout int32) (uint32, *dbus.Error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	u, _ := hints["urgency"].Value().(byte)
	s.shown = append(s.shown, shown{App: app, Icon: icon, Title: title, Body: body, Replaces: replaces, Urgency: u})
	return uint32(len(s.shown)), nil
}

func (s *noteServer) CloseNotification(id uint32) *dbus.Error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = append(s.closed, id)
	return nil
}

func startNoteServer(t *testing.T, addr string) *noteServer {
	t.Helper()
	conn, err := dbus.Connect(addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	s := &noteServer{conn: conn}
	if err := conn.Export(s, notifyPath, notifyName); err != nil {
		t.Fatal(err)
	}
	if reply, err := conn.RequestName(notifyName, dbus.NameFlagDoNotQueue); err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("request %s: %v %v", notifyName, reply, err)
	}
	return s
}

func busNotifier(addr string) *notifier {
	return &notifier{connect: busConnect(addr)}
}

func busConnect(addr string) func() (*dbus.Conn, error) {
	return func() (*dbus.Conn, error) { return dbus.Connect(addr) }
}

// TestNotifyShowsOnTheDesktop: App.Notify, the bound method the window
// calls when an approval waits and it is not focused, reaches the desktop's
// notification service; each notification replaces the one before; a click
// on the last one brings the window forward (one on an older one does
// not); shutdown closes the last.
func TestNotifyShowsOnTheDesktop(t *testing.T) {
	addr := testBus(t)
	srv := startNoteServer(t, addr)
	a, _, _, _ := newTestApp(t, AppOptions{})
	a.notes.connect = busConnect(addr)
	raised := make(chan struct{}, 4)
	a.show = func(context.Context) { raised <- struct{}{} }
	a.startup(t.Context())
	if err := a.Notify(kernel.NotifyApproval, "Foya: Write a file?", "/w/notes.txt"); err != nil {
		t.Fatal(err)
	}
	if err := a.Notify(kernel.NotifyApproval, "Foya: Run a command? (2 waiting)", "go test ./..."); err != nil {
		t.Fatal(err)
	}
	srv.click(t, 1) // replaced: nothing
	srv.click(t, 2)
	testwait.Receive(t, raised, "the window to be brought forward")
	a.shutdown(t.Context())
	if len(raised) != 0 {
		t.Errorf("the window was brought forward %d more times; want once, for the last notification", len(raised))
	}
	srv.mu.Lock()
	defer srv.mu.Unlock()
	want := []shown{
		{App: "Foya", Icon: "dialog-question", Title: "Foya: Write a file?", Body: "/w/notes.txt", Replaces: 0, Urgency: 1},
		{App: "Foya", Icon: "dialog-question", Title: "Foya: Run a command? (2 waiting)", Body: "go test ./...", Replaces: 1, Urgency: 1},
	}
	if len(srv.shown) != len(want) {
		t.Fatalf("shown %+v; want %+v", srv.shown, want)
	}
	for i := range want {
		if srv.shown[i] != want[i] {
			t.Errorf("notification %d = %+v; want %+v", i, srv.shown[i], want[i])
		}
	}
	if len(srv.closed) != 1 || srv.closed[0] != 2 {
		t.Errorf("closed %v at shutdown; want [2]", srv.closed)
	}
}

// TestNotifyWithoutService: where no program provides the notification
// service (or there is no bus), Notify fails with a message that says what
// still shows, coded unavailable.
func TestNotifyWithoutService(t *testing.T) {
	addr := testBus(t)
	for name, n := range map[string]*notifier{
		"no service": busNotifier(addr),
		"no bus":     busNotifier("unix:path=" + filepath.Join(t.TempDir(), "none")),
	} {
		t.Run(name, func(t *testing.T) {
			a, _, _, _ := newTestApp(t, AppOptions{})
			a.notes = n
			err := a.Notify(kernel.NotifyApproval, "t", "b")
			var ae *api.Error
			if !errors.As(err, &ae) || ae.Code != kernel.CodeUnavailable || !strings.Contains(ae.Message, "the window's title counts the approvals that wait") {
				t.Fatalf("Notify = %v; want unavailable, saying the title still counts", err)
			}
		})
	}
}

// TestNotifyObeysTheSettings: each kind of notification (approval waiting,
// run ended, run failed) has a setting; a kind turned off shows nothing,
// the others still show, and turning it on again shows it. An unknown kind
// is refused as invalid.
//
// spec: W3
func TestNotifyObeysTheSettings(t *testing.T) {
	addr := testBus(t)
	srv := startNoteServer(t, addr)
	a, svc, _, _ := newTestApp(t, AppOptions{})
	a.notes.connect = busConnect(addr)
	a.startup(t.Context())
	defer a.shutdown(t.Context())
	for _, key := range []string{"notify.approval", "notify.runEnded", "notify.runFailed"} {
		if err := svc.SetSetting(key, "false"); err != nil {
			t.Fatalf("SetSetting(%s, false): %v", key, err)
		}
	}
	for _, kind := range []string{kernel.NotifyApproval, kernel.NotifyRunEnded, kernel.NotifyRunFailed} {
		if err := a.Notify(kind, "off: "+kind, "b"); err != nil {
			t.Fatalf("Notify(%s) turned off = %v; want nil, showing nothing", kind, err)
		}
	}
	if err := svc.SetSetting("notify.runFailed", "true"); err != nil {
		t.Fatal(err)
	}
	if err := a.Notify(kernel.NotifyRunFailed, "Run failed in Fix the tests", "the model server did not answer"); err != nil {
		t.Fatal(err)
	}
	if err := a.Notify(kernel.NotifyRunEnded, "still off", "b"); err != nil {
		t.Fatal(err)
	}
	err := a.Notify("birthday", "t", "b")
	var ae *api.Error
	if !errors.As(err, &ae) || ae.Code != kernel.CodeInvalid {
		t.Errorf("Notify of an unknown kind = %v; want invalid", err)
	}
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if len(srv.shown) != 1 || srv.shown[0].Title != "Run failed in Fix the tests" {
		t.Errorf("shown %+v; want only the run failure, turned on again", srv.shown)
	}
}
