package tools

import (
	"context"

	"foya/backend/llm"
)

// Recoverable is a tool whose calls change files, asked about each of its
// calls that was running when the process driving it died (spec X2). It
// must not run the call again. It removes what the call left half made
// (temporary files) and returns a File Change for each path the call may
// have changed that no longer holds what the session's records say, as the
// disk shows it now; the engine stores them marked unconfirmed, with the
// call's "interrupted, not replayed" result. A path the call could not
// have reached, or whose state before the call nothing tells, gets none.
type Recoverable interface {
	Recover(ctx context.Context, rc *RunContext, call Call, prior Prior) ([]FileChange, error)
}

// Prior returns the newest File Change the session recorded for path and
// the content of its after side (nil for a folder, a file that is gone, or
// contents too large to keep), or ok false when there is none.
type Prior func(ctx context.Context, path string) (fc llm.FileChange, after []byte, ok bool, err error)

// Lingering is a Recoverable tool whose calls may leave work running
// after their result is stored (a background command), whose changes
// nothing recorded when the process driving it died. Recovery asks
// Recover about the newest such call of a run it recovers, unless a
// running call of the same tool was asked already (one look finds what
// both changed).
type Lingering interface {
	Recoverable
	Lingers(call Call) bool
}
