package approval

import (
	"iter"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// run looks at one simple command the shell would run: through its
// wrappers (sudo, env, timeout, xargs ...) to the program they start, then
// at that program (package-level deletes.go).
func (c *Command) run(s Simple, in stdin, depth int) {
	fed := false   // a wrapper earlier on the line feeds words from its input
	for range 64 { // every wrapper consumes at least its own name
		if len(s.Args) == 0 {
			return
		}
		name := s.Name()
		if name == "" || strings.Contains(s.Args[0], "{}") {
			c.opaquef("the program name %s is not a literal word, so Foya cannot tell what it runs", s.Args[0])
			return
		}
		w, ok := wrappers[name]
		if !ok {
			break
		}
		u := w.unwrap(s)
		if fed && len(u.next.Args) == 0 && len(u.scripts) == 0 && u.opaque == "" {
			// xargs env, find -exec sudo {} ...: the command comes from
			// the input.
			c.opaquef("%s gets its command from the input of xargs or find", name)
			return
		}
		fed = fed || name == "xargs" || name == "parallel"
		if u.opaque != "" {
			c.opaquef("%s", u.opaque)
		}
		for _, sc := range u.scripts {
			c.script(sc, depth+1)
		}
		for _, a := range u.assigns {
			name, value, _ := strings.Cut(a, "=")
			c.assignValue(name, value, true, depth)
		}
		s = u.next
	}
	c.program(s, in, depth)
}

// unwrapAll yields s and each command its wrappers run, outermost first.
func unwrapAll(s Simple) iter.Seq[Simple] {
	return func(yield func(Simple) bool) {
		for range 64 {
			if len(s.Args) == 0 || !yield(s) {
				return
			}
			w, ok := wrappers[s.Name()]
			if !ok {
				return
			}
			s = w.unwrap(s).next
		}
	}
}

// unwrapped is what a wrapper runs.
type unwrapped struct {
	next    Simple   // the command it runs (empty: none)
	scripts []string // shell scripts it runs
	assigns []string // NAME=VALUE it sets for the command
	opaque  string   // why what it runs cannot be known
}

// opt is one option of a command line: "-s" or "--signal", with its value
// when it takes one.
type opt struct{ name, value string }

// options describes a program's options: which take a value.
type options struct {
	short string   // short options that take a value (in bundles, the rest of the word or the next word)
	long  []string // long options that take the next word as value unless given with =
}

// parse reads options from word i on, stopping at the first word that is not
// one (as getopt with "+" does: these programs never permute) or after --.
// It returns the index of that word and the options seen.
func (o options) parse(s Simple, i int) (int, []opt) {
	var seen []opt
	for i < len(s.Args) {
		a := s.Args[i]
		if s.Dynamic[i] || len(a) < 2 || a[0] != '-' {
			return i, seen
		}
		if a == "--" {
			return i + 1, seen
		}
		if strings.HasPrefix(a, "--") {
			name, value, eq := strings.Cut(a[2:], "=")
			if !eq && slices.Contains(o.long, name) && i+1 < len(s.Args) {
				i++
				value = s.Args[i]
			}
			seen = append(seen, opt{"--" + name, value})
			i++
			continue
		}
		for j := 1; j < len(a); j++ {
			if strings.IndexByte(o.short, a[j]) < 0 {
				seen = append(seen, opt{"-" + a[j:j+1], ""})
				continue
			}
			value := a[j+1:]
			if value == "" && i+1 < len(s.Args) {
				i++
				value = s.Args[i]
			}
			seen = append(seen, opt{"-" + a[j:j+1], value})
			break
		}
		i++
	}
	return i, seen
}

func has(opts []opt, names ...string) bool {
	return slices.ContainsFunc(opts, func(o opt) bool { return slices.Contains(names, o.name) })
}

func values(opts []opt, names ...string) []string {
	var out []string
	for _, o := range opts {
		if slices.Contains(names, o.name) {
			out = append(out, o.value)
		}
	}
	return out
}

// wrapper is a program that runs the command given after its options.
type wrapper struct {
	options
	// operands are words between the options and the command (timeout's
	// duration, taskset's mask, flock's file, chroot's new root).
	operands int
	// assigns: NAME=VALUE words may come before the command (env, sudo).
	assigns bool
	// none lists options after which no command runs (command -v).
	none []string
	// special handles what the generic reading cannot; it gets the
	// options seen and the index of the first word after them.
	special func(s Simple, i int, opts []opt) (unwrapped, bool)
}

func (w wrapper) unwrap(s Simple) unwrapped {
	i, opts := w.parse(s, 1)
	if w.special != nil {
		if u, done := w.special(s, i, opts); done {
			return u
		}
	}
	if has(opts, w.none...) {
		return unwrapped{}
	}
	var u unwrapped
	if w.assigns {
		for i < len(s.Args) && !s.Dynamic[i] && isAssign(s.Args[i]) {
			u.assigns = append(u.assigns, s.Args[i])
			i++
		}
	}
	i += w.operands
	u.next = s.from(i)
	return u
}

func isAssign(a string) bool {
	name, _, ok := strings.Cut(a, "=")
	return ok && syntax.ValidName(name)
}

// join turns words back into a script another shell reads (watch, parallel
// and eval join their words with spaces).
func join(s Simple) string { return strings.Join(s.Args, " ") }

// quoteAll quotes words so that a shell reads them back as the same words.
func quoteAll(s Simple) string {
	var b []string
	for i, a := range s.Args {
		if s.Dynamic[i] {
			b = append(b, a)
			continue
		}
		q, err := syntax.Quote(a, syntax.LangBash)
		if err != nil {
			q = a
		}
		b = append(b, q)
	}
	return strings.Join(b, " ")
}

var wrappers = map[string]wrapper{
	"sudo": {options: options{short: "ugChpUrtDRT", long: []string{"user", "group", "close-from", "host", "prompt",
		"other-user", "role", "type", "chdir", "chroot", "command-timeout"}},
		assigns: true, none: []string{"-e", "--edit", "-v", "--validate", "-K", "--remove-timestamp"}},
	"doas":    {options: options{short: "uC"}},
	"command": {none: []string{"-v", "-V"}},
	"builtin": {},
	"exec":    {options: options{short: "a"}},
	"nice":    {options: options{short: "n", long: []string{"adjustment"}}},
	"nohup":   {},
	"time":    {options: options{short: "fo", long: []string{"format", "output"}}},
	"timeout": {options: options{short: "ks", long: []string{"kill-after", "signal"}}, operands: 1},
	"stdbuf":  {options: options{short: "ioe", long: []string{"input", "output", "error"}}},
	"ionice":  {options: options{short: "cnpPu", long: []string{"class", "classdata", "pid", "pgid", "uid"}}, none: []string{"-p", "-P", "-u", "--pid", "--pgid", "--uid"}},
	"chrt": {options: options{short: "TPD", long: []string{"sched-runtime", "sched-period", "sched-deadline"}}, none: []string{"-p", "--pid"},
		special: func(s Simple, i int, opts []opt) (unwrapped, bool) {
			if has(opts, "-p", "--pid") {
				return unwrapped{}, true
			}
			if i < len(s.Args) && !s.Dynamic[i] && digits(s.Args[i]) {
				i++ // the priority
			}
			return unwrapped{next: s.from(i)}, true
		}},
	"taskset":  {operands: 1, none: []string{"-p", "--pid"}},
	"setsid":   {},
	"unbuffer": {},
	"strace":   {options: options{short: "abeEIoOpPsSuUX", long: []string{"output", "user", "env"}}},
	"chroot":   {options: options{long: []string{"userspec", "groups"}}, operands: 1},
	"unshare":  {options: options{short: "SGRw", long: []string{"setuid", "setgid", "root", "wd"}}},
	"nsenter":  {options: options{short: "tSGrw", long: []string{"target", "setuid", "setgid"}}},
	"busybox":  {},
	"toybox":   {},
	"env": {options: options{short: "uCSP", long: []string{"unset", "chdir", "split-string"}}, assigns: true,
		special: func(s Simple, i int, opts []opt) (unwrapped, bool) {
			split := values(opts, "-S", "--split-string")
			if len(split) == 0 {
				return unwrapped{}, false
			}
			// env -S splits its string into the command's first words.
			var u unwrapped
			for i < len(s.Args) && !s.Dynamic[i] && isAssign(s.Args[i]) {
				u.assigns = append(u.assigns, s.Args[i])
				i++
			}
			u.scripts = []string{strings.Join(split, " ") + " " + quoteAll(s.from(i))}
			return u, true
		}},
	"xargs": {options: options{short: "adEILnPs", long: []string{"arg-file", "delimiter", "max-args", "max-procs",
		"max-chars", "process-slot-var"}},
		special: func(s Simple, i int, opts []opt) (unwrapped, bool) {
			next := s.from(i)
			for _, repl := range values(opts, "-I", "-i", "--replace") {
				if repl == "" {
					repl = "{}"
				}
				if len(next.Args) > 0 && strings.Contains(next.Args[0], repl) {
					return unwrapped{opaque: "xargs fills in the command's name from its input"}, true
				}
			}
			return unwrapped{next: next}, true
		}},
	"npx": {options: options{short: "pc", long: []string{"package", "call"}},
		special: func(s Simple, i int, opts []opt) (unwrapped, bool) {
			if cmds := values(opts, "-c", "--call"); len(cmds) > 0 {
				return unwrapped{scripts: cmds}, true
			}
			return unwrapped{next: s.from(i)}, true
		}},
	"dbus-run-session": {}, "xvfb-run": {options: options{short: "nslfe", long: []string{"server-num", "server-args", "auth-file", "error-file", "xauth-protocol"}}},
	"fakeroot": {}, "faketime": {operands: 1}, "firejail": {}, "valgrind": {}, "proxychains": {}, "proxychains4": {},
	"torsocks": {}, "catchsegv": {}, "systemd-run": {options: options{short: "pEMu", long: []string{"property", "setenv", "machine", "unit", "description", "slice", "uid", "gid", "working-directory"}}},
	"flock": {options: options{short: "wEc", long: []string{"timeout", "conflict-exit-code", "command"}},
		special: func(s Simple, i int, opts []opt) (unwrapped, bool) {
			if cmds := values(opts, "-c", "--command"); len(cmds) > 0 {
				return unwrapped{scripts: cmds}, true
			}
			i++ // the lock file or descriptor
			if i < len(s.Args) && (s.Args[i] == "-c" || s.Args[i] == "--command") {
				if i+1 < len(s.Args) {
					if s.Dynamic[i+1] {
						return unwrapped{opaque: "flock -c runs a command that is not a literal word"}, true
					}
					return unwrapped{scripts: []string{s.Args[i+1]}}, true
				}
				return unwrapped{}, true
			}
			return unwrapped{next: s.from(i)}, true
		}},
	"watch": {options: options{short: "nq", long: []string{"interval", "equexit"}},
		special: func(s Simple, i int, opts []opt) (unwrapped, bool) {
			if has(opts, "-x", "--exec") {
				return unwrapped{next: s.from(i)}, true
			}
			rest := s.from(i)
			if len(rest.Args) == 0 {
				return unwrapped{}, true
			}
			// watch hands its words, joined, to sh -c.
			return unwrapped{scripts: []string{join(rest)}}, true
		}},
	"parallel": {options: options{short: "jSPNnLIdaECX", long: []string{"jobs", "sshlogin", "max-procs", "max-args", "max-lines",
		"delimiter", "arg-file", "colsep", "tmpdir", "results", "joblog", "timeout", "delay", "retries", "halt", "memfree",
		"load", "workdir", "wd", "basefile", "transferfile", "return", "env"}},
		special: func(s Simple, i int, _ []opt) (unwrapped, bool) {
			rest := s.from(i)
			sep := slices.IndexFunc(rest.Args, func(a string) bool { return strings.HasPrefix(a, ":::") })
			cmd := rest
			if sep >= 0 {
				cmd = rest.upto(sep)
			}
			if len(cmd.Args) > 0 {
				// GNU parallel runs the command, with its arguments
				// filled in, through a shell.
				return unwrapped{scripts: []string{join(cmd)}}, true
			}
			if sep < 0 {
				return unwrapped{opaque: "parallel runs commands it reads from its standard input, which Foya cannot see"}, true
			}
			// No command: each argument is a command.
			var u unwrapped
			args := rest.from(sep)
			for j, a := range args.Args {
				if strings.HasPrefix(a, ":::") {
					continue
				}
				if args.Dynamic[j] {
					u.opaque = "parallel runs arguments that are not literal words as commands"
					continue
				}
				u.scripts = append(u.scripts, a)
			}
			return u, true
		}},
	// setpriv, numactl and ltrace run their command after their options;
	// sg hands its command to /bin/sh -c.
	"setpriv": {options: options{long: []string{"reuid", "regid", "ruid", "rgid", "euid", "egid", "groups", "inh-caps",
		"ambient-caps", "bounding-set", "securebits", "pdeathsig", "selinux-label", "apparmor-profile", "landlock-access",
		"landlock-rule"}}, none: []string{"-d", "--dump"}},
	"numactl": {options: options{short: "imNCpPw", long: []string{"interleave", "membind", "cpunodebind", "physcpubind",
		"preferred", "preferred-many", "weighted-interleave"}}, none: []string{"-s", "--show", "-H", "--hardware"}},
	"ltrace": {options: options{short: "aAeFlnopsuwx", long: []string{"output", "library"}}, none: []string{"-p"}},
	"sg": {special: func(s Simple, _ int, _ []opt) (unwrapped, bool) {
		rest := s.from(1)
		if len(rest.Args) > 0 && !rest.Dynamic[0] && rest.Args[0] == "-" {
			rest = rest.from(1)
		}
		rest = rest.from(1) // the group
		if len(rest.Args) > 0 && !rest.Dynamic[0] && rest.Args[0] == "-c" {
			rest = rest.from(1)
		}
		if len(rest.Args) == 0 {
			return unwrapped{}, true
		}
		if slices.Contains(rest.Dynamic, true) {
			return unwrapped{opaque: "sg runs a command that is not a literal word"}, true
		}
		return unwrapped{scripts: []string{join(rest)}}, true
	}},
	"su":      {options: options{short: "cgGsw", long: []string{"command", "group", "supp-group", "shell", "whitelist-environment"}}, special: suCommand},
	"runuser": {options: options{short: "cgGsuw", long: []string{"command", "group", "supp-group", "shell", "user", "whitelist-environment"}}, special: suCommand},
	"script": {options: options{short: "cEIOBTm", long: []string{"command", "echo", "log-in", "log-out", "log-io", "log-timing", "logging-format"}},
		special: func(_ Simple, _ int, opts []opt) (unwrapped, bool) {
			return unwrapped{scripts: values(opts, "-c", "--command")}, true
		}},
}

// subcommandWrappers run the command after one subcommand word: poetry run
// CMD, npm exec CMD, bundle exec CMD.
var subcommandWrappers = map[string][]string{
	"poetry": {"run"}, "pipenv": {"run"}, "uv": {"run"}, "pdm": {"run"}, "conda": {"run"}, "mamba": {"run"},
	"micromamba": {"run"}, "npm": {"exec", "x"}, "pnpm": {"exec", "dlx"}, "yarn": {"exec", "dlx"}, "bun": {"x"},
	"bundle": {"exec"}, "mise": {"exec", "x"}, "asdf": {"exec"}, "direnv": {"exec"}, "nix": {"run", "shell", "develop"},
}

func init() {
	for name, subs := range subcommandWrappers {
		subs := subs
		if _, ok := wrappers[name]; ok {
			panic("approval: " + name + " is a wrapper twice")
		}
		wrappers[name] = wrapper{special: func(s Simple, i int, _ []opt) (unwrapped, bool) {
			if i >= len(s.Args) || !slices.Contains(subs, s.Args[i]) {
				return unwrapped{}, true
			}
			j, _ := options{short: "nCpe", long: []string{"name", "prefix", "cwd", "directory", "env-file", "with", "python"}}.parse(s, i+1)
			if s.Name() == "direnv" {
				j++ // direnv exec DIR COMMAND
			}
			if (s.Name() == "nix") && slices.Contains(s.Args[j:], "--command") {
				j = slices.Index(s.Args, "--command") + 1
			}
			return unwrapped{next: s.from(j)}, true
		}}
	}
}

// suCommand reads su's and runuser's -c: a script for the user's shell.
// su permutes its arguments (su - root -c cmd), so every word is looked at.
func suCommand(s Simple, i int, opts []opt) (unwrapped, bool) {
	var u unwrapped
	for j := 1; j < len(s.Args); j++ {
		a := s.Args[j]
		switch {
		case s.Dynamic[j]:
		case (a == "-c" || a == "--command") && j+1 < len(s.Args):
			if s.Dynamic[j+1] {
				u.opaque = s.Args[0] + " -c runs a command that is not a literal word"
			} else {
				u.scripts = append(u.scripts, s.Args[j+1])
			}
			j++
		case strings.HasPrefix(a, "--command="):
			u.scripts = append(u.scripts, strings.TrimPrefix(a, "--command="))
		}
	}
	if len(u.scripts) == 0 && s.Name() == "runuser" && has(opts, "-u", "--user") {
		u.next = s.from(i)
	}
	return u, true
}

func digits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}
