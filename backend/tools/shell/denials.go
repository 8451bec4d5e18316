package shell

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"foya/backend/event"
	"foya/backend/fspath"
	"foya/backend/sandbox"
)

// Grants are what the user allowed a session's sandboxed commands beyond
// the workspace and the session's temp folder, for the session or for the
// next command only (Once).
type Grants struct {
	// Folders are the folders commands may write, canonical.
	Folders []string
	// Network turns the network on for commands; their files stay
	// confined.
	Network bool
	// Once are the IDs of the grants among these that hold for one
	// command: Spent drops them once a command started with them.
	Once []string
}

// Granter keeps the user's sandbox grants (the kernel stores them per
// session).
type Granter interface {
	// Grants returns a session's grants for its next sandboxed command.
	Grants(ctx context.Context, sessionID string) (Grants, error)
	// Spent tells that a command started with the one-command grants
	// ids, which no longer hold.
	Spent(ctx context.Context, sessionID string, ids []string) error
}

// ErrGrant is the error of a grant the sandbox refuses to widen to.
var ErrGrant = errors.New("cannot allow")

// systemFolders are folders that no grant may make writable, nor any
// folder inside them: the system's programs and configuration, and the
// kernel's file systems.
var systemFolders = []string{"/bin", "/boot", "/dev", "/etc", "/lib", "/lib32", "/lib64", "/proc", "/sbin", "/sys", "/usr"}

// CheckFolder checks that folder may be made writable for a session's
// sandboxed commands and returns it absolute and with its links resolved
// (of its existing part: a grant may name a folder that does not exist
// yet). It refuses, with ErrGrant and the reason, the root, the home
// folder and the folders above it, system folders, the folders where
// programs keep their sockets (/tmp, /run, $XDG_RUNTIME_DIR) and those
// above them, a folder that holds a socket another program listens on,
// and a folder that is or holds, or lies inside, a credential store,
// Foya's data folder, its database or its own files, whatever the user
// allowed to read.
func (s *Shell) CheckFolder(folder string) (string, error) {
	if strings.TrimSpace(folder) == "" {
		return "", fmt.Errorf("%w an empty folder: name the folder to make writable", ErrGrant)
	}
	if strings.IndexByte(folder, 0) >= 0 {
		return "", fmt.Errorf("%w %q: the folder contains a NUL character", ErrGrant, folder)
	}
	if !filepath.IsAbs(folder) {
		return "", fmt.Errorf("%w %q: not an absolute path", ErrGrant, folder)
	}
	canon := fspath.ResolveExisting(filepath.Clean(folder))
	if fi, err := os.Stat(canon); err == nil && !fi.IsDir() {
		return "", fmt.Errorf("%w %s: not a folder", ErrGrant, canon)
	}
	if canon == "/" {
		return "", fmt.Errorf("%w /: the whole file system would be writable; pick the folder the command needs", ErrGrant)
	}
	for _, sys := range systemFolders {
		if fspath.WithinAny([]string{sys}, canon) {
			return "", fmt.Errorf("%w %s: it is a system folder; run the command with sandbox: false if it must write there", ErrGrant, canon)
		}
	}
	for _, sf := range socketFolders() {
		if fspath.WithinAny([]string{canon}, sf) {
			return "", fmt.Errorf("%w %s: other programs keep their sockets in %s (an SSH agent, the display, Docker), "+
				"which would become reachable; pick a folder inside it", ErrGrant, canon, sf)
		}
	}
	if home, err := os.UserHomeDir(); err == nil && filepath.IsAbs(home) {
		home = fspath.ResolveExisting(home)
		if fspath.WithinAny([]string{canon}, home) {
			return "", fmt.Errorf("%w %s: it holds your home folder with its credentials; pick a folder inside it", ErrGrant, canon)
		}
	}
	for _, sock := range sandbox.ListeningSockets() {
		if fspath.WithinAny([]string{canon}, fspath.ResolveExisting(sock)) {
			return "", fmt.Errorf("%w %s: it holds %s, another program's socket, which would become reachable; pick a narrower folder",
				ErrGrant, canon, sock)
		}
	}
	var guarded []string
	if home, err := os.UserHomeDir(); err == nil && filepath.IsAbs(home) {
		guarded = CredentialStores(home)
	}
	guarded = append(guarded, s.opts.Private...)
	guarded = append(guarded, s.opts.Database...)
	guarded = append(guarded, s.opts.Own...)
	for _, g := range guarded {
		g = fspath.ResolveExisting(filepath.Clean(g))
		switch {
		case fspath.WithinAny([]string{g}, canon):
			return "", fmt.Errorf("%w %s: it is inside %s, which the sandbox keeps from commands (credentials or Foya's own data)", ErrGrant, canon, g)
		case fspath.WithinAny([]string{canon}, g):
			return "", fmt.Errorf("%w %s: it holds %s, which the sandbox keeps from commands (credentials or Foya's own data); pick a narrower folder",
				ErrGrant, canon, g)
		}
	}
	return canon, nil
}

// socketFolders are the folders where programs keep their UNIX sockets,
// which the sandbox covers (see the sandbox package): a grant may name a
// folder inside one, never one of them or a folder that holds one.
func socketFolders() []string {
	var out []string
	for _, f := range []string{"/tmp", "/var/tmp", "/run", "/var/run", os.TempDir(), os.Getenv("XDG_RUNTIME_DIR")} {
		if filepath.IsAbs(f) {
			out = append(out, fspath.ResolveExisting(filepath.Clean(f)))
		}
	}
	return out
}

// explain turns the sandbox's denials into the card's: each with what the
// user may allow for it, a folder to make writable (suggestFolder, when
// CheckFolder takes it) or the network.
func (s *Shell) explain(ds []sandbox.Denial) []event.Denial {
	var out []event.Denial
	for _, d := range ds {
		e := event.Denial{Kind: string(d.Kind), Path: d.Path, Host: d.Host, Text: d.Text}
		switch {
		case d.Kind == sandbox.DeniedWrite && !d.Protected:
			if f, err := s.CheckFolder(suggestFolder(d.Path)); err == nil {
				e.Allow, e.Folder = event.DenialWrite, f
			}
		case d.Kind == sandbox.DeniedNetwork:
			e.Allow = event.DenialNetwork
		}
		out = append(out, e)
	}
	return out
}

// suggestFolder is the folder to offer for a refused write to p: below the
// home folder, its first folder there (~/.npm, ~/go), or its second below
// ~/.cache, ~/.config and ~/.local (~/.cache/pip), its third below
// ~/.local/share and ~/.local/state; elsewhere the folder that holds p
// (p itself when it is a folder).
func suggestFolder(p string) string {
	if home, err := os.UserHomeDir(); err == nil && filepath.IsAbs(home) {
		home = fspath.ResolveExisting(home)
		if rel, ok := strings.CutPrefix(p, home+string(filepath.Separator)); ok {
			parts := strings.Split(rel, string(filepath.Separator))
			n := 1
			switch {
			case len(parts) > 2 && parts[0] == ".local" && (parts[1] == "share" || parts[1] == "state"):
				n = 3
			case len(parts) > 1 && (parts[0] == ".cache" || parts[0] == ".config" || parts[0] == ".local"):
				n = 2
			}
			if n > len(parts) {
				n = len(parts)
			}
			return filepath.Join(append([]string{home}, parts[:n]...)...)
		}
	}
	if fi, err := os.Stat(p); err == nil && fi.IsDir() {
		return p
	}
	return filepath.Dir(p)
}

// deniedText tells the model what the sandbox refused, in the sentences the
// user reads on the card, and what it can do.
func deniedText(ds []event.Denial) string {
	var b strings.Builder
	b.WriteString("The sandbox seems to have blocked part of this command: ")
	allow := false
	for i, d := range ds {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(d.Text)
		allow = allow || d.Allow != ""
	}
	b.WriteString(".")
	if allow {
		b.WriteString(" The user can allow it on this call's card, for the next command or for the session, without leaving the sandbox: " +
			"say so if the task needs it, and run the command again once they have.")
	}
	b.WriteString(" Or, if the task really needs it, call bash again with sandbox: false and a reason: the user will be asked.")
	return b.String()
}
