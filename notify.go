package main

import (
	"errors"
	"fmt"
	"sync"

	"github.com/godbus/dbus/v5"
)

// notifier shows desktop notifications through the freedesktop
// notification service (org.freedesktop.Notifications on the session bus),
// which Linux desktops provide. Wails v2.11, the newest v2 the module proxy
// serves here, has no notification API, and its WebKitGTK view denies the
// web Notification API (Wails does not answer WebKit's permission request),
// so the window asks Go. Each notification replaces the previous one, so
// requests that wait do not pile up. Clicking the notification calls
// onClick (the App brings its window forward). It is safe for concurrent
// use; each connection has one goroutine reading its signals, which ends
// when the connection closes, and close waits for it.
type notifier struct {
	// connect opens a connection to the session bus.
	connect func() (*dbus.Conn, error)
	// onClick is called when the person clicks the last notification; nil
	// does nothing.
	onClick func()
	// allowed reports whether notifications of a kind are on (the
	// kernel's notify.* settings, kernel.Notifies); nil allows every kind.
	allowed func(kind string) (bool, error)

	mu        sync.Mutex
	conn      *dbus.Conn    // nil until the first notification, and after a failure
	last      uint32        // ID of the last notification shown
	listening chan struct{} // closed when conn's signal reader has ended
}

const (
	notifyName  = "org.freedesktop.Notifications"
	notifyPath  = dbus.ObjectPath("/org/freedesktop/Notifications")
	notifyCall  = notifyName + ".Notify"
	notifyClose = notifyName + ".CloseNotification"
	// notifyAction is the signal a click sends: (id, action key).
	notifyAction = notifyName + ".ActionInvoked"
)

func newNotifier() *notifier {
	return &notifier{connect: func() (*dbus.Conn, error) { return dbus.ConnectSessionBus() }}
}

// errNotifySetting wraps what kept notify from reading whether a kind of
// notification is on.
type errNotifySetting struct{ err error }

func (e errNotifySetting) Error() string { return "notification setting: " + e.err.Error() }
func (e errNotifySetting) Unwrap() error { return e.err }

// notify shows title and body, replacing the notification shown before,
// when notifications of kind are on (allowed); when they are off it shows
// nothing and returns nil.
func (n *notifier) notify(kind, title, body string) error {
	if n.allowed != nil {
		on, err := n.allowed(kind)
		if err != nil {
			return errNotifySetting{err}
		}
		if !on {
			return nil
		}
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.conn == nil {
		c, err := n.connect()
		if err != nil {
			return fmt.Errorf("connect to the session bus: %w", err)
		}
		n.conn = c
		n.listen(c)
	}
	hints := map[string]dbus.Variant{
		"urgency":  dbus.MakeVariant(byte(1)), // normal
		"category": dbus.MakeVariant("im.received"),
	}
	var id uint32
	err := n.conn.Object(notifyName, notifyPath).
		Call(notifyCall, 0, "Foya", n.last, "dialog-question", title, body, []string{"default", "Show Foya"}, hints, int32(-1)).
		Store(&id)
	if err != nil {
		var de dbus.Error
		if !errors.As(err, &de) { // the connection broke: connect again next time
			n.closeConn()
		}
		return fmt.Errorf("ask %s to show it: %w", notifyName, err)
	}
	n.last = id
	return nil
}

// listen reads c's signals until it closes: a click on the notification
// shown last calls onClick. n.mu must be held.
func (n *notifier) listen(c *dbus.Conn) {
	done := make(chan struct{})
	n.listening = done
	ch := make(chan *dbus.Signal, 8)
	c.Signal(ch) // closed by c.Close
	if err := c.AddMatchSignal(dbus.WithMatchInterface(notifyName), dbus.WithMatchMember("ActionInvoked")); err != nil {
		// Notifications still show; a click does nothing more than the
		// desktop itself does.
		c.RemoveSignal(ch)
		close(ch)
	}
	go func() {
		defer close(done)
		for sig := range ch {
			if sig.Name != notifyAction || len(sig.Body) != 2 {
				continue
			}
			id, _ := sig.Body[0].(uint32)
			n.mu.Lock()
			mine := id != 0 && id == n.last
			n.mu.Unlock()
			if mine && n.onClick != nil {
				n.onClick()
			}
		}
	}()
}

// closeConn closes the connection and waits for its signal reader. n.mu
// must be held; the reader takes it only briefly and never while calling
// out, so it is released while waiting.
func (n *notifier) closeConn() {
	c, done := n.conn, n.listening
	n.conn, n.listening = nil, nil
	c.Close()
	n.mu.Unlock()
	<-done
	n.mu.Lock()
}

// close closes the notification shown last, if any, and the connection.
func (n *notifier) close() {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.conn == nil {
		return
	}
	if n.last != 0 {
		n.conn.Object(notifyName, notifyPath).Call(notifyClose, 0, n.last)
	}
	n.closeConn()
}
