package approval

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"foya/backend/fspath"
)

// Verdict is the policy's answer.
type Verdict string

const (
	Allow  Verdict = "allow"
	Ask    Verdict = "ask"
	Refuse Verdict = "refuse"
)

// Decision is a verdict with the reason a user or model reads. For an
// allow, Reason says what allowed it: the mode, a rule (its file and text)
// or a session grant (its scope).
type Decision struct {
	Verdict Verdict
	Reason  string
	// ByMode says the verdict is the mode table's own: no rule, grant or
	// answer was needed.
	ByMode bool
}

// table is the mode table (docs/decisions/013-approval-modes.md): the
// contract. Decide starts here.
var table = map[Kind][3]Verdict{ // manual, auto, full access
	ReadInside:           {Allow, Allow, Allow},
	ReadOutside:          {Ask, Ask, Allow},
	WriteInside:          {Ask, Allow, Allow},
	WriteProtected:       {Ask, Ask, Allow},
	DeleteInside:         {Ask, Allow, Allow},
	DeleteProtected:      {Refuse, Refuse, Allow},
	DeleteRoot:           {Refuse, Refuse, Refuse},
	Shell:                {Ask, Allow, Allow},
	ShellEscalate:        {Ask, Ask, Allow},
	ShellWeakSandbox:     {Ask, Ask, Allow},
	ShellPermanentDelete: {Refuse, Refuse, Allow},
	Fetch:                {Ask, Ask, Allow},
	FetchPrivate:         {Ask, Ask, Allow},
	MCP:                  {Ask, Ask, Allow},
	SubAgent:             {Allow, Allow, Allow},
}

var refusals = map[Kind]string{
	DeleteProtected:      "deleting the workspace root, .git, .agents, .foya or a path outside the workspace is refused in %s mode; only Full Access allows it (still through the trash)",
	DeleteRoot:           "deleting the filesystem root is refused in every mode",
	ShellPermanentDelete: "commands that delete files or discard changes for good (rm, rmdir, unlink, shred, find -delete, git clean, git rm, git reset --hard, git checkout --, tar --remove-files, an interpreter's unlink ...) are refused in %s mode: use the delete tool, which moves files to the trash (or git stash, which keeps changes)",
}

func (m Mode) column() int {
	switch m {
	case Auto:
		return 1
	case FullAccess:
		return 2
	}
	return 0
}

// Grant is a remembered "allow for this session" answer, scoped to one kind
// of action and one of: a tool, a command prefix, a host, a folder.
type Grant struct {
	Kind Kind `json:"kind"`
	// Tool, when set alone, allows every action of Kind by this tool.
	Tool string `json:"tool,omitempty"`
	// Prefix allows shell commands all of whose simple commands start with
	// these words.
	Prefix []string `json:"prefix,omitempty"`
	// Host allows fetches of this host.
	Host string `json:"host,omitempty"`
	// Folder allows actions whose paths all lie inside it.
	Folder string `json:"folder,omitempty"`
}

// Matches reports whether the grant covers the action. No grant covers a
// FetchPrivate action: a private address is allowed one fetch at a time.
func (g Grant) Matches(a Action, cmd *Command) bool {
	if g.Kind != a.Kind || a.Kind == FetchPrivate {
		return false
	}
	switch {
	case len(g.Prefix) > 0:
		return cmd != nil && cmd.MatchesPrefix(g.Prefix)
	case g.Host != "":
		return strings.EqualFold(g.Host, a.Host)
	case g.Folder != "":
		return len(a.Paths) > 0 && !slices.ContainsFunc(a.Paths, func(p string) bool { return !fspath.Within(g.Folder, p) })
	case g.Tool != "":
		return g.Tool == a.Tool
	}
	return false
}

// String describes the grant's scope for people.
func (g Grant) String() string {
	switch {
	case len(g.Prefix) > 0:
		return "command prefix `" + strings.Join(g.Prefix, " ") + "`"
	case g.Host != "":
		return "host " + g.Host
	case g.Folder != "":
		return "folder " + g.Folder
	}
	return "tool " + g.Tool
}

// Decide is the approval policy: pure, no I/O. It starts from the mode
// table; refusals there are final. A shell command Foya cannot read (its
// program name is not a literal word, it runs what it reads from standard
// input ...) is asked about in Auto too. Then rules apply, the user's own
// and the project's: deny wins over ask, ask over allow, and a deny or ask
// rule applies whether or not its file was approved. An allow rule turns an
// ask into an allow if it is the user's, or if it is the project's, its
// file was approved by the user with this exact content, and the action
// stays in the sandbox and the workspace (ProjectMayAllow). Then
// remembered grants turn an ask into an allow. Rules that could not be read
// make every verdict that is not a refusal an ask: Foya falls back to
// asking, never to allowing.
func Decide(mode Mode, a Action, grants []Grant, rules ...*Rules) Decision {
	col, ok := table[a.Kind]
	if !ok {
		return Decision{Verdict: Ask, Reason: fmt.Sprintf("unknown action %q: asking", a.Kind)}
	}
	base := col[mode.column()]
	if a.Kind == MCP && a.ReadOnly && mode == Auto {
		base = Allow
	}
	if base == Refuse {
		msg := refusals[a.Kind]
		if strings.Contains(msg, "%s") {
			msg = fmt.Sprintf(msg, mode.Title())
		}
		return Decision{Verdict: Refuse, Reason: msg, ByMode: true}
	}
	cmd := a.command()
	askWhy := fmt.Sprintf("%s mode asks before %s", mode.Title(), a.Kind)
	opaque := a.Kind == Shell && cmd != nil && len(cmd.Opaque()) > 0
	if opaque && mode != FullAccess {
		base = Ask
		askWhy = fmt.Sprintf("Foya cannot tell what this command runs (%s), so it could delete files for good unseen: %s mode asks",
			strings.Join(cmd.Opaque(), "; "), mode.Title())
	}
	rules = slices.DeleteFunc(slices.Clone(rules), func(r *Rules) bool { return r == nil })
	for _, r := range rules {
		if r.Err != nil {
			return Decision{Verdict: Ask, Reason: "the rules in " + r.file() + " could not be read, so Foya asks: " + r.Err.Error()}
		}
	}
	for _, r := range rules {
		if rule, ok := r.match(r.Deny, a, cmd, true); ok {
			return Decision{Verdict: Refuse, Reason: "denied by the rule " + rule.String() + " in " + r.file()}
		}
	}
	for _, r := range rules {
		if rule, ok := r.match(r.Ask, a, cmd, true); ok {
			return Decision{Verdict: Ask, Reason: "the rule " + rule.String() + " in " + r.file() + " asks for approval"}
		}
	}
	if base == Allow {
		return Decision{Verdict: Allow, Reason: "allowed by " + mode.by(), ByMode: true}
	}
	var ignored, cannot, hostless []string // project allow rules: not approved; approved but not for this; a private fetch by a rule naming no host
	for _, user := range []bool{true, false} {
		for _, r := range rules {
			if r.User != user {
				continue
			}
			for _, candidate := range r.Allow {
				match, ok := r.match([]Rule{candidate}, a, cmd, false)
				rule := match.String()
				switch {
				case !ok:
				case a.Kind == FetchPrivate && match.Host == "":
					hostless = append(hostless, rule)
				case r.User:
					return Decision{Verdict: Allow, Reason: "allowed by your rule " + rule + " in " + r.file()}
				case r.Approved.IsZero():
					ignored = append(ignored, rule)
				case !ProjectMayAllow(a, opaque, match):
					cannot = append(cannot, rule)
				default:
					return Decision{Verdict: Allow, Reason: "allowed by the rule " + rule + " in " + r.file() +
						" (approved by you on " + r.Approved.UTC().Format("2006-01-02 15:04 UTC") + ")"}
				}
			}
		}
	}
	var notes []string
	if len(ignored) > 0 {
		// Said once per question, however many rules it ignored.
		notes = append(notes, "the rule "+strings.Join(ignored, ", ")+" in "+RulesFile+" would allow this, but "+UnapprovedNotice)
	}
	if len(cannot) > 0 {
		notes = append(notes, "the project's rule "+strings.Join(cannot, ", ")+" cannot allow this: a project's rules never allow "+
			"leaving the sandbox or the workspace, writing .git, .agents or .foya, an MCP tool, or a command Foya cannot read; "+
			"only your own rules, a grant or your answer can")
	}
	if len(hostless) > 0 {
		notes = append(notes, "the rule "+strings.Join(hostless, ", ")+" names no host, so it does not allow loopback or private "+
			"addresses; a rule of your own that names the host does")
	}
	for _, g := range grants {
		if g.Matches(a, cmd) {
			return Decision{Verdict: Allow, Reason: "allowed by the session grant: " + g.String()}
		}
	}
	if len(notes) > 0 {
		askWhy += "; " + strings.Join(notes, "; ")
	}
	return Decision{Verdict: Ask, Reason: askWhy, ByMode: len(notes) == 0}
}

// UnapprovedNotice says, once per run or request, that a project's rules
// file was not approved.
const UnapprovedNotice = "this project's " + RulesFile + " is not approved; its allow rules are ignored: " +
	"run `foya rules allow` to review and approve it"

// ProjectMayAllow reports whether an approved project rule may allow a: only
// actions that stay inside the workspace and the sandbox. Leaving the
// sandbox (bash with sandbox: false, an unsandboxed machine, an MCP tool,
// which runs in its server's process), reading or writing outside the
// workspace, writing .git, .agents or .foya, and commands Foya cannot read
// (opaque) need the user's own rules, a grant or an answer. A fetch needs a
// rule that names its host; a fetch of a loopback or private address needs
// the user's own rule naming the host, or an answer.
func ProjectMayAllow(a Action, opaque bool, rule Rule) bool {
	switch a.Kind {
	case ReadInside, WriteInside, DeleteInside, SubAgent:
		return true
	case Shell:
		return !opaque
	case Fetch:
		return rule.Host != ""
	}
	return false
}

// by names what allows an action in mode m by the table alone.
func (m Mode) by() string {
	if m == FullAccess {
		return "Full Access"
	}
	return m.Title() + " mode"
}

// Title is the mode's name as the UI shows it.
func (m Mode) Title() string {
	switch m {
	case Auto:
		return "Auto"
	case FullAccess:
		return "Full Access"
	}
	return "Manual"
}

// commonDir returns the deepest folder holding every path ("" if none).
func commonDir(paths []string) string {
	dir := filepath.Dir(paths[0])
	for _, p := range paths[1:] {
		for !fspath.Within(dir, p) {
			parent := filepath.Dir(dir)
			if parent == dir {
				return ""
			}
			dir = parent
		}
	}
	return dir
}
