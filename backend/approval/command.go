package approval

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Command is a shell command as a real shell parser sees it (never regular
// expressions): every simple command it would run, including those behind
// &&, ;, pipes, subshells, $(...), and inside sh -c and eval strings.
type Command struct {
	// Source is the command as written.
	Source string
	// Simple lists each simple command's words, in order of appearance.
	Simple []Simple
}

// Simple is one simple command.
type Simple struct {
	// Args are the words; a word that is not a plain literal (a variable,
	// a substitution) is kept as written and marked in Dynamic.
	Args    []string
	Dynamic []bool
}

// Name returns the program's base name ("rm" for /bin/rm), or "" when the
// command name is not a literal.
func (s Simple) Name() string {
	if len(s.Args) == 0 || s.Dynamic[0] {
		return ""
	}
	return path.Base(s.Args[0])
}

// ParseCommand parses a shell command. A command that does not parse is an
// error worded for the model.
func ParseCommand(src string) (Command, error) {
	c := Command{Source: src}
	if err := c.add(src, 0); err != nil {
		return c, err
	}
	return c, nil
}

const maxNesting = 4

func (c *Command) add(src string, depth int) error {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil {
		return fmt.Errorf("the command does not parse as shell: %v", err)
	}
	var inner []string
	syntax.Walk(f, func(n syntax.Node) bool {
		call, ok := n.(*syntax.CallExpr)
		if !ok || len(call.Args) == 0 {
			return true
		}
		var s Simple
		for _, w := range call.Args {
			text, lit := word(w)
			s.Args = append(s.Args, text)
			s.Dynamic = append(s.Dynamic, !lit)
		}
		c.Simple = append(c.Simple, s)
		// Strings another shell will run are commands too.
		if args := unwrap(s); len(args.Args) > 0 {
			switch args.Name() {
			case "sh", "bash", "zsh", "dash", "ksh", "busybox":
				for i, a := range args.Args {
					if a == "-c" && i+1 < len(args.Args) {
						inner = append(inner, args.Args[i+1])
						break
					}
				}
			case "eval":
				inner = append(inner, strings.Join(args.Args[1:], " "))
			}
		}
		return true
	})
	if depth < maxNesting {
		for _, in := range inner {
			if err := c.add(in, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

// word returns a word's text and whether it is a plain literal (quotes
// removed).
func word(w *syntax.Word) (string, bool) {
	var b strings.Builder
	lit := true
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			b.WriteString(p.Value)
		case *syntax.SglQuoted:
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				if l, ok := q.(*syntax.Lit); ok {
					b.WriteString(l.Value)
				} else {
					lit = false
					b.WriteString(printNode(q))
				}
			}
		default:
			lit = false
			b.WriteString(printNode(p))
		}
	}
	return b.String(), lit
}

func printNode(n syntax.Node) string {
	var b strings.Builder
	syntax.NewPrinter().Print(&b, n)
	return b.String()
}

// wrappers run the command that follows them; each maps to how many of its
// own option words may take a value.
var wrappers = map[string]bool{
	"sudo": true, "doas": true, "env": true, "command": true, "builtin": true, "exec": true, "nice": true,
	"nohup": true, "time": true, "timeout": true, "xargs": true, "busybox": true, "stdbuf": true, "ionice": true,
	"chrt": true, "setsid": true, "unbuffer": true, "flock": true,
}

// optsWithValue are wrapper options that take the next word as their value.
var optsWithValue = map[string]bool{
	"-u": true, "-g": true, "-C": true, "-h": true, "-p": true, "-U": true, "-r": true, "-t": true, // sudo and friends
	"-n": true, "-s": true, "-k": true, "-I": true, "-L": true, "-d": true, "-E": true, "-P": true, // nice, timeout, xargs
	"-i": true, "-o": true, "-e": true, "-c": true,
}

// unwrap strips wrappers (sudo, env, xargs, busybox, timeout ...) and their
// options from a simple command, leaving the program they run.
func unwrap(s Simple) Simple {
	for range 8 {
		name := s.Name()
		if !wrappers[name] || len(s.Args) < 2 {
			return s
		}
		i := 1
		for i < len(s.Args) {
			a := s.Args[i]
			switch {
			case a == "--":
				i++
				goto done
			case strings.HasPrefix(a, "-"):
				if optsWithValue[a] && name != "command" && name != "busybox" {
					i++
				}
				i++
			case name == "env" && strings.Contains(a, "="):
				i++
			case name == "timeout" && i == 1 && (a[0] >= '0' && a[0] <= '9'):
				i++
			case (name == "nice" || name == "ionice" || name == "chrt") && (a[0] >= '0' && a[0] <= '9'):
				i++
			default:
				goto done
			}
		}
	done:
		if i >= len(s.Args) {
			return Simple{}
		}
		s = Simple{Args: s.Args[i:], Dynamic: s.Dynamic[i:]}
	}
	return s
}

// PermanentDelete returns, for each simple command that deletes files for
// good (rm, rmdir, unlink, shred, find -delete, find -exec rm, git clean -f,
// behind any wrapper or path), a short description; nil when there is none
// (spec D2). It is a usability guard; the sandbox is what enforces.
func (c Command) PermanentDelete() []string {
	var found []string
	for _, s := range c.Simple {
		if why := permanentDelete(unwrap(s)); why != "" {
			found = append(found, why)
		}
	}
	return found
}

var deleters = []string{"rm", "rmdir", "unlink", "shred", "srm", "wipe"}

func permanentDelete(s Simple) string {
	name := s.Name()
	switch {
	case slices.Contains(deleters, name):
		return strings.Join(s.Args, " ")
	case name == "find":
		for i, a := range s.Args {
			if a == "-delete" {
				return "find … -delete"
			}
			if (a == "-exec" || a == "-execdir" || a == "-ok" || a == "-okdir") && i+1 < len(s.Args) {
				if rest := unwrap(Simple{Args: s.Args[i+1:], Dynamic: s.Dynamic[i+1:]}); slices.Contains(deleters, rest.Name()) {
					return "find … " + a + " " + rest.Args[0]
				}
			}
		}
	case name == "git":
		args := gitArgs(s.Args[1:])
		if len(args) > 0 && args[0] == "clean" {
			for _, a := range args[1:] {
				if a == "--force" || strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a, "f") {
					return "git clean " + a
				}
			}
		}
	}
	return ""
}

// gitArgs skips git's global options (-C dir, -c k=v, --git-dir=...).
func gitArgs(args []string) []string {
	for len(args) > 0 {
		switch a := args[0]; {
		case a == "-C" || a == "-c" || a == "--git-dir" || a == "--work-tree" || a == "--namespace":
			if len(args) < 2 {
				return nil
			}
			args = args[2:]
		case strings.HasPrefix(a, "-"):
			args = args[1:]
		default:
			return args
		}
	}
	return nil
}

// neutral commands change nothing a prefix grant protects: they may stand
// beside a granted command (cd dir && go test).
var neutral = map[string]bool{"cd": true, "pushd": true, "popd": true, "true": true, ":": true}

// MatchesPrefix reports whether every simple command of c starts with the
// words of prefix (after wrappers are stripped only if the prefix itself does
// not name the wrapper), apart from neutral ones such as cd. A dynamic word
// where the prefix has a word never matches. So a grant for "go test" allows
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
// prefix (after stripping wrappers): what a deny rule looks at.
func (c Command) AnyMatchesPrefix(prefix []string) bool {
	for _, s := range c.Simple {
		if hasPrefix(s, prefix) || hasPrefix(unwrap(s), prefix) {
			return true
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
