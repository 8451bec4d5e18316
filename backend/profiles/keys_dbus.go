//go:build (dragonfly && cgo) || (freebsd && cgo) || linux || netbsd || openbsd

package profiles

import (
	"errors"
	"strings"

	"github.com/godbus/dbus/v5"
)

// noSecretService reports whether a keyring error means there is no
// Secret Service to ask: no session bus, or a bus on which no program
// provides org.freedesktop.secrets (a desktop without a keyring daemon).
func noSecretService(err error) bool {
	var de dbus.Error
	if errors.As(err, &de) {
		switch de.Name {
		case "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner",
			"org.freedesktop.DBus.Error.Spawn.ServiceNotFound", "org.freedesktop.DBus.Error.NoServer":
			return true
		}
	}
	msg := err.Error()
	return strings.Contains(msg, "not provided by any .service files") || strings.Contains(msg, "dbus-launch") ||
		strings.Contains(msg, "dial unix") || strings.Contains(msg, "connection refused")
}

// secretServiceLocked reports whether a keyring error means the keyring
// stays locked: the Secret Service said so, or its unlock prompt was
// dismissed (go-keyring then finds nothing unlocked).
func secretServiceLocked(err error) bool {
	var de dbus.Error
	if errors.As(err, &de) && de.Name == "org.freedesktop.Secret.Error.IsLocked" {
		return true
	}
	return strings.Contains(err.Error(), "failed to unlock")
}
