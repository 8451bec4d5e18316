//go:build !((dragonfly && cgo) || (freebsd && cgo) || linux || netbsd || openbsd)

package profiles

// noSecretService is false where the keyring is the system's own (the
// macOS Keychain, the Windows Credential Manager): it is always there.
func noSecretService(error) bool { return false }

// secretServiceLocked is false here: those keyrings' errors are reported
// as they are.
func secretServiceLocked(error) bool { return false }
