// Package errkind holds the kinds of error a front end branches on that do
// not belong to one lower package: a request that is wrong in itself, one
// that clashes with the current state, and something outside Foya that is
// not there. The kernel and the domain packages beside it (MCP
// configuration, provider profiles) mark their errors with them, and
// kernel.Code names them for transports. "Not found" is store.ErrNotFound
// and "busy" engine.ErrBusy, where those errors start.
//
// It imports only the standard library.
package errkind

import (
	"errors"
	"fmt"
)

// Kinds of error.
var (
	// Invalid: the request itself is wrong (a bad name, mode, path,
	// setting or argument); sending it again will not help.
	Invalid = errors.New("invalid request")
	// Conflict: the request clashes with the current state (a name that
	// exists, a file changed since, rules that changed since they were
	// shown).
	Conflict = errors.New("conflict")
	// Unavailable: something outside Foya is not there or not answering
	// (the keyring, a provider, a display).
	Unavailable = errors.New("unavailable")
)

// kindError is an error that also means a kind: its text is err's, and
// errors.Is finds both err's chain and kind.
type kindError struct {
	err  error
	kind error
}

func (e *kindError) Error() string   { return e.err.Error() }
func (e *kindError) Unwrap() []error { return []error{e.err, e.kind} }

// Mark marks err as meaning kind; nil stays nil, and an error that already
// means kind is returned as it is.
func Mark(err, kind error) error {
	if err == nil || errors.Is(err, kind) {
		return err
	}
	return &kindError{err, kind}
}

// Errorf is fmt.Errorf marked as meaning kind.
func Errorf(kind error, format string, a ...any) error {
	return Mark(fmt.Errorf(format, a...), kind)
}
