package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"
)

// ProjectFile is where a project keeps its hooks, relative to the
// workspace.
const ProjectFile = ".foya/hooks.json"

// UserFile is the name of the user's own hooks file in Foya's data folder
// (next to the user's rules, permissions.json).
const UserFile = "hooks.json"

// Event is the point of a turn at which a hook runs.
type Event string

const (
	// BeforeTool runs before a tool call, once Foya checked its
	// arguments; the hook may allow, deny or ask.
	BeforeTool Event = "before_tool"
	// AfterTool runs after a tool call ran; the hook may add a note to
	// its result, which the model reads.
	AfterTool Event = "after_tool"
	// TurnEnd runs when a turn (run) ended, whatever its status; its note
	// is shown to the user.
	TurnEnd Event = "turn_end"
	// Approval runs when Foya is about to ask the person to approve an
	// action; the hook may deny it (and a user hook allow it).
	Approval Event = "approval"
)

// Events lists every event, in the order of docs/hooks.md.
var Events = []Event{BeforeTool, AfterTool, TurnEnd, Approval}

// Source says whose file a hook comes from.
type Source string

const (
	Project Source = "project"
	User    Source = "user"
)

// DefaultTimeout is how long a hook may run unless it sets its own.
const DefaultTimeout = 30 * time.Second

// MaxTimeout bounds a hook's own timeout.
const MaxTimeout = 10 * time.Minute

// MaxOutput bounds what a hook may print (standard output and error
// together): a hook that prints more is stopped and fails.
const MaxOutput = 64 << 10

// MaxFileBytes bounds a hooks file.
const MaxFileBytes = 256 << 10

// MaxHooks bounds the hooks of one file.
const MaxHooks = 100

// Hook is one hook as a file sets it.
type Hook struct {
	// Name names the hook for the person and the model; when the file
	// gives none, it is the event and the hook's place ("before_tool#2").
	Name  string `json:"name"`
	Event Event  `json:"event"`
	// Match is a glob (path.Match) of the tool names the hook runs for:
	// "bash", "mcp__github__*"; "" and "*" match every tool. For an
	// approval it matches the tool that asks; a turn_end hook has none.
	Match string `json:"match,omitempty"`
	// Command is run by bash -c (sh where there is no bash) in the
	// workspace.
	Command string `json:"command"`
	// Timeout is how long it may run: DefaultTimeout when zero.
	Timeout time.Duration `json:"timeout"`
	// Sandbox says the hook runs in the sandbox: always for a project's
	// hook, only when the user's file asks for a user's.
	Sandbox bool   `json:"sandbox"`
	Source  Source `json:"source"`
	// File is the file the hook was read from.
	File string `json:"file"`
}

// Matches reports whether h runs at ev for a call of tool (empty for
// turn_end).
func (h Hook) Matches(ev Event, tool string) bool {
	if h.Event != ev {
		return false
	}
	if ev == TurnEnd || h.Match == "" || h.Match == "*" {
		return true
	}
	ok, err := path.Match(h.Match, tool)
	return err == nil && ok
}

// entry is a hook as written in a file.
type entry struct {
	Name           string `json:"name"`
	Event          Event  `json:"event"`
	Match          string `json:"match"`
	Command        string `json:"command"`
	TimeoutSeconds *int   `json:"timeoutSeconds"`
	Sandbox        *bool  `json:"sandbox"`
}

type file struct {
	Hooks []entry `json:"hooks"`
}

// Parse reads the hooks of a file's content; src says whose file it is
// and name what to call it in errors and on each hook. Errors name the
// hook and the field at fault.
func Parse(data []byte, src Source, name string) ([]Hook, error) {
	if len(data) > MaxFileBytes {
		return nil, fmt.Errorf("%s is %d bytes; a hooks file may have at most %d", name, len(data), MaxFileBytes)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var f file
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("%s: %s", name, jsonError(data, err))
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: more than one JSON value; want one object {\"hooks\": [...]}", name)
	}
	if f.Hooks == nil {
		return nil, fmt.Errorf(`%s: no "hooks" list; want {"hooks": [{"event": "before_tool", "command": "..."}]}`, name)
	}
	if len(f.Hooks) > MaxHooks {
		return nil, fmt.Errorf("%s has %d hooks; at most %d", name, len(f.Hooks), MaxHooks)
	}
	out := make([]Hook, 0, len(f.Hooks))
	names := map[string]bool{}
	for i, e := range f.Hooks {
		where := fmt.Sprintf("%s: hook %d", name, i+1)
		if e.Name != "" {
			where += fmt.Sprintf(" (%q)", e.Name)
		}
		h := Hook{Name: strings.TrimSpace(e.Name), Event: e.Event, Match: strings.TrimSpace(e.Match), Command: e.Command,
			Timeout: DefaultTimeout, Source: src, File: name, Sandbox: src == Project}
		switch e.Event {
		case BeforeTool, AfterTool, TurnEnd, Approval:
		case "":
			return nil, fmt.Errorf(`%s: no "event"; want one of %s`, where, eventList())
		default:
			return nil, fmt.Errorf(`%s: unknown event %q; want one of %s`, where, e.Event, eventList())
		}
		if strings.TrimSpace(e.Command) == "" {
			return nil, fmt.Errorf(`%s: no "command": give the shell command to run`, where)
		}
		if strings.IndexByte(e.Command, 0) >= 0 {
			return nil, fmt.Errorf(`%s: "command" contains a NUL character`, where)
		}
		if h.Match != "" {
			if e.Event == TurnEnd {
				return nil, fmt.Errorf(`%s: a turn_end hook has no "match" (it runs for no tool)`, where)
			}
			if _, err := path.Match(h.Match, ""); err != nil {
				return nil, fmt.Errorf(`%s: "match" %q is not a valid glob: %v`, where, h.Match, err)
			}
		}
		if e.TimeoutSeconds != nil {
			s := *e.TimeoutSeconds
			if s <= 0 || time.Duration(s)*time.Second > MaxTimeout {
				return nil, fmt.Errorf(`%s: "timeoutSeconds" %d; want 1 to %d`, where, s, int(MaxTimeout/time.Second))
			}
			h.Timeout = time.Duration(s) * time.Second
		}
		if e.Sandbox != nil {
			if src == Project && !*e.Sandbox {
				return nil, fmt.Errorf(`%s: "sandbox": false; a project's hooks always run in the sandbox (only your own hooks file may run them outside)`, where)
			}
			h.Sandbox = *e.Sandbox
		}
		if h.Name == "" {
			h.Name = fmt.Sprintf("%s#%d", e.Event, i+1)
		}
		if names[h.Name] {
			return nil, fmt.Errorf(`%s: the name %q is used twice in the file`, where, h.Name)
		}
		names[h.Name] = true
		out = append(out, h)
	}
	return out, nil
}

func eventList() string {
	s := make([]string, len(Events))
	for i, e := range Events {
		s[i] = string(e)
	}
	return strings.Join(s, ", ")
}

// jsonError words a decoding error with its line where it has an offset.
func jsonError(data []byte, err error) string {
	var off int64 = -1
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	}
	msg := strings.TrimPrefix(err.Error(), "json: ")
	if errors.Is(err, io.EOF) {
		return "empty; want one object {\"hooks\": [...]}"
	}
	if off >= 0 && off <= int64(len(data)) {
		line := 1 + bytes.Count(data[:off], []byte("\n"))
		return fmt.Sprintf("line %d: %s", line, msg)
	}
	return msg
}

// File is a hooks file as read from disk.
type File struct {
	// Path is the file's absolute path.
	Path string
	// Exists is false when there is no file (then nothing else is set).
	Exists bool
	// Content is the file's exact bytes: what an approval covers.
	Content []byte
	// Hooks are the file's hooks; nil when Err is set.
	Hooks []Hook
	// Err says why the file cannot be used (unreadable, not valid).
	Err error
}

// Read reads and parses the hooks file at p.
func Read(p string, src Source) File {
	f := File{Path: p}
	fd, err := os.Open(p)
	if errors.Is(err, os.ErrNotExist) {
		return f
	}
	f.Exists = true
	if err != nil {
		f.Err = err
		return f
	}
	defer fd.Close()
	if fi, err := fd.Stat(); err == nil && !fi.Mode().IsRegular() {
		f.Err = fmt.Errorf("%s is not a regular file", p)
		return f
	}
	data, err := io.ReadAll(io.LimitReader(fd, MaxFileBytes+1))
	if err != nil {
		f.Err = fmt.Errorf("read %s: %w", p, err)
		return f
	}
	f.Content = data
	f.Hooks, f.Err = Parse(data, src, p)
	return f
}

// ReadProject reads a workspace's hooks file (ProjectFile).
func ReadProject(workdir string) File {
	return Read(filepath.Join(workdir, filepath.FromSlash(ProjectFile)), Project)
}
