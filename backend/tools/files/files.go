package files

import (
	"context"
	"fmt"
	"os"

	"foya/backend/approval"
	"foya/backend/tools"
	"foya/backend/trash"
)

// Tool names. They and their arguments are a contract with the model.
const (
	ReadName   = "read"
	ListName   = "ls"
	GlobName   = "glob"
	GrepName   = "grep"
	WriteName  = "write"
	EditName   = "edit"
	DeleteName = "delete"
)

// Trash is what delete and revert need from the operating system's trash;
// *trash.Trash implements it.
// Paths beneath the workspace go through PutAt and RestoreAt: the entry
// name of a folder the caller opened beneath the workspace root, so that
// no path is resolved between the checks and the move; Put and Restore
// take the plain paths outside it.
type Trash interface {
	Put(path string) (trash.Item, error)
	PutAt(dir *os.File, name, shown string) (trash.Item, error)
	Restore(it trash.Item) error
	RestoreAt(it trash.Item, dir *os.File, name string) error
}

// Options configure the file tools. The zero value keeps the stale-read
// guard's records in memory and uses the user's trash.
type Options struct {
	// Reads keeps what each session read, for the stale-read guard.
	Reads Reads
	// Trash takes what delete removes.
	Trash Trash
	// MaxWrite returns the most bytes of content one write takes (the
	// setting MaxWriteSetting); DefaultMaxWrite when nil or not positive.
	MaxWrite func(ctx context.Context) int64
	// Database lists Foya's database, its -wal, -shm and -journal files
	// and its lock files (or their folders): the tools never open them, in
	// any mode (see fence).
	Database []string
	// Hidden returns what the tools may neither read nor write outside
	// Full Access: the sandbox's hidden list (credential stores, Foya's
	// data folder, less what the user made readable), so that the file
	// tools and sandboxed commands hide the same; nil hides nothing.
	Hidden func() []string
	// Own lists Foya's data folders and the files it reads back as
	// configuration (mcp.json, provider-keys.json, permissions.json): the
	// tools do not write them outside Full Access, even when Hidden does
	// not list them.
	Own []string
}

// DefaultMaxWrite is the most content one write takes unless the setting
// MaxWriteSetting says otherwise.
const DefaultMaxWrite = 64 << 20

// MaxWriteSetting is the user setting that bounds one write's content.
const MaxWriteSetting = "files.maxWriteBytes"

// env is what the tools share.
type env struct {
	reads    Reads
	trash    Trash
	maxWrite func(ctx context.Context) int64
	database []string
	hidden   func() []string
	own      []string
}

// writeLimit is the most bytes of content one write takes now.
func (e *env) writeLimit(ctx context.Context) int64 {
	if e.maxWrite != nil {
		if n := e.maxWrite(ctx); n > 0 {
			return n
		}
	}
	return DefaultMaxWrite
}

func newEnv(o Options) *env {
	e := &env{reads: o.Reads, trash: o.Trash, maxWrite: o.MaxWrite, database: o.Database, hidden: o.Hidden, own: o.Own}
	if e.reads == nil {
		e.reads = NewMemReads()
	}
	if e.trash == nil {
		e.trash = trash.Default()
	}
	return e
}

// Tools returns the file tools, sharing o: read, ls, glob, grep, write,
// edit and delete.
func Tools(o Options) []tools.Tool {
	e := newEnv(o)
	return []tools.Tool{readTool{e}, lsTool{e}, globTool{e}, grepTool{e}, writeTool{e}, editTool{e}, deleteTool{e}}
}

// ask asks the approval gateway for kind on t. A refusal comes back as the
// is_error result to return; an error means the program is broken.
func ask(ctx context.Context, rc *tools.RunContext, call tools.Call, kind approval.Kind, why, preview string, paths ...string) (*tools.Result, error) {
	out, err := rc.Approve(ctx, approval.Request{
		CallID:  call.ID,
		Action:  approval.Action{Kind: kind, Tool: call.Name, Paths: paths},
		Why:     why,
		Preview: preview,
	})
	if err != nil {
		return nil, fmt.Errorf("%s: approval: %w", call.Name, err)
	}
	if !out.Allowed {
		msg := out.Message
		if msg == "" {
			msg = "not approved"
		}
		r := tools.Errorf("%s: %s; nothing was changed", call.Name, msg)
		return &r, nil
	}
	return nil, nil
}

func sessionOf(rc *tools.RunContext) (id, dir string) {
	if rc == nil {
		return "", ""
	}
	return rc.SessionID, rc.Workdir
}

// Size formats a byte count for people: "512 bytes", "1.2 KiB", "3.4 MiB".
func Size(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d bytes", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	case n < 1<<30:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
