package files

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"foya/backend/approval"
	"foya/backend/fspath"
	"foya/backend/tools"
)

// A fence is what the file tools may not touch in one call, so that they
// reach no further than a sandboxed command does and never disturb the
// kernel's own files, from Options:
//
//   - Database paths (Foya's database, its -wal, -shm and -journal files,
//     its lock files) are never opened, in any mode: closing any
//     descriptor of a file drops every POSIX lock the process holds on it,
//     so a tool that opened and closed foya.db-shm would take SQLite's
//     locks from the kernel in the same process.
//   - Hidden paths (the sandbox's hidden list: credential stores, Foya's
//     data folder, less what the user made readable) are neither read,
//     listed, searched nor written, except in Full Access: what bash
//     cannot see, read cannot show either.
//   - Own paths (Foya's data folders and the files it reads back as
//     configuration: mcp.json, provider-keys.json, permissions.json) are
//     not written, except in Full Access, even when the user made them
//     readable: what the agent writes there would widen what it may do.
//
// Each list is resolved (symbolic links in the parts that exist) so that
// it compares with the resolved paths the tools work on.
type fence struct {
	full                  bool
	database, hidden, own []string
}

// fence returns the fence of a call made in rc's approval mode.
func (e *env) fence(rc *tools.RunContext) fence {
	f := fence{database: resolveAll(e.database), own: resolveAll(e.own)}
	if rc == nil || rc.ApprovalMode != string(approval.FullAccess) {
		if e.hidden != nil {
			f.hidden = resolveAll(e.hidden())
		}
	} else {
		f.full = true
	}
	return f
}

func resolveAll(paths []string) []string {
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		if !filepath.IsAbs(p) {
			continue
		}
		p = filepath.Clean(p)
		out = append(out, p)
		if real, err := realPath(p); err == nil && real != p {
			out = append(out, real)
		}
	}
	return out
}

// isDatabase reports whether p is, or lies in, one of Foya's database
// paths.
func (f fence) isDatabase(p string) bool { return fspath.WithinAny(f.database, p) }

// hides reports whether the walks of ls, glob and grep leave p out: a
// database path is never opened, a hidden one is not shown outside Full
// Access.
func (f fence) hides(p string) bool {
	return f.isDatabase(p) || fspath.WithinAny(f.hidden, p)
}

// conceals reports whether ls and glob leave p out: a hidden path, outside
// Full Access. They look at names and types only, never open a file, so
// the database's names may show.
func (f fence) conceals(p string) bool { return fspath.WithinAny(f.hidden, p) }

// readRefusal says why reading (listing, searching) p is refused, or ""
// when it is not. verb is what the tool does ("read", "list", "search").
func (f fence) readRefusal(tool, verb, p string) string {
	if f.isDatabase(p) {
		return databaseRefusal(tool, p)
	}
	if fspath.WithinAny(f.hidden, p) {
		return fmt.Sprintf("%s: %s is hidden from the agent: it is %s. Nothing was %s. Sandboxed commands cannot see it either. "+
			"If the task really needs it, the user can allow reading it with the setting %s (foya settings set %s %s), "+
			"or switch this session to Full Access", tool, p, f.whatHidden(p), verb, ReadableSetting, ReadableSetting, f.hiddenRoot(p))
	}
	return ""
}

// writeRefusal says why writing (editing, deleting) p is refused, or ""
// when it is not.
func (f fence) writeRefusal(tool, p string) string {
	if f.isDatabase(p) {
		return databaseRefusal(tool, p)
	}
	if f.full {
		return ""
	}
	if fspath.WithinAny(f.own, p) {
		return fmt.Sprintf("%s: %s is Foya's own configuration (%s), which decides what the agent may do: the agent may not change it "+
			"outside Full Access, wherever it lies. Nothing was changed. The user can change it with foya's own commands "+
			"(foya mcp, foya rules, foya hooks, foya providers, foya settings) or in the app", tool, p, ownWhat(p))
	}
	if fspath.WithinAny(f.hidden, p) {
		return fmt.Sprintf("%s: %s is hidden from the agent: it is %s. Nothing was changed. Sandboxed commands cannot write it either. "+
			"If the task really needs it, the user can do it, or switch this session to Full Access", tool, p, f.whatHidden(p))
	}
	return ""
}

// deleteRefusal says why deleting p is refused, or "" when it is not: as
// writing it, and also when p is a folder that holds a path the fence
// keeps (moving the folder to the trash would take that path with it).
func (f fence) deleteRefusal(p string) string {
	if msg := f.writeRefusal(DeleteName, p); msg != "" {
		return msg
	}
	for _, h := range slices.Concat(f.database, f.own, f.hidden) {
		if h == p || !fspath.Within(p, h) {
			continue
		}
		if _, err := os.Lstat(h); err != nil {
			continue // nothing there for the move to take
		}
		if msg := f.writeRefusal(DeleteName, h); msg != "" {
			return fmt.Sprintf("delete: %s holds %s, which is kept from the agent. %s", p, h, strings.TrimPrefix(msg, "delete: "))
		}
	}
	return ""
}

// ReadableSetting is the user setting that uncovers hidden paths, which
// refusals name (the kernel's SettingSandboxReadable; a test pins the
// two).
const ReadableSetting = "sandbox.readable"

func databaseRefusal(tool, p string) string {
	return fmt.Sprintf("%s: %s is Foya's own database (or one of its side or lock files): the file tools never open it, in any mode, "+
		"because opening and closing it would take Foya's locks on it away and could corrupt it. Nothing was touched. "+
		"Look at sessions, their history and settings with foya sessions, foya show and foya settings instead", tool, p)
}

// whatHidden names the kind of hidden path p is in, for messages.
func (f fence) whatHidden(p string) string {
	if fspath.WithinAny(f.own, p) {
		return "in Foya's own data folder (its database, settings, MCP servers and keys)"
	}
	return "in a credential store or private folder (" + f.hiddenRoot(p) + ")"
}

// hiddenRoot returns the hidden entry p lies in: the path to make readable.
func (f fence) hiddenRoot(p string) string {
	best := ""
	for _, h := range f.hidden {
		if fspath.Within(h, p) && len(h) > len(best) {
			best = h
		}
	}
	if best == "" {
		return p
	}
	return best
}

// ownWhat says what one of Foya's own files holds.
func ownWhat(p string) string {
	switch strings.ToLower(filepath.Base(p)) {
	case "mcp.json":
		return "the MCP servers Foya starts"
	case "provider-keys.json":
		return "the provider keys"
	case "mcp-tokens.json":
		return "the MCP servers' sign-in tokens"
	case approval.UserRulesFile:
		return "your approval rules"
	case "hooks.json": // hooks.UserFile
		return "your hooks, commands Foya runs at points of a turn"
	}
	return "Foya's data folder: its database, settings, MCP servers, rules and keys"
}

// hiddenNote tells the model that a walk left hidden paths out.
func (f fence) hiddenNote(left []string) string {
	if len(left) == 0 {
		return ""
	}
	slices.Sort(left)
	names := left
	if len(names) > 5 {
		names = names[:5]
	}
	more := ""
	if len(left) > len(names) {
		more = fmt.Sprintf(" and %d more", len(left)-len(names))
	}
	if f.full {
		return fmt.Sprintf("Left out: %s%s, Foya's own database and lock files, which the file tools never open.", strings.Join(names, ", "), more)
	}
	return fmt.Sprintf("Left out, hidden from the agent (credential stores, Foya's own data and database): %s%s. "+
		"The user can make such a path readable with the setting %s, or switch the session to Full Access.",
		strings.Join(names, ", "), more, ReadableSetting)
}
