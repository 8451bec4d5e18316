package kernel

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"foya/backend/store"
	"foya/backend/tools/shell"
)

// AllowSandbox stores what the user allows a session's sandboxed commands
// beyond the workspace (a folder made writable, the network), for the
// session or its next command, and returns the grant. A folder that the
// sandbox keeps from commands whatever the user allows (the root, the home
// folder or above, system folders, credential stores, Foya's data folder,
// database and own files, or a folder holding one) is refused with
// ErrInvalid and the reason (shell.Shell.CheckFolder); a folder that does
// not exist yet is made when a command first needs it. The same grant
// twice is stored once.
func (k *Kernel) AllowSandbox(ctx context.Context, sessionID string, a SandboxAllow) (SandboxGrant, error) {
	g := store.SandboxGrant{SessionID: sessionID, Kind: a.Kind, Once: a.Once, CreatedAt: time.Now()}
	switch a.Kind {
	case SandboxWrite:
		folder, err := k.shell.CheckFolder(a.Folder)
		if err != nil {
			return SandboxGrant{}, withKind(err, ErrInvalid)
		}
		g.Folder = folder
	case SandboxNetwork:
		if a.Folder != "" {
			return SandboxGrant{}, kindf(ErrInvalid, "a network grant names no folder (got %q)", a.Folder)
		}
	default:
		return SandboxGrant{}, kindf(ErrInvalid, "unknown sandbox grant kind %q: want %q (a folder made writable) or %q (the network on)",
			a.Kind, SandboxWrite, SandboxNetwork)
	}
	if _, err := k.store.Session(ctx, sessionID); err != nil {
		return SandboxGrant{}, err
	}
	stored, err := k.store.AddSandboxGrant(ctx, g)
	if err != nil {
		return SandboxGrant{}, err
	}
	return sandboxGrantOf(stored), nil
}

// CheckSandboxFolder checks a folder as AllowSandbox does, without storing
// anything, and returns it as the sandbox would use it.
func (k *Kernel) CheckSandboxFolder(folder string) (string, error) {
	f, err := k.shell.CheckFolder(folder)
	return f, withKind(err, ErrInvalid)
}

// SandboxGrants lists a session's sandbox grants, oldest first.
func (k *Kernel) SandboxGrants(ctx context.Context, sessionID string) ([]SandboxGrant, error) {
	if _, err := k.store.Session(ctx, sessionID); err != nil {
		return nil, err
	}
	gs, err := k.store.SandboxGrants(ctx, sessionID)
	return mapSlice(gs, sandboxGrantOf), err
}

// RevokeSandbox removes one of a session's sandbox grants: commands started
// from then on run without it. An ID the session does not have is
// ErrNotFound.
func (k *Kernel) RevokeSandbox(ctx context.Context, sessionID string, id int64) error {
	n, err := k.store.DeleteSandboxGrants(ctx, sessionID, id)
	if err != nil {
		return err
	}
	if n == 0 {
		return kindf(ErrNotFound, "session %s has no sandbox grant %d", sessionID, id)
	}
	return nil
}

func sandboxGrantOf(g store.SandboxGrant) SandboxGrant {
	out := SandboxGrant{ID: g.ID, SessionID: g.SessionID, Kind: g.Kind, Folder: g.Folder, Once: g.Once, CreatedAt: g.CreatedAt}
	when := "for the session"
	if g.Once {
		when = "for the next command"
	}
	switch g.Kind {
	case SandboxWrite:
		out.Text = fmt.Sprintf("%s writable %s", g.Folder, when)
	case SandboxNetwork:
		out.Text = "the network on " + when + " (files still confined)"
	}
	return out
}

// sandboxGranter gives the shell the sessions' grants (shell.Granter).
type sandboxGranter struct{ k *Kernel }

func (s sandboxGranter) Grants(ctx context.Context, sessionID string) (shell.Grants, error) {
	gs, err := s.k.store.SandboxGrants(ctx, sessionID)
	if err != nil {
		return shell.Grants{}, err
	}
	var out shell.Grants
	for _, g := range gs {
		switch g.Kind {
		case SandboxWrite:
			// Checked again: what the sandbox keeps from commands may
			// have changed since (a data folder moved).
			if f, err := s.k.shell.CheckFolder(g.Folder); err == nil {
				out.Folders = append(out.Folders, f)
			}
		case SandboxNetwork:
			out.Network = true
		}
		if g.Once {
			out.Once = append(out.Once, strconv.FormatInt(g.ID, 10))
		}
	}
	return out, nil
}

func (s sandboxGranter) Spent(ctx context.Context, sessionID string, ids []string) error {
	var nums []int64
	var errs []error
	for _, id := range ids {
		n, err := strconv.ParseInt(id, 10, 64)
		if err != nil {
			errs = append(errs, fmt.Errorf("grant id %q: %w", id, err))
			continue
		}
		nums = append(nums, n)
	}
	_, err := s.k.store.DeleteSandboxGrants(ctx, sessionID, nums...)
	return errors.Join(append(errs, err)...)
}
