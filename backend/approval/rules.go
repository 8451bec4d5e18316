package approval

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"

	"foya/backend/jsonkeys"
)

// RulesFile is where a project keeps its rules, relative to the workspace.
// The agent cannot write it: .foya is protected for write tools and kept
// read-only by the sandbox.
const RulesFile = ".foya/permissions.json"

// Rules are allow, ask and deny rules: a project's (RulesFile in the
// workspace) or the user's own (UserRulesFile in Foya's data folder). Deny
// wins over ask, ask over allow.
type Rules struct {
	Allow []Rule `json:"allow,omitempty"`
	Ask   []Rule `json:"ask,omitempty"`
	Deny  []Rule `json:"deny,omitempty"`

	// Err is set when the file exists but cannot be used; Decide then asks.
	Err error `json:"-"`
	// File is where the rules were read from, as messages name it.
	File string `json:"-"`
	// Hash is the sha256, in hex, of the file's exact bytes.
	Hash string `json:"-"`
	// User marks the user's own rules, which may allow anything the mode
	// table asks about. A project's rules may not (ProjectMayAllow), and
	// their allow rules count only once Approved.
	User bool `json:"-"`
	// Approved is when the user approved this exact content of a
	// project's rules file; zero means never (its allow rules are
	// ignored; deny and ask rules apply all the same).
	Approved time.Time `json:"-"`

	root string
}

// UserRulesFile is the name of the user's own rules file in Foya's data
// folder: the same format as a project's, written only by the user.
const UserRulesFile = "permissions.json"

func (r *Rules) file() string {
	if r.File != "" {
		return r.File
	}
	return RulesFile
}

// Rule matches actions by tool, command prefix, path pattern and host;
// every field that is set must match.
type Rule struct {
	Tool    string `json:"tool,omitempty"`
	Command string `json:"command,omitempty"`
	// Path is a doublestar pattern (docs/**, **/*.go), relative to the
	// workspace unless absolute.
	Path string `json:"path,omitempty"`
	Host string `json:"host,omitempty"`

	words []string
}

// String is the rule as written in the file: {"tool":"write"}.
func (r Rule) String() string {
	b, _ := json.Marshal(r) // strings only: it cannot fail
	return string(b)
}

// LoadRules reads the workspace's rules (RulesFile), not yet approved: the
// caller sets Approved when the user approved this Hash. No file means no
// rules (nil). A file that cannot be read or parsed gives Rules with Err
// naming the file and line, so Decide falls back to asking.
func LoadRules(workspace string) *Rules {
	r := load(filepath.Join(workspace, RulesFile), workspace)
	if r != nil {
		r.File = RulesFile
	}
	return r
}

// LoadUserRules reads the user's own rules from file; relative path
// patterns are taken relative to the session's workspace.
func LoadUserRules(file, workspace string) *Rules {
	r := load(file, workspace)
	if r != nil {
		r.File, r.User = file, true
	}
	return r
}

func load(path, workspace string) *Rules {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return &Rules{Err: fmt.Errorf("%s: %w", path, err)}
	}
	sum := sha256.Sum256(data)
	r, err := ParseRules(data, workspace)
	if err != nil {
		r = &Rules{Err: fmt.Errorf("%s: %w", path, err)}
	}
	r.Hash = hex.EncodeToString(sum[:])
	return r
}

// ParseRules parses rules; relative path patterns are taken relative to
// workspace. Errors name the line.
func ParseRules(data []byte, workspace string) (*Rules, error) {
	r := &Rules{root: workspace}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(r); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			return nil, fmt.Errorf("line %d: %v", line(data, se.Offset), err)
		case errors.As(err, &te):
			return nil, fmt.Errorf("line %d: %s should be %s", line(data, te.Offset), te.Field, te.Type)
		}
		return nil, fmt.Errorf("line %d: %v", line(data, dec.InputOffset()), err)
	}
	if len(bytes.TrimSpace(data[dec.InputOffset():])) > 0 {
		// dec.More is false before a stray "}" or "]".
		return nil, fmt.Errorf("line %d: unexpected data after the rules object", line(data, dec.InputOffset()))
	}
	// A key given twice would hide the first ("deny" read, then replaced
	// by a later "deny": []), and keys match fields whatever their case.
	if err := jsonkeys.Check(data, reflect.TypeOf(r)); err != nil {
		return nil, err
	}
	for _, list := range [][]Rule{r.Allow, r.Ask, r.Deny} {
		for i := range list {
			rule := &list[i]
			if rule.Tool == "" && rule.Command == "" && rule.Path == "" && rule.Host == "" {
				return nil, fmt.Errorf("rule %s is empty: give a tool, command, path or host", rule)
			}
			if rule.Command != "" {
				w, err := Words(rule.Command)
				if err != nil {
					return nil, err
				}
				rule.words = w
			}
			if rule.Path != "" && !doublestar.ValidatePattern(filepath.ToSlash(rule.Path)) {
				return nil, fmt.Errorf("rule %s: bad path pattern", rule)
			}
		}
	}
	return r, nil
}

func line(data []byte, offset int64) int {
	if offset > int64(len(data)) {
		offset = int64(len(data))
	}
	return bytes.Count(data[:offset], []byte("\n")) + 1
}

// match finds the first rule of list that matches a. With any, a command or
// path rule matches when any simple command or path does (deny, ask); else
// all must (allow).
func (r *Rules) match(list []Rule, a Action, cmd *Command, any bool) (Rule, bool) {
	for _, rule := range list {
		if rule.Tool != "" && rule.Tool != a.Tool {
			continue
		}
		if rule.Host != "" && !strings.EqualFold(rule.Host, a.Host) {
			continue
		}
		if rule.Command != "" {
			if cmd == nil {
				continue
			}
			if any && !cmd.AnyMatchesPrefix(rule.words) || !any && !cmd.MatchesPrefix(rule.words) {
				continue
			}
		}
		if rule.Path != "" {
			if len(a.Paths) == 0 {
				continue
			}
			pred := func(p string) bool { return r.pathMatches(rule.Path, p) }
			if any && !slices.ContainsFunc(a.Paths, pred) {
				continue
			}
			if !any && slices.ContainsFunc(a.Paths, func(p string) bool { return !pred(p) }) {
				continue
			}
		}
		return rule, true
	}
	return Rule{}, false
}

func (r *Rules) pathMatches(pattern, p string) bool {
	if !filepath.IsAbs(pattern) {
		rel, err := filepath.Rel(r.root, p)
		if err != nil || strings.HasPrefix(rel, "..") {
			return false
		}
		p = rel
	}
	ok, _ := doublestar.Match(filepath.ToSlash(pattern), filepath.ToSlash(p))
	return ok
}
