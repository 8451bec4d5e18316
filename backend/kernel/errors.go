package kernel

import (
	"errors"

	"foya/backend/engine"
	"foya/backend/fault"
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
	ErrInvalid = fault.ErrInvalid
	// ErrConflict: the request clashes with the current state (a name that
	// exists, a file changed since, rules that changed since they were
	// shown).
	ErrConflict = fault.ErrConflict
	// ErrBusy: the session has a run going that the request would race.
	ErrBusy = engine.ErrBusy
	// ErrUnavailable: something outside the kernel is not there or not
	// answering (the keyring, a provider, a display).
	ErrUnavailable = fault.ErrUnavailable
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

// withKind marks err as meaning kind (one of the sentinels above); nil
// stays nil, and an error that already means kind is returned as it is.
func withKind(err, kind error) error { return fault.Wrap(err, kind) }

// kindf is fmt.Errorf marked as meaning kind.
func kindf(kind error, format string, a ...any) error { return fault.Errorf(kind, format, a...) }
