package profiles

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/zalando/go-keyring"

	"foya/backend/fault"
	"foya/backend/lockfile"
)

// KeyFile is the file, in the data folder, that holds provider keys where
// the system has no keyring: a JSON object of keys by profile name, mode
// 0600. Sandboxed commands never see it (the kernel hides it from them).
const KeyFile = "provider-keys.json"

// keyringService is the service name of Foya's keyring entries; the
// account is "provider/" + the profile's name.
const keyringService = "foya"

// keyringTimeout bounds one keyring call: a keyring that shows an unlock
// prompt nobody answers would otherwise hang the command.
const keyringTimeout = 30 * time.Second

// ErrKeyringLocked is returned when the keyring exists but stays locked
// (its unlock prompt was dismissed or not answered).
// It means fault.ErrUnavailable too.
var ErrKeyringLocked = fault.New("the keyring is locked: unlock it (your desktop's keyring or passwords app) and try again", fault.ErrUnavailable)

// errNoKeyring means the system has no keyring to talk to: the key goes to
// KeyFile instead.
var errNoKeyring = errors.New("no keyring")

// keys keeps provider API keys: in the keyring where there is one, else in
// KeyFile. It never puts a key in an error message.
type keys struct {
	file string // KeyFile's path
	mu   sync.Mutex
}

func keyAccount(name string) string { return "provider/" + name }

// keyringReachable reports whether a keyring may be there to ask. On Linux
// and BSD the Secret Service needs a D-Bus session bus: without its
// address (or the systemd user bus socket) there is none, and asking
// would only wait or start a bus of its own.
func keyringReachable() bool {
	switch runtime.GOOS {
	case "darwin", "windows":
		return true
	}
	if os.Getenv("DBUS_SESSION_BUS_ADDRESS") != "" {
		return true
	}
	if dir := os.Getenv("XDG_RUNTIME_DIR"); dir != "" {
		if fi, err := os.Stat(filepath.Join(dir, "bus")); err == nil && fi.Mode()&fs.ModeSocket != 0 {
			return true
		}
	}
	return false
}

// keyringCall runs one keyring operation with keyringTimeout and sorts its
// failure: no keyring (errNoKeyring), a locked one (ErrKeyringLocked), a
// missing entry (keyring.ErrNotFound), or another failure, worded without
// the key.
func keyringCall(op func() (string, error)) (string, error) {
	if !keyringReachable() {
		return "", errNoKeyring
	}
	type answer struct {
		v   string
		err error
	}
	ch := make(chan answer, 1)
	go func() { // ends when the keyring answers; abandoned after the timeout
		v, err := op()
		ch <- answer{v, err}
	}()
	var a answer
	select {
	case a = <-ch:
	case <-time.After(keyringTimeout):
		return "", ErrKeyringLocked
	}
	if a.err == nil || errors.Is(a.err, keyring.ErrNotFound) {
		return a.v, a.err
	}
	msg := a.err.Error()
	switch {
	case noSecretService(a.err), errors.Is(a.err, keyring.ErrUnsupportedPlatform):
		return "", errNoKeyring
	case secretServiceLocked(a.err):
		return "", ErrKeyringLocked
	}
	return "", fault.Errorf(fault.ErrUnavailable, "keyring: %s", firstLineOf(msg))
}

func firstLineOf(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// put stores a profile's key and says where: in the keyring, else (no
// keyring) in KeyFile. A locked keyring is an error, not a reason to write
// the key to a file the user did not expect.
func (ks *keys) put(name, key string) (string, error) {
	_, err := keyringCall(func() (string, error) { return "", keyring.Set(keyringService, keyAccount(name), key) })
	switch {
	case err == nil:
		// A key of the same name left in the file by an earlier run
		// without a keyring must not outlive this one.
		_ = ks.fileDelete(name)
		return KeyInKeyring, nil
	case !errors.Is(err, errNoKeyring):
		return "", fmt.Errorf("store the API key of provider %s: %w", name, err)
	}
	if err := ks.fileSet(name, key); err != nil {
		return "", fmt.Errorf("store the API key of provider %s: %w", name, err)
	}
	return KeyInFile, nil
}

// get returns a profile's key from where put kept it.
func (ks *keys) get(name, where string) (string, error) {
	switch where {
	case "":
		return "", nil
	case KeyInFile:
		m, err := ks.fileRead()
		if err != nil {
			return "", fmt.Errorf("read the API key of provider %s: %w", name, err)
		}
		k, ok := m[name]
		if !ok {
			return "", fault.Errorf(fault.ErrUnavailable, "the API key of provider %s is not in %s: add it again with foya providers add %s ... --api-key-stdin", name, ks.file, name)
		}
		return k, nil
	}
	k, err := keyringCall(func() (string, error) { return keyring.Get(keyringService, keyAccount(name)) })
	switch {
	case errors.Is(err, keyring.ErrNotFound):
		return "", fault.Errorf(fault.ErrUnavailable, "the API key of provider %s is not in the keyring: add it again with foya providers add %s ... --api-key-stdin", name, name)
	case errors.Is(err, errNoKeyring):
		return "", fault.Errorf(fault.ErrUnavailable, "the API key of provider %s is in the keyring, and no keyring is reachable here (no D-Bus session): run where the keyring is, or pass --api-key", name)
	case err != nil:
		return "", fmt.Errorf("read the API key of provider %s: %w", name, err)
	}
	return k, nil
}

// drop removes a profile's key from where put kept it; a key already gone
// is no error.
func (ks *keys) drop(name, where string) error {
	switch where {
	case "":
		return nil
	case KeyInFile:
		return ks.fileDelete(name)
	}
	_, err := keyringCall(func() (string, error) { return "", keyring.Delete(keyringService, keyAccount(name)) })
	if err != nil && !errors.Is(err, keyring.ErrNotFound) {
		return fmt.Errorf("remove the API key of provider %s from the keyring: %w", name, err)
	}
	return nil
}

// fileRead reads KeyFile; a missing file holds no keys. A file others may
// read is refused: its keys may have leaked, and the user should know.
func (ks *keys) fileRead() (map[string]string, error) {
	b, err := os.ReadFile(ks.file)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, err
	}
	if fi, err := os.Stat(ks.file); err == nil && runtime.GOOS != "windows" && fi.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("%s can be read by others (mode %v): run chmod 600 %s, and replace the keys it holds if others may have read them",
			ks.file, fi.Mode().Perm(), ks.file)
	}
	m := map[string]string{}
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s is not a JSON object of keys by provider name; remove it and add the keys again", ks.file)
	}
	return m, nil
}

// fileWrite replaces KeyFile with m: a new file of mode 0600, renamed
// over the old one, so a crash leaves the old keys or the new ones.
func (ks *keys) fileWrite(m map[string]string) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	dir := filepath.Dir(ks.file)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	tmp, err := os.CreateTemp(dir, ".provider-keys-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", ks.file, err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", ks.file, err)
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", ks.file, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", ks.file, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", ks.file, err)
	}
	if err := os.Rename(tmp.Name(), ks.file); err != nil {
		return fmt.Errorf("write %s: %w", ks.file, err)
	}
	return nil
}

// lock takes the key file's lock, which another Foya process changing the
// file holds too (ks.mu is this process's side of it).
func (ks *keys) lock() (unlock func(), err error) {
	if err := os.MkdirAll(filepath.Dir(ks.file), 0o700); err != nil {
		return nil, fmt.Errorf("create %s: %w", filepath.Dir(ks.file), err)
	}
	l, err := lockfile.Create(ks.file+".lock", lockfile.Exclusive|lockfile.Wait)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", ks.file, err)
	}
	return func() { l.Close() }, nil
}

func (ks *keys) fileSet(name, key string) error {
	ks.mu.Lock()
	defer ks.mu.Unlock()
	unlock, err := ks.lock()
	if err != nil {
		return err
	}
	defer unlock()
	m, err := ks.fileRead()
	if err != nil {
		return err
	}
	m[name] = key
	return ks.fileWrite(m)
}

func (ks *keys) fileDelete(name string) error {
	if _, err := os.Stat(ks.file); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	ks.mu.Lock()
	defer ks.mu.Unlock()
	unlock, err := ks.lock()
	if err != nil {
		return err
	}
	defer unlock()
	m, err := ks.fileRead()
	if err != nil {
		return err
	}
	if _, ok := m[name]; !ok {
		return nil
	}
	delete(m, name)
	return ks.fileWrite(m)
}
