package approval

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// Verdict is the policy's answer.
type Verdict string

const (
	Allow  Verdict = "allow"
	Ask    Verdict = "ask"
	Refuse Verdict = "refuse"
)

// Decision is a verdict with the reason a user or model reads.
type Decision struct {
	Verdict Verdict
	Reason  string
}

// table is the mode table of DESIGN.md: the contract. Decide starts here.
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
	MCP:                  {Ask, Ask, Allow},
	SubAgent:             {Allow, Allow, Allow},
}

var refusals = map[Kind]string{
	DeleteProtected:      "deleting the workspace root, .git, .agents, .foya or a path outside the workspace is refused in %s mode; only Full Access allows it (still through the trash)",
	DeleteRoot:           "deleting the filesystem root is refused in every mode",
	ShellPermanentDelete: "commands that delete files for good (rm, rmdir, unlink, shred, find -delete, git clean -f) are refused in %s mode: use the delete tool, which moves files to the trash",
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

// Matches reports whether the grant covers the action.
func (g Grant) Matches(a Action, cmd *Command) bool {
	if g.Kind != a.Kind {
		return false
	}
	switch {
	case len(g.Prefix) > 0:
		return cmd != nil && cmd.MatchesPrefix(g.Prefix)
	case g.Host != "":
		return strings.EqualFold(g.Host, a.Host)
	case g.Folder != "":
		return len(a.Paths) > 0 && !slices.ContainsFunc(a.Paths, func(p string) bool { return !within(g.Folder, p) })
	case g.Tool != "":
		return g.Tool == a.Tool
	}
	return false
}

// String describes the grant's scope for people.
func (g Grant) String() string {
	switch {
	case len(g.Prefix) > 0:
		return fmt.Sprintf("commands starting with %q", strings.Join(g.Prefix, " "))
	case g.Host != "":
		return "host " + g.Host
	case g.Folder != "":
		return "folder " + g.Folder
	}
	return "tool " + g.Tool
}

// within reports whether p is dir or inside it (both absolute and clean).
func within(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// Decide is the approval policy: pure, no I/O. It starts from the mode
// table; refusals there are final. Then the project's rules apply (deny
// wins over ask, ask over allow), then remembered grants turn an ask into
// an allow. Rules that could not be read make every verdict that is not a
// refusal an ask: Foya falls back to asking, never to allowing.
func Decide(mode Mode, a Action, grants []Grant, rules *Rules) Decision {
	col, ok := table[a.Kind]
	if !ok {
		return Decision{Ask, fmt.Sprintf("unknown action %q: asking", a.Kind)}
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
		return Decision{Refuse, msg}
	}
	var cmd *Command
	if a.Command != "" {
		if c, err := ParseCommand(a.Command); err == nil {
			cmd = &c
		}
	}
	if rules != nil {
		if rules.Err != nil {
			return Decision{Ask, "the project's rules (.foya/permissions.json) could not be read, so Foya asks: " + rules.Err.Error()}
		}
		if r, ok := rules.match(rules.Deny, a, cmd, true); ok {
			return Decision{Refuse, "denied by the project's rule " + r + " in .foya/permissions.json"}
		}
		if r, ok := rules.match(rules.Ask, a, cmd, true); ok {
			return Decision{Ask, "the project's rule " + r + " asks for approval"}
		}
		if base == Ask {
			if r, ok := rules.match(rules.Allow, a, cmd, false); ok {
				return Decision{Allow, "allowed by the project's rule " + r}
			}
		}
	}
	if base == Allow {
		return Decision{Allow, fmt.Sprintf("%s mode allows %s", mode.Title(), a.Kind)}
	}
	for _, g := range grants {
		if g.Matches(a, cmd) {
			return Decision{Allow, "allowed for this session: " + g.String()}
		}
	}
	return Decision{Ask, fmt.Sprintf("%s mode asks before %s", mode.Title(), a.Kind)}
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
		for !within(dir, p) {
			parent := filepath.Dir(dir)
			if parent == dir {
				return ""
			}
			dir = parent
		}
	}
	return dir
}
