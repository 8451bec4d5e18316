package tests

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/godbus/dbus/v5"

	"foya/backend/testwait"
)

// sessionBus starts a private D-Bus session bus (the real dbus-daemon) for
// a test and returns its address; without dbus-daemon the test is skipped,
// or fails under CI.
func sessionBus(t *testing.T) string {
	t.Helper()
	daemon, err := exec.LookPath("dbus-daemon")
	if err != nil {
		testwait.Missing(t, "dbus-daemon (Debian package dbus-daemon)", "the system keyring over a session bus")
	}
	sock := filepath.Join(t.TempDir(), "bus")
	cmd := exec.Command(daemon, "--session", "--nofork", "--nopidfile", "--print-address=1", "--address=unix:path="+sock)
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

// secretService is a small Secret Service (org.freedesktop.secrets) on a
// test bus, enough for go-keyring: sessions, unlocking, and items in the
// default collection. Locked, it refuses to unlock, as a keyring whose
// unlock prompt the user dismissed.
type secretService struct {
	conn   *dbus.Conn
	locked bool

	mu    sync.Mutex
	items map[dbus.ObjectPath]*ssItem
	next  int
}

type ssItem struct {
	attrs map[string]string
	value []byte
}

// ssSecret is the Secret Service's (oayays) secret struct.
type ssSecret struct {
	Session     dbus.ObjectPath
	Parameters  []byte
	Value       []byte
	ContentType string
}

const ssCollection = dbus.ObjectPath("/org/freedesktop/secrets/aliases/default")

func startSecretService(t *testing.T, addr string, locked bool) *secretService {
	t.Helper()
	conn, err := dbus.Connect(addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	s := &secretService{conn: conn, locked: locked, items: map[dbus.ObjectPath]*ssItem{}}
	if err := conn.Export(ssService{s}, "/org/freedesktop/secrets", "org.freedesktop.Secret.Service"); err != nil {
		t.Fatal(err)
	}
	if err := conn.Export(ssColl{s}, ssCollection, "org.freedesktop.Secret.Collection"); err != nil {
		t.Fatal(err)
	}
	if err := conn.Export(ssSession{}, "/org/freedesktop/secrets/session/1", "org.freedesktop.Secret.Session"); err != nil {
		t.Fatal(err)
	}
	reply, err := conn.RequestName("org.freedesktop.secrets", dbus.NameFlagDoNotQueue)
	if err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("request org.freedesktop.secrets: %v %v", reply, err)
	}
	return s
}

// values returns every stored secret value.
func (s *secretService) values() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, it := range s.items {
		out = append(out, string(it.value))
	}
	return out
}

type ssService struct{ s *secretService }

func (ssService) OpenSession(algorithm string, input dbus.Variant) (dbus.Variant, dbus.ObjectPath, *dbus.Error) {
	return dbus.MakeVariant(""), "/org/freedesktop/secrets/session/1", nil
}

func (x ssService) Unlock(objects []dbus.ObjectPath) ([]dbus.ObjectPath, dbus.ObjectPath, *dbus.Error) {
	if x.s.locked {
		return []dbus.ObjectPath{}, "/", nil
	}
	return objects, "/", nil
}

type ssSession struct{}

func (ssSession) Close() *dbus.Error { return nil }

type ssColl struct{ s *secretService }

func (c ssColl) CreateItem(props map[string]dbus.Variant, secret ssSecret, replace bool) (dbus.ObjectPath, dbus.ObjectPath, *dbus.Error) {
	attrs, _ := props["org.freedesktop.Secret.Item.Attributes"].Value().(map[string]string)
	s := c.s
	s.mu.Lock()
	defer s.mu.Unlock()
	for p, it := range s.items {
		if replace && sameAttrs(it.attrs, attrs) {
			it.value = secret.Value
			return p, "/", nil
		}
	}
	s.next++
	p := dbus.ObjectPath(fmt.Sprintf("/org/freedesktop/secrets/item/%d", s.next))
	it := &ssItem{attrs: attrs, value: secret.Value}
	s.items[p] = it
	if err := s.conn.Export(ssItemObj{s, p}, p, "org.freedesktop.Secret.Item"); err != nil {
		return "", "", dbus.MakeFailedError(err)
	}
	return p, "/", nil
}

func (c ssColl) SearchItems(attrs map[string]string) ([]dbus.ObjectPath, *dbus.Error) {
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	out := []dbus.ObjectPath{}
	for p, it := range c.s.items {
		match := true
		for k, v := range attrs {
			if it.attrs[k] != v {
				match = false
			}
		}
		if match {
			out = append(out, p)
		}
	}
	return out, nil
}

func sameAttrs(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

type ssItemObj struct {
	s    *secretService
	path dbus.ObjectPath
}

func (i ssItemObj) GetSecret(session dbus.ObjectPath) (ssSecret, *dbus.Error) {
	i.s.mu.Lock()
	defer i.s.mu.Unlock()
	it, ok := i.s.items[i.path]
	if !ok {
		return ssSecret{}, dbus.MakeFailedError(os.ErrNotExist)
	}
	return ssSecret{Session: session, Parameters: []byte{}, Value: it.value, ContentType: "text/plain"}, nil
}

func (i ssItemObj) Delete() (dbus.ObjectPath, *dbus.Error) {
	i.s.mu.Lock()
	defer i.s.mu.Unlock()
	delete(i.s.items, i.path)
	return "/", nil
}
