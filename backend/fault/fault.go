// Package fault holds the kinds of error a front end branches on that more
// than one domain package returns: bad input (ErrInvalid), a clash with the
// current state (ErrConflict) and something outside Foya that is not there
// or not answering (ErrUnavailable). A domain package marks its errors with
// one of them (Errorf, Wrap, New), so that the kernel's Code names the kind
// of any error whichever package made it. Something that does not exist is
// store.ErrNotFound, and a session with a run going is engine.ErrBusy: those
// are the packages where the kinds arise.
//
// It imports the standard library only.
package fault

import (
	"errors"
	"fmt"
)

// The kinds of error.
var (
	// ErrInvalid: the request itself is wrong (a bad name, mode, path,
	// setting or argument); sending it again will not help.
	ErrInvalid = errors.New("invalid request")
	// ErrConflict: the request clashes with the current state (a name that
	// exists, a file changed since, rules that changed since they were
	// shown).
	ErrConflict = errors.New("conflict")
	// ErrUnavailable: something outside Foya is not there or not answering
	// (the keyring, a provider, a display).
	ErrUnavailable = errors.New("unavailable")
)

// kindError is an error that also means a kind: its text is err's, and
// errors.Is finds both err's chain and kind.
type kindError struct {
	err  error
	kind error
}

func (e *kindError) Error() string   { return e.err.Error() }
func (e *kindError) Unwrap() []error { return []error{e.err, e.kind} }

// Wrap marks err as meaning kind; nil stays nil, and an error that already
// means kind is returned as it is.
func Wrap(err, kind error) error {
	if err == nil || errors.Is(err, kind) {
		return err
	}
	return &kindError{err, kind}
}

// Errorf is fmt.Errorf marked as meaning kind.
func Errorf(kind error, format string, a ...any) error {
	return Wrap(fmt.Errorf(format, a...), kind)
}

// sentinel is a specific error (profiles.ErrProviderNotFound) that also
// means a general one (store.ErrNotFound): errors.Is holds for both.
type sentinel struct {
	msg  string
	kind error
}

func (e *sentinel) Error() string        { return e.msg }
func (e *sentinel) Is(target error) bool { return target == e.kind }

// New returns a sentinel error with the text msg that also means kind.
func New(msg string, kind error) error { return &sentinel{msg, kind} }
