package tools

import (
	"context"

	"foya/backend/event"
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

// Explained reports whether the recorded change last leaves its path as
// fc leaves it: then fc, found by a look at the disk, is that change seen
// again, not a new one.
func Explained(last llm.FileChange, fc llm.FileChange) bool {
	return sameSide(last.ExistsAfter, last.IsDir, last.SHAAfter, fc.ExistsAfter, fc.IsDir, fc.SHAAfter) &&
		(!last.ExistsAfter || last.IsDir || last.ModeAfter == 0 || fc.ModeAfter == 0 || last.ModeAfter == fc.ModeAfter)
}

// Rebase makes fc, found from an older view of its path than the newest
// recorded change last (a workspace index that had not looked since Foya's
// own tools changed the path), start where last left the path: before is
// last's after content (nil when none is kept). Its diff, made from the
// older view, is dropped, and its operation follows the new before side.
// A change that already starts there is left as it is.
func Rebase(fc *FileChange, last llm.FileChange, before []byte) {
	if sameSide(last.ExistsAfter, last.IsDir, last.SHAAfter, fc.ExistedBefore, fc.IsDir, fc.SHABefore) {
		return
	}
	fc.ExistedBefore, fc.SHABefore, fc.ModeBefore, fc.Before, fc.Diff = last.ExistsAfter, last.SHAAfter, last.ModeAfter, before, ""
	fc.RenamedFrom = ""
	switch {
	case !fc.ExistedBefore && fc.ExistsAfter:
		fc.Op = event.OpCreate
	case fc.ExistedBefore && !fc.ExistsAfter:
		fc.Op = event.OpDelete
	default:
		fc.Op = event.OpWrite
	}
}

func sameSide(aExists, aDir bool, aSHA string, bExists, bDir bool, bSHA string) bool {
	if aExists != bExists {
		return false
	}
	return !aExists || aDir && bDir || !aDir && !bDir && aSHA == bSHA
}
