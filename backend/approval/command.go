package approval

import (
	"fmt"
	"path"
	"strings"
	"sync/atomic"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// Command is a shell command as a real shell parser sees it (never regular
// expressions): every simple command it would run, including those behind
// &&, ;, pipes, subshells, $(...), inside sh -c and eval strings, and behind
// wrappers such as sudo, timeout, xargs or find -exec, at any depth.
type Command struct {
	// Source is the command as written.
	Source string
	// Simple lists each simple command's words, in order of appearance,
	// including those of the scripts it hands to another shell.
	Simple []Simple

	deletes []string // what deletes files for good (PermanentDelete)
	opaque  []string // why Foya cannot tell what runs (Opaque)
}

// Simple is one simple command.
type Simple struct {
	// Args are the words with quotes and escapes removed ('rm', "rm" and
	// \rm are all rm); a word that is not a plain literal (a variable, a
	// substitution, a glob or brace pattern) is kept as written and marked
	// in Dynamic.
	Args    []string
	Dynamic []bool

	// bases holds each word's last path element when it is known even
	// though the word is dynamic ("$VENV/bin/python" is python), else "".
	bases []string
}

// Name returns the program's base name ("rm" for /bin/rm or \rm), or ""
// when the command name is not a literal.
func (s Simple) Name() string {
	if len(s.Args) == 0 {
		return ""
	}
	if !s.Dynamic[0] {
		return path.Base(s.Args[0])
	}
	if len(s.bases) > 0 {
		return s.bases[0]
	}
	return ""
}

// from returns the simple command made of the words from i on.
func (s Simple) from(i int) Simple {
	if i >= len(s.Args) {
		return Simple{}
	}
	out := Simple{Args: s.Args[i:], Dynamic: s.Dynamic[i:]}
	if len(s.bases) == len(s.Args) {
		out.bases = s.bases[i:]
	}
	return out
}

// upto returns the simple command made of the words before j.
func (s Simple) upto(j int) Simple {
	if j >= len(s.Args) {
		return s
	}
	out := Simple{Args: s.Args[:j], Dynamic: s.Dynamic[:j]}
	if len(s.bases) == len(s.Args) {
		out.bases = s.bases[:j]
	}
	return out
}

// literal reports whether every word from i on is a plain literal.
func (s Simple) literal(i int) bool {
	for _, d := range s.Dynamic[min(i, len(s.Dynamic)):] {
		if d {
			return false
		}
	}
	return true
}

// ParseCommand parses a shell command. A command that does not parse is an
// error worded for the model.
func ParseCommand(src string) (Command, error) {
	parses.Add(1)
	c := Command{Source: src}
	if err := c.script(src, 0); err != nil {
		return c, err
	}
	return c, nil
}

// parses counts calls of ParseCommand, so a test can show that a shell call
// is parsed once however many steps of the policy read it.
var parses atomic.Int64

// maxNesting bounds scripts inside scripts (sh -c "sh -c '...'"); deeper
// ones are not read, and the command counts as opaque.
const maxNesting = 6

func parse(src string) (*syntax.File, error) {
	return syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
}

// script reads src as a shell script run by the command: its simple
// commands join c.Simple.
func (c *Command) script(src string, depth int) error {
	if depth > maxNesting {
		c.opaquef("scripts are nested more than %d deep", maxNesting)
		return nil
	}
	f, err := parse(src)
	if err != nil {
		if depth == 0 {
			return fmt.Errorf("the command does not parse as shell: %v", err)
		}
		c.opaquef("an inner script does not parse as shell (%v)", err)
		return nil
	}
	c.file(f, depth)
	return nil
}

// probe reads src as a command some other program may run (a string in an
// interpreter's code, a git config value): what it deletes counts, but its
// words do not join c.Simple and a parse error is no error.
func (c *Command) probe(src string, depth int) {
	if depth > maxNesting {
		return
	}
	f, err := parse(src)
	if err != nil {
		return
	}
	sub := Command{Source: src}
	sub.file(f, depth)
	c.deletes = append(c.deletes, sub.deletes...)
}

func (c *Command) file(f *syntax.File, depth int) {
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Stmt:
			if call, ok := n.Cmd.(*syntax.CallExpr); ok {
				c.call(call, n.Redirs, depth)
			}
		case *syntax.DeclClause:
			c.assigns(n.Args, depth)
		case *syntax.CmdSubst:
			if n.Backquotes && nestedBackquotes(n.Stmts) {
				// The parser splits words at an escaped backquote inside
				// backquotes, where bash does not: in `r\`echo m\` x`
				// it reads "r" where bash runs rm (found by fuzzing).
				c.opaquef("a backquoted command inside backquotes, whose words Foya cannot tell apart; write $(...) instead")
			}
		}
		return true
	})
}

// nestedBackquotes reports whether stmts hold a backquoted command
// substitution.
func nestedBackquotes(stmts []*syntax.Stmt) bool {
	found := false
	for _, st := range stmts {
		syntax.Walk(st, func(n syntax.Node) bool {
			if cs, ok := n.(*syntax.CmdSubst); ok && cs.Backquotes {
				found = true
			}
			return !found
		})
	}
	return found
}

func (c *Command) call(call *syntax.CallExpr, redirs []*syntax.Redirect, depth int) {
	c.assigns(call.Assigns, depth)
	if len(call.Args) == 0 {
		return
	}
	var s Simple
	for _, w := range call.Args {
		text, lit, base := word(w)
		s.Args = append(s.Args, text)
		s.Dynamic = append(s.Dynamic, !lit)
		s.bases = append(s.bases, base)
	}
	c.Simple = append(c.Simple, s)
	c.run(s, stdinOf(redirs), depth)
}

func (c *Command) opaquef(format string, args ...any) {
	c.opaque = append(c.opaque, fmt.Sprintf(format, args...))
}

// commandVars are variables whose value some program runs as a command
// (git's pagers, editors and config, the shell's aliases).
var commandVars = map[string]bool{
	"GIT_PAGER": true, "GIT_EDITOR": true, "GIT_SEQUENCE_EDITOR": true, "GIT_SSH_COMMAND": true, "GIT_SSH": true,
	"GIT_ASKPASS": true, "GIT_EXTERNAL_DIFF": true, "GIT_PROXY_COMMAND": true, "PAGER": true, "EDITOR": true,
	"VISUAL": true, "MANPAGER": true, "SSH_ASKPASS": true, "PROMPT_COMMAND": true, "BASH_ALIASES": true,
}

func (c *Command) assigns(as []*syntax.Assign, depth int) {
	for _, a := range as {
		if a.Name == nil {
			continue
		}
		var words []*syntax.Word
		if a.Value != nil {
			words = append(words, a.Value)
		}
		if a.Array != nil {
			for _, e := range a.Array.Elems {
				if e.Value != nil {
					words = append(words, e.Value)
				}
			}
		}
		for _, w := range words {
			text, lit, _ := word(w)
			c.assignValue(a.Name.Value, text, lit, depth)
		}
	}
}

// assignValue looks at NAME=VALUE given to a command: values that git or
// the shell will run are commands too.
func (c *Command) assignValue(name, value string, lit bool, depth int) {
	switch {
	case name == "GIT_CONFIG_PARAMETERS" || strings.HasPrefix(name, "GIT_CONFIG_KEY_") && isIncludeKey(value):
		c.opaquef("%s sets git configuration Foya cannot follow", name)
	case commandVars[name] || strings.HasPrefix(name, "GIT_CONFIG_VALUE_"):
		if !lit {
			c.opaquef("%s is set to a command that is not a literal word", name)
			return
		}
		c.probe(strings.TrimPrefix(value, "!"), depth+1)
	}
}

// stdin is what a command reads on its standard input, as far as the
// command line shows it.
type stdin struct {
	kind string // "" (a pipe, a terminal or nothing), "file", "text"
	text string // the here-document or here-string, for kind "text"
	lit  bool   // text has no expansions
}

func stdinOf(redirs []*syntax.Redirect) stdin {
	var in stdin
	for _, r := range redirs {
		if r.N != nil && r.N.Value != "0" {
			continue
		}
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc:
			in = stdin{kind: "text"}
			if r.Hdoc != nil {
				in.text, in.lit = heredoc(r.Hdoc)
			}
		case syntax.WordHdoc:
			text, lit, _ := word(r.Word)
			in = stdin{kind: "text", text: text, lit: lit}
		case syntax.RdrIn:
			in = stdin{kind: "file"}
			if text, lit, _ := word(r.Word); !lit || text == "/dev/stdin" {
				in = stdin{} // < <(echo rm x): not a file Foya can name
			}
		}
	}
	return in
}

func heredoc(w *syntax.Word) (string, bool) {
	for _, p := range w.Parts {
		if _, ok := p.(*syntax.Lit); !ok {
			return printNode(w), false
		}
	}
	s, err := expand.Document(nil, w)
	if err != nil {
		return printNode(w), false
	}
	return s, true
}

// word returns a word's text with quotes and escapes removed, whether it is
// a plain literal, and, for a word that is not, its last path element when
// that part is literal.
func word(w *syntax.Word) (text string, lit bool, base string) {
	lit = true
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			if pattern(p.Value) {
				lit = false
			}
		case *syntax.SglQuoted:
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				if _, ok := q.(*syntax.Lit); !ok {
					lit = false
				}
			}
		default:
			lit = false
		}
	}
	if lit {
		if s, ok := unquote(w); ok {
			return s, true, path.Base(s)
		}
		return printNode(w), false, ""
	}
	return printNode(w), false, tailBase(w)
}

// unquote removes a literal word's quotes and backslash escapes as the
// shell does: \rm, 'rm', "rm", r”m and $'\x72m' are all rm.
func unquote(w *syntax.Word) (string, bool) {
	var b strings.Builder
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			b.WriteString(unescape(p.Value, ""))
		case *syntax.SglQuoted:
			if !p.Dollar {
				b.WriteString(p.Value)
				continue
			}
			s, err := expand.Literal(nil, &syntax.Word{Parts: []syntax.WordPart{p}})
			if err != nil {
				return "", false
			}
			b.WriteString(s)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				b.WriteString(unescape(q.(*syntax.Lit).Value, "$`\"\\\n"))
			}
		}
	}
	return b.String(), true
}

// unescape removes backslashes: before any character (only), or, inside
// double quotes, before the characters of only.
func unescape(s, only string) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && (only == "" || strings.IndexByte(only, s[i+1]) >= 0) {
			i++
			if s[i] == '\n' {
				continue // a line continuation
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// tailBase returns the last path element of a word whose final part is a
// literal holding a slash ("$VENV/bin/python" gives python), else "".
func tailBase(w *syntax.Word) string {
	last := w.Parts[len(w.Parts)-1]
	if dq, ok := last.(*syntax.DblQuoted); ok && len(dq.Parts) > 0 {
		last = dq.Parts[len(dq.Parts)-1]
	}
	l, ok := last.(*syntax.Lit)
	if !ok {
		return ""
	}
	i := strings.LastIndexByte(l.Value, '/')
	if i < 0 || i == len(l.Value)-1 {
		return ""
	}
	b := l.Value[i+1:]
	if strings.ContainsAny(b, "\\*?[{}$`'\"") {
		return ""
	}
	return b
}

// pattern reports whether an unquoted literal holds an unescaped glob or
// brace pattern, which the shell expands into other words.
func pattern(s string) bool {
	brace := -1
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '*', '?':
			return true
		case '[':
			// A bracket expression needs its closing bracket: `[` alone
			// is the test command, which the shell never expands.
			if strings.IndexByte(s[i+1:], ']') >= 0 {
				return true
			}
		case '{':
			brace = i
		case '}':
			if brace >= 0 && (strings.Contains(s[brace:i], ",") || strings.Contains(s[brace:i], "..")) {
				return true
			}
		}
	}
	return false
}

func printNode(n syntax.Node) string {
	var b strings.Builder
	syntax.NewPrinter().Print(&b, n)
	return b.String()
}

// PermanentDelete returns, for each command that deletes files or discards
// changes for good (rm, rmdir, unlink, shred, find -delete, git clean, git
// rm, git reset --hard, tar --remove-files, an interpreter's unlink, ...,
// behind any wrapper, path or quoting), a short description; nil when there
// is none (spec D2). It is a guard against mistakes, not a proof: a program
// can delete files in ways no command line shows. The sandbox is what
// enforces.
func (c Command) PermanentDelete() []string { return c.deletes }

// Opaque returns why Foya cannot tell what the command runs: a program name
// that is not a literal word ($x, $(echo rm), a glob), commands a shell
// reads from its standard input, an alias, scripts nested too deep. Such a
// command could delete files for good unseen, so Auto asks before it.
func (c Command) Opaque() []string { return c.opaque }

// neutral commands change nothing a prefix grant protects: they may stand
// beside a granted command (cd dir && go test).
var neutral = map[string]bool{"cd": true, "pushd": true, "popd": true, "true": true, ":": true}

// MatchesPrefix reports whether every simple command of c starts with the
// words of prefix, apart from neutral ones such as cd. A dynamic word where
// the prefix has a word never matches. So a grant for "go test" allows
// "cd x && go test ./..." but not "go test && rm -rf x" nor "go test; curl …".
func (c Command) MatchesPrefix(prefix []string) bool {
	if len(prefix) == 0 || len(c.Simple) == 0 {
		return false
	}
	for _, s := range c.Simple {
		if len(s.Args) > 0 && !s.Dynamic[0] && neutral[s.Args[0]] {
			continue
		}
		if !hasPrefix(s, prefix) {
			return false
		}
	}
	return true
}

// AnyMatchesPrefix reports whether some simple command of c starts with
// prefix, as written or with its wrappers looked through: what a deny rule
// looks at.
func (c Command) AnyMatchesPrefix(prefix []string) bool {
	for _, s := range c.Simple {
		for inner := range unwrapAll(s) {
			if hasPrefix(inner, prefix) {
				return true
			}
		}
	}
	return false
}

func hasPrefix(s Simple, prefix []string) bool {
	if len(prefix) == 0 || len(s.Args) < len(prefix) {
		return false
	}
	for i, p := range prefix {
		a := s.Args[i]
		if s.Dynamic[i] {
			return false
		}
		if i == 0 {
			if a != p && path.Base(a) != p {
				return false
			}
		} else if a != p {
			return false
		}
	}
	return true
}

// Prefix returns the words a "this command prefix" grant should use for a
// command: the program and its first argument when that argument is a
// subcommand (git status, go test), else the program alone. It is taken from
// the first simple command that is not neutral.
func (c Command) Prefix() []string {
	for _, s := range c.Simple {
		if len(s.Args) == 0 || s.Dynamic[0] || neutral[s.Args[0]] {
			continue
		}
		if len(s.Args) > 1 && !s.Dynamic[1] && !strings.HasPrefix(s.Args[1], "-") && !strings.ContainsAny(s.Args[1], "/.=") {
			return []string{s.Args[0], s.Args[1]}
		}
		return []string{s.Args[0]}
	}
	return nil
}

// Words splits a prefix as users write it ("go test") into words, with the
// shell's quoting rules.
func Words(prefix string) ([]string, error) {
	c, err := ParseCommand(prefix)
	if err != nil {
		return nil, err
	}
	if len(c.Simple) != 1 {
		return nil, fmt.Errorf("command prefix %q: want one simple command", prefix)
	}
	for _, d := range c.Simple[0].Dynamic {
		if d {
			return nil, fmt.Errorf("command prefix %q: only plain words are allowed", prefix)
		}
	}
	return c.Simple[0].Args, nil
}
