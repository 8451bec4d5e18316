package approval

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// RulesFile is where a project keeps its rules, relative to the workspace.
// The agent cannot write it: .foya is protected for write tools and kept
// read-only by the sandbox.
const RulesFile = ".foya/permissions.json"

// Rules are a project's allow, ask and deny rules. Deny wins over ask, ask
// over allow.
type Rules struct {
	Allow []Rule `json:"allow,omitempty"`
	Ask   []Rule `json:"ask,omitempty"`
	Deny  []Rule `json:"deny,omitempty"`

	// Err is set when the file exists but cannot be used; Decide then asks.
	Err error `json:"-"`

	root string
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

func (r Rule) String() string {
	var parts []string
	if r.Tool != "" {
		parts = append(parts, "tool "+r.Tool)
	}
	if r.Command != "" {
		parts = append(parts, fmt.Sprintf("command %q", r.Command))
	}
	if r.Path != "" {
		parts = append(parts, "path "+r.Path)
	}
	if r.Host != "" {
		parts = append(parts, "host "+r.Host)
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// LoadRules reads the workspace's rules. No file means no rules (nil). A
// file that cannot be read or parsed gives Rules with Err naming the file and
// line, so Decide falls back to asking.
func LoadRules(workspace string) *Rules {
	path := filepath.Join(workspace, RulesFile)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return &Rules{Err: fmt.Errorf("%s: %w", path, err)}
	}
	r, err := ParseRules(data, workspace)
	if err != nil {
		return &Rules{Err: fmt.Errorf("%s: %w", path, err)}
	}
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
	if dec.More() {
		return nil, fmt.Errorf("line %d: unexpected data after the rules object", line(data, dec.InputOffset()))
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
func (r *Rules) match(list []Rule, a Action, cmd *Command, any bool) (string, bool) {
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
		return rule.String(), true
	}
	return "", false
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
