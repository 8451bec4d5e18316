package settings

import (
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"foya/backend/approval"
	"foya/backend/engine"
	"foya/backend/profiles"
	"foya/backend/provider"
	"foya/backend/secret"
	"foya/backend/tools/files"
	"foya/backend/workspace"
)

// Keys of the settings, as stored and as people type them.
const (
	DefaultMode     = "approval.default"
	DefaultProvider = "providers.default"
	MaxSteps        = "run.max_steps"
	// RepeatLimit is how many times in a row the same failing call may
	// come before the run stops.
	RepeatLimit = "run.repeatLimit"
	// CompactAt is the share of a known context window a request may
	// take before the history is compacted.
	CompactAt        = "context.compactAt"
	MaxWrite         = "files.maxWriteBytes"
	IdleTimeout      = "provider.idleTimeout"
	SandboxReadable  = "sandbox.readable"
	EnvAllow         = "shell.env.allow"
	EnvDeny          = "shell.env.deny"
	DiscoverPorts    = "discover.ports"
	MCPDeferShare    = "mcp.deferShare"
	WorkspaceMaxFile = "workspace.maxFileBytes"
	// WorkspaceMaxTotal bounds what one session's workspace index keeps.
	WorkspaceMaxTotal = "workspace.maxTotalBytes"
	// WorkspaceMaxKept bounds the disk of the kept contents, all sessions
	// together; twice WorkspaceMaxTotal unless set.
	WorkspaceMaxKept = "workspace.maxKeptBytes"
	// ImagesPrefix, followed by a model's name, says whether the model
	// takes image input.
	ImagesPrefix = "model.images."
	// NotifyApproval says whether a notification tells that an approval
	// request waits.
	NotifyApproval = "notify.approval"
	// NotifyRunEnded says whether a notification tells that a run ended.
	NotifyRunEnded = "notify.runEnded"
	// NotifyRunFailed says whether a notification tells that a run failed.
	NotifyRunFailed = "notify.runFailed"
	// AutoTitle says whether the model is asked for a session's title
	// after its first run.
	AutoTitle = "sessions.autoTitle"
	// SetupPrefix, followed by a folder's absolute path, is the command
	// run in each isolated copy of that folder when it is made (issue 29).
	SetupPrefix = "isolate.setup."
)

// MaxCommand bounds a command setting's length.
const MaxCommand = 4096

// Kind is the kind of value a setting takes; each kind has one parser.
type Kind string

// Kinds of setting values.
const (
	KindMode     Kind = "mode"     // an approval mode
	KindSteps    Kind = "steps"    // a whole number of model steps
	KindBytes    Kind = "bytes"    // a byte count, optionally with KiB, MiB or GiB
	KindDuration Kind = "duration" // a positive Go duration
	KindPaths    Kind = "paths"    // absolute paths separated by the path list separator
	KindNames    Kind = "names"    // environment variable names or globs
	KindPorts    Kind = "ports"    // TCP ports separated by commas
	KindShare    Kind = "share"    // a number from 0 to 1
	KindProfile  Kind = "profile"  // a provider profile's name
	KindBool     Kind = "bool"     // true or false
	KindRepeats  Kind = "repeats"  // a whole number of repeated calls
	KindCompact  Kind = "compact"  // a share of the context window, from engine.MinCompactAt to engine.MaxCompactAt
	KindCommand  Kind = "command"  // a shell command (bash -c), one line or several
)

// Setting declares one setting.
type Setting struct {
	// Key is the key, or for a family (Family set) the prefix every key
	// of it starts with.
	Key string `json:"key"`
	// Family names what follows Key in a family's keys ("MODEL" for
	// model.images.MODEL); "" for a plain key.
	Family string `json:"family,omitempty"`
	// Label is a short name a person reads in a form ("Step limit").
	Label string `json:"label"`
	Kind  Kind   `json:"kind"`
	// Default is the value in force when the setting is not set, as
	// Settings shows it; "" when unset means nothing (no paths, no
	// profile) or, for a family, what Doc says.
	Default string `json:"default"`
	// Doc is one line: what the setting does and what it takes.
	Doc string `json:"doc"`
}

// Name is the key as help shows it: Key, or Key and Family for a family
// ("model.images.MODEL").
func (s Setting) Name() string { return s.Key + s.Family }

// Table is every setting, in the order help and lists show them.
var Table = []Setting{
	{Key: DefaultMode, Label: "Default approval mode", Kind: KindMode, Default: string(approval.Manual),
		Doc: "The approval mode new sessions start in: manual, auto or full-access."},
	{Key: DefaultProvider, Label: "Default provider", Kind: KindProfile,
		Doc: "The provider profile a run uses when neither it nor its session names one (see foya providers)."},
	{Key: MaxSteps, Label: "Step limit", Kind: KindSteps, Default: strconv.Itoa(engine.DefaultMaxSteps),
		Doc: fmt.Sprintf("The most model steps one turn takes before it stops with a Continue button: a whole number from 1 to %d.", engine.MaxStepsLimit)},
	{Key: RepeatLimit, Label: "Repeated failing calls", Kind: KindRepeats, Default: strconv.Itoa(engine.DefaultRepeatLimit),
		Doc: fmt.Sprintf("How many times a model may send the same failing tool call (same tool, same arguments) before the turn stops with a note: a whole number from 1 to %d.", engine.MaxRepeatLimit)},
	{Key: CompactAt, Label: "Compact the context at", Kind: KindCompact, Default: strconv.FormatFloat(engine.DefaultCompactAt, 'f', -1, 64),
		Doc: fmt.Sprintf("The share of the model's known context window a request may take before Foya has the model summarise the oldest messages (the full history stays stored): a number from %g to %g.", engine.MinCompactAt, engine.MaxCompactAt)},
	{Key: MaxWrite, Label: "Largest write", Kind: KindBytes, Default: strconv.FormatInt(files.DefaultMaxWrite, 10),
		Doc: "The most content one write or edit may hold: bytes, or a number with KiB, MiB or GiB, such as 64MiB."},
	{Key: IdleTimeout, Label: "Model idle timeout", Kind: KindDuration, Default: provider.DefaultIdleTimeout.String(),
		Doc: "How long a model may send nothing before its stream is stopped: a duration such as 30s or 5m."},
	{Key: SandboxReadable, Label: "Readable in the sandbox", Kind: KindPaths,
		Doc: fmt.Sprintf("Absolute paths, separated by %q, that sandboxed commands may read although the sandbox hides them (such as ~/.aws); Foya's database stays hidden.", string(filepath.ListSeparator))},
	{Key: EnvAllow, Label: "Environment allowed", Kind: KindNames,
		Doc: "Environment variables (names or globs such as AWS_*, separated by commas) commands get although they look secret; their values stay masked in tool output."},
	{Key: EnvDeny, Label: "Environment denied", Kind: KindNames,
		Doc: "More environment variables (names or globs, separated by commas) commands never get; their values are masked in tool output."},
	{Key: DiscoverPorts, Label: "Ports probed for model servers", Kind: KindPorts, Default: "11434,1234,8080,8000",
		Doc: "The loopback ports the first run probes for model servers: port numbers separated by commas."},
	{Key: MCPDeferShare, Label: "MCP schema share", Kind: KindShare, Default: "0.1",
		Doc: "The share of the context (0 to 1) MCP tool schemas may take before tools of servers not marked alwaysLoad wait behind tool_search; 0 never defers."},
	{Key: WorkspaceMaxFile, Label: "Largest file kept", Kind: KindBytes, Default: strconv.FormatInt(workspace.DefaultMaxFile, 10),
		Doc: "The largest file whose content the workspace index keeps so that a command's change to it can be reverted; larger files are tracked without a copy."},
	{Key: WorkspaceMaxTotal, Label: "Most kept per session", Kind: KindBytes, Default: strconv.FormatInt(workspace.DefaultMaxTotal, 10),
		Doc: "The most file contents one session's workspace index keeps, before compression: bytes, or a number with KiB, MiB or GiB."},
	{Key: WorkspaceMaxKept, Label: "Most kept on disk", Kind: KindBytes, Default: strconv.FormatInt(2*workspace.DefaultMaxTotal, 10),
		Doc: "The most disk the kept contents take, all sessions together, compressed (twice workspace.maxTotalBytes unless set); past it a command's change is not restorable."},
	{Key: NotifyApproval, Label: "Notify: approval waiting", Kind: KindBool, Default: "true",
		Doc: "Whether a notification says an approval request waits, while Foya's window is not in front: true or false."},
	{Key: NotifyRunEnded, Label: "Notify: run ended", Kind: KindBool, Default: "true",
		Doc: "Whether a notification says a run ended and the session waits for your next message, while Foya's window is not in front: true or false."},
	{Key: NotifyRunFailed, Label: "Notify: run failed", Kind: KindBool, Default: "true",
		Doc: "Whether a notification says a run failed and why, while Foya's window is not in front: true or false."},
	{Key: AutoTitle, Label: "Titles from the model", Kind: KindBool, Default: "true",
		Doc: "Whether, after a session's first run, its model is asked for a short title that replaces the one made from the first prompt (never a title you gave): true or false."},
	{Key: ImagesPrefix, Family: "MODEL", Label: "Image input", Kind: KindBool,
		Doc: "Whether the model MODEL is sent images: true or false; unset, it is guessed from the model's name."},
	{Key: SetupPrefix, Family: "FOLDER", Label: "Setup of isolated copies", Kind: KindCommand,
		Doc: "A command run (bash -c, in the sandbox with the network allowed) in each isolated session's new copy of the folder FOLDER (an absolute path), such as npm ci: its output is shown, and the session is busy until it ends."},
}

// Lookup finds the setting of key: a plain key, or a family's prefix
// followed by a name.
func Lookup(key string) (Setting, bool) {
	for _, s := range Table {
		if s.Family == "" && key == s.Key || s.Family != "" && strings.HasPrefix(key, s.Key) && len(key) > len(s.Key) {
			return s, true
		}
	}
	return Setting{}, false
}

// Parse checks value for key and returns the setting and the value to
// store, in its normal form (a mode as stored, a byte count in bytes, a
// duration as Go writes it). Its errors name the key and what it accepts.
func Parse(key, value string) (Setting, string, error) {
	s, ok := Lookup(key)
	if !ok {
		var plain, families []string
		for _, s := range Table {
			if s.Family == "" {
				plain = append(plain, s.Key)
			} else {
				families = append(families, s.Name())
			}
		}
		return Setting{}, "", fmt.Errorf("unknown setting %q: known are %s and %s (foya settings list says what each takes)",
			key, strings.Join(plain, ", "), strings.Join(families, ", "))
	}
	if s.Key == SetupPrefix {
		if dir := strings.TrimPrefix(key, SetupPrefix); !filepath.IsAbs(dir) || filepath.Clean(dir) != dir {
			return s, "", fmt.Errorf("%s: after %s give the folder's absolute path, as the session's folder is written (%s/home/me/project)", key, SetupPrefix, SetupPrefix)
		}
	}
	v, err := s.Kind.parse(value)
	if err != nil {
		return s, "", fmt.Errorf("%s: %w", key, err)
	}
	return s, v, nil
}

// parse checks a value of kind k and returns its normal form.
func (k Kind) parse(v string) (string, error) {
	switch k {
	case KindMode:
		m, err := approval.ParseMode(v)
		return string(m), err
	case KindSteps:
		n, err := ParseMaxSteps(v)
		return strconv.Itoa(n), err
	case KindRepeats:
		n, err := ParseRepeatLimit(v)
		return strconv.Itoa(n), err
	case KindBytes:
		n, err := ParseBytes(v)
		return strconv.FormatInt(n, 10), err
	case KindDuration:
		d, err := ParseDuration(v)
		return d.String(), err
	case KindPaths:
		_, err := ParsePaths(v)
		return v, err
	case KindNames:
		_, err := secret.ParsePatterns(v)
		return v, err
	case KindPorts:
		ports, err := profiles.ParsePorts(v)
		return profiles.JoinPorts(ports), err
	case KindCompact:
		f, err := ParseCompactAt(v)
		return strconv.FormatFloat(f, 'f', -1, 64), err
	case KindShare:
		f, err := ParseShare(v)
		return strconv.FormatFloat(f, 'f', -1, 64), err
	case KindProfile:
		if strings.TrimSpace(v) == "" {
			return "", errors.New("give a provider profile's name (see foya providers list)")
		}
		return strings.TrimSpace(v), nil
	case KindCommand:
		c := strings.TrimSpace(v)
		switch {
		case c == "":
			return "", errors.New("give a command, such as npm ci")
		case strings.ContainsRune(c, 0):
			return "", errors.New("the command holds a NUL byte")
		case len(c) > MaxCommand:
			return "", fmt.Errorf("the command is %d bytes long: at most %d", len(c), MaxCommand)
		}
		return c, nil
	case KindBool:
		on, err := strconv.ParseBool(strings.TrimSpace(v))
		if err != nil {
			return "", fmt.Errorf("want true or false, got %q", v)
		}
		return strconv.FormatBool(on), nil
	}
	return "", fmt.Errorf("no parser for values of kind %q", k)
}

// ParseMaxSteps reads a step limit: a whole number from 1 to
// engine.MaxStepsLimit, in decimal digits.
func ParseMaxSteps(value string) (int, error) {
	n, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
	switch {
	case errors.Is(err, strconv.ErrRange) && !strings.HasPrefix(strings.TrimSpace(value), "-"):
		return 0, fmt.Errorf("%s is too large: at most %d model steps per turn", value, engine.MaxStepsLimit)
	case errors.Is(err, strconv.ErrRange):
		return 0, fmt.Errorf("%s: a turn needs at least 1 model step; give 1 to %d", value, engine.MaxStepsLimit)
	case err != nil:
		return 0, fmt.Errorf("want a whole number of model steps (1 to %d), got %q", engine.MaxStepsLimit, value)
	case n < 1:
		return 0, fmt.Errorf("%d: a turn needs at least 1 model step; give 1 to %d", n, engine.MaxStepsLimit)
	case n > engine.MaxStepsLimit:
		return 0, fmt.Errorf("%d is too large: at most %d model steps per turn", n, engine.MaxStepsLimit)
	}
	return int(n), nil
}

// ParseRepeatLimit reads the run.repeatLimit setting: a whole number from
// 1 to engine.MaxRepeatLimit.
func ParseRepeatLimit(value string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(value))
	if err != nil || n < 1 || n > engine.MaxRepeatLimit {
		return 0, fmt.Errorf("want a whole number of repeated calls from 1 to %d, got %q", engine.MaxRepeatLimit, value)
	}
	return n, nil
}

// ParseBytes reads a positive byte count: digits, optionally followed by
// KiB, MiB or GiB.
func ParseBytes(v string) (int64, error) {
	s := strings.TrimSpace(v)
	unit := int64(1)
	for i, suffix := range []string{"KiB", "MiB", "GiB"} {
		if rest, ok := strings.CutSuffix(s, suffix); ok {
			s, unit = strings.TrimSpace(rest), 1<<(10*(i+1))
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 || n > (1<<62)/unit {
		return 0, fmt.Errorf("want a positive number of bytes, such as 67108864 or 64MiB, got %q", v)
	}
	return n * unit, nil
}

// ParseDuration reads a positive Go duration such as 30s or 5m.
func ParseDuration(v string) (time.Duration, error) {
	d, err := time.ParseDuration(strings.TrimSpace(v))
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("want a positive duration such as 30s or 5m, got %q", v)
	}
	return d, nil
}

// ParsePaths reads absolute paths separated by the system's path list
// separator, cleaned; empty entries are skipped.
func ParsePaths(v string) ([]string, error) {
	var paths []string
	for _, p := range filepath.SplitList(v) {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		if !filepath.IsAbs(p) {
			return nil, fmt.Errorf("%q is not an absolute path; give absolute paths separated by %q", p, string(filepath.ListSeparator))
		}
		paths = append(paths, filepath.Clean(p))
	}
	return paths, nil
}

// ParseShare reads a share of the context: a number from 0 to 1.
func ParseShare(v string) (float64, error) {
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || f < 0 || f > 1 {
		return 0, fmt.Errorf("want a share from 0 to 1 (0.1 is a tenth of the context), got %q", v)
	}
	return f, nil
}

// ParseCompactAt reads the context.compactAt setting: a share of the
// context window from engine.MinCompactAt to engine.MaxCompactAt.
func ParseCompactAt(v string) (float64, error) {
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || !(f >= engine.MinCompactAt && f <= engine.MaxCompactAt) {
		return 0, fmt.Errorf("want a share of the context window from %g to %g (0.8 compacts when a request would take 80%% of it), got %q",
			engine.MinCompactAt, engine.MaxCompactAt, v)
	}
	return f, nil
}

// Entry is a setting with the value in force, as foya settings list and
// the settings view show it.
type Entry struct {
	Setting `tstype:",extends"`
	// Value is the value in force ("" when unset and without a default);
	// for a family, "".
	Value string `json:"value"`
	// Set lists, for a family, the keys set and their values.
	Set map[string]string `json:"set,omitempty"`
}

// List pairs every setting of Table with its value in values (the
// kernel's Settings).
func List(values map[string]string) []Entry {
	out := make([]Entry, len(Table))
	for i, s := range Table {
		out[i] = Entry{Setting: s}
		if s.Family == "" {
			out[i].Value = values[s.Key]
			continue
		}
		for k, v := range values {
			if strings.HasPrefix(k, s.Key) && len(k) > len(s.Key) {
				if out[i].Set == nil {
					out[i].Set = map[string]string{}
				}
				out[i].Set[k] = v
			}
		}
	}
	return out
}
