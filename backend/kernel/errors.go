package kernel

import (
	"errors"
	"fmt"

	"foya/backend/engine"
	"foya/backend/store"
)

// Errors a front end branches on. Every error a kernel method returns that
// means one of these wraps it (errors.Is holds), and Code names it; the
// transports (Wails bindings, foya serve) send {code, message}.
var (
	// ErrNotFound: the session, run, change, approval, artifact, provider
	// or background command does not exist.
	ErrNotFound = store.ErrNotFound
	// ErrInvalid: the request itself is wrong (a bad name, mode, path,
	// setting or argument); sending it again will not help.
	ErrInvalid = errors.New("invalid request")
	// ErrConflict: the request clashes with the current state (a name that
	// exists, a file changed since, rules that changed since they were
	// shown).
	ErrConflict = errors.New("conflict")
	// ErrBusy: the session has a run going that the request would race.
	ErrBusy = engine.ErrBusy
	// ErrUnavailable: something outside the kernel is not there or not
	// answering (the keyring, a provider, a display).
	ErrUnavailable = errors.New("unavailable")
)

// Code names the kind of err for a front end: one of the Code constants,
// CodeInternal for anything that is not one of the sentinels above.
func Code(err error) string {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, ErrNotFound):
		return CodeNotFound
	case errors.Is(err, ErrInvalid):
		return CodeInvalid
	case errors.Is(err, ErrConflict):
		return CodeConflict
	case errors.Is(err, ErrBusy):
		return CodeBusy
	case errors.Is(err, ErrUnavailable):
		return CodeUnavailable
	}
	return CodeInternal
}

// kindError is an error that also means one of the sentinels above: its
// text is err's, and errors.Is finds both err's chain and kind.
type kindError struct {
	err  error
	kind error
}

func (e *kindError) Error() string   { return e.err.Error() }
func (e *kindError) Unwrap() []error { return []error{e.err, e.kind} }

// withKind marks err as meaning kind (one of the sentinels above); nil
// stays nil, and an error that already means kind is returned as it is.
func withKind(err, kind error) error {
	if err == nil || errors.Is(err, kind) {
		return err
	}
	return &kindError{err, kind}
}

// kindf is fmt.Errorf marked as meaning kind.
func kindf(kind error, format string, a ...any) error {
	return withKind(fmt.Errorf(format, a...), kind)
}

// sentinel is a specific error (ErrProviderNotFound) that also means a
// general one (ErrNotFound): errors.Is(err, ErrProviderNotFound) and
// errors.Is(err, ErrNotFound) both hold.
type sentinel struct {
	msg  string
	kind error
}

func (e *sentinel) Error() string        { return e.msg }
func (e *sentinel) Is(target error) bool { return target == e.kind }

func newSentinel(msg string, kind error) error { return &sentinel{msg, kind} }
