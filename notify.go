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
// requests that wait do not pile up. It is safe for concurrent use.
type notifier struct {
	// connect opens a connection to the session bus.
	connect func() (*dbus.Conn, error)

	mu   sync.Mutex
	conn *dbus.Conn // nil until the first notification, and after a failure
	last uint32     // ID of the last notification shown
}

const (
	notifyName  = "org.freedesktop.Notifications"
	notifyPath  = dbus.ObjectPath("/org/freedesktop/Notifications")
	notifyCall  = notifyName + ".Notify"
	notifyClose = notifyName + ".CloseNotification"
)

func newNotifier() *notifier {
	return &notifier{connect: func() (*dbus.Conn, error) { return dbus.ConnectSessionBus() }}
}

// notify shows title and body, replacing the notification shown before.
func (n *notifier) notify(title, body string) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.conn == nil {
		c, err := n.connect()
		if err != nil {
			return fmt.Errorf("connect to the session bus: %w", err)
		}
		n.conn = c
	}
	hints := map[string]dbus.Variant{
		"urgency":  dbus.MakeVariant(byte(1)), // normal
		"category": dbus.MakeVariant("im.received"),
	}
	var id uint32
	err := n.conn.Object(notifyName, notifyPath).
		Call(notifyCall, 0, "Foya", n.last, "dialog-question", title, body, []string{}, hints, int32(-1)).
		Store(&id)
	if err != nil {
		var de dbus.Error
		if !errors.As(err, &de) { // the connection broke: connect again next time
			n.conn.Close()
			n.conn = nil
		}
		return fmt.Errorf("ask %s to show it: %w", notifyName, err)
	}
	n.last = id
	return nil
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
	n.conn.Close()
	n.conn = nil
}
