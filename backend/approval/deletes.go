package approval

import (
	"path"
	"slices"
	"strings"
)

// What counts as deleting for good, and why (the mode table: shell
// permanent-delete commands are refused in Manual and Auto, because
// nothing they remove can be brought back).
//
//   - Programs that unlink: rm, rmdir, unlink, shred, srm, wipe; find
//     -delete; find -exec of any of these.
//   - git: clean (unless -n or --dry-run: with clean.requireForce=false,
//     set by -c, the environment or a config file, it deletes without -f),
//     rm (unless --cached), worktree remove. And, because they discard
//     uncommitted changes that no commit or trash keeps: reset --hard,
//     checkout -- PATH / -f / ., restore (unless only --staged), switch
//     --discard-changes / -f, stash drop / clear. git branch -D only
//     drops a ref (the reflog keeps it) and is not counted.
//   - Archivers that remove what they archive: tar --remove-files (and its
//     abbreviations, and --recursive-unlink), rsync --remove-source-files
//     and --delete*, zip -m, 7z -sdel; mv to /dev/null.
//   - Interpreters whose inline code (-c, -e, -r, a here-document) calls a
//     delete function (unlink, os.remove, shutil.rmtree, fs.rmSync,
//     FileUtils.rm_rf, ...), also under an alias (import os as o) or in a
//     string it evaluates, or runs, through system/subprocess/exec, a
//     string that is such a command. Editors and tools that run commands:
//     vim -c '!cmd' or delete(), emacs --eval delete-file, sqlite3 .shell.
//   - rimraf, trash-empty, trash-rm, gio remove, gio trash --empty, cmake -E
//     rm: emptying the trash deletes for good what the delete tool kept.
//   - Package runners and environment wrappers are looked through like
//     sudo: npx, poetry run, uv run, npm exec, bundle exec, direnv exec ...
//
// Not counted: truncate, dd, > file (they empty a file, not delete it), and
// whatever a script file, a compiled program, a make target or an
// interpreter's code does in a way its text does not show. Those cannot all
// be recognised before they run.
var deleters = []string{"rm", "rmdir", "unlink", "shred", "srm", "wipe", "rimraf", "trash-empty", "trash-rm"}

var shells = []string{"sh", "bash", "dash", "zsh", "ksh", "mksh", "lksh", "ash", "yash", "posh", "rbash"}

// program looks at the program a simple command runs, after its wrappers.
func (c *Command) program(s Simple, in stdin, depth int) {
	name := s.Name()
	switch {
	case slices.Contains(deleters, name):
		c.deleted(strings.Join(s.Args, " "))
	case slices.Contains(shells, name):
		c.shell(s, in, depth)
	case name == "eval":
		if !s.literal(1) {
			c.opaquef("eval runs words that are not literal: %s", join(s.from(1)))
			return
		}
		c.script(join(s.from(1)), depth+1)
	case name == "trap" && len(s.Args) > 2:
		// trap 'commands' SIGNAL runs its first argument later.
		if s.Dynamic[1] {
			c.opaquef("trap runs a command that is not a literal word")
			return
		}
		c.script(s.Args[1], depth+1)
	case name == "source" || name == ".":
		if len(s.Args) > 1 && stdinLike(s, 1) {
			c.fromStdin(name, in, depth)
		}
	case name == "alias":
		// An alias's value is a command as soon as the alias is used
		// (with shopt -s expand_aliases, or in the next line).
		for i, a := range s.Args[1:] {
			if _, v, ok := strings.Cut(a, "="); ok {
				if s.Dynamic[i+1] {
					c.opaquef("the alias %s is not a literal word", a)
					continue
				}
				c.script(v, depth+1)
			}
		}
	case name == "hash":
		// hash -p /bin/rm ls makes ls run rm.
		for i := 1; i+1 < len(s.Args); i++ {
			if s.Args[i] == "-p" {
				c.run(s.from(i+1), stdin{}, depth+1)
				break
			}
		}
	case name == "find":
		c.find(s, depth)
	case name == "git":
		c.git(s, depth)
	default:
		c.fileTool(s)
		if lang := interpreter(name); lang != "" {
			c.interp(lang, s, in, depth)
		}
	}
}

func (c *Command) deleted(what string) {
	if len(what) > 200 {
		what = what[:200] + " …"
	}
	c.deletes = append(c.deletes, what)
}

// stdinLike reports whether word i names the standard input or a process
// substitution: a script Foya cannot read from the command line.
func stdinLike(s Simple, i int) bool {
	a := s.Args[i]
	return s.Dynamic[i] && strings.HasPrefix(a, "<(") || a == "-" || a == "/dev/stdin" ||
		strings.HasPrefix(a, "/dev/fd/") || strings.HasPrefix(a, "/proc/self/fd/")
}

// fromStdin reads the commands a shell takes from its standard input: a
// here-document or here-string is read; a pipe cannot be.
func (c *Command) fromStdin(prog string, in stdin, depth int) {
	switch {
	case in.kind == "text" && in.lit:
		c.script(in.text, depth+1)
	case in.kind == "text":
		c.script(in.text, depth+1)
		c.opaquef("%s reads a here-document with expansions", prog)
	case in.kind != "file":
		c.opaquef("%s runs commands from its standard input, which Foya cannot see", prog)
	}
}

// shell reads sh -c SCRIPT (any bundle holding c: -c, -ec, -lc), sh
// reading its standard input, and sh FILE (not readable here).
func (c *Command) shell(s Simple, in stdin, depth int) {
	hasC := false
	i := 1
loop:
	for i < len(s.Args) {
		a := s.Args[i]
		switch {
		case s.Dynamic[i]:
			break loop
		case a == "--" || a == "-":
			i++
			break loop
		case a == "--rcfile" || a == "--init-file":
			i += 2
		case strings.HasPrefix(a, "--"):
			i++
		case len(a) > 1 && (a[0] == '-' || a[0] == '+'):
			if strings.ContainsRune(a[1:], 'c') {
				hasC = true
			}
			if strings.ContainsAny(a[1:], "oO") {
				i++ // -o pipefail, -O extglob
			}
			i++
		default:
			break loop
		}
	}
	switch {
	case hasC && i < len(s.Args) && s.Dynamic[i]:
		c.opaquef("%s -c runs a script that is not a literal word: %s", s.Args[0], s.Args[i])
	case hasC && i < len(s.Args):
		c.script(s.Args[i], depth+1)
	case hasC:
	case i < len(s.Args) && !stdinLike(s, i):
		// sh FILE: a script file, whose commands no command line shows.
	default:
		c.fromStdin(s.Args[0], in, depth)
	}
}

// find: -delete, and -exec/-execdir/-ok/-okdir COMMAND ; (or +), where
// COMMAND is looked at like any other.
func (c *Command) find(s Simple, depth int) {
	for i := 1; i < len(s.Args); i++ {
		switch a := s.Args[i]; a {
		case "-delete":
			c.deleted("find … -delete")
		case "-exec", "-execdir", "-ok", "-okdir":
			rest := s.from(i + 1)
			end := slices.IndexFunc(rest.Args, func(w string) bool { return w == ";" || w == "+" })
			if end >= 0 {
				rest = rest.upto(end)
			}
			c.run(rest, stdin{}, depth+1)
			if end < 0 {
				return
			}
			i += end + 1
		}
	}
}

// fileTool: archivers that remove what they archive, mv to /dev/null, and
// cp or ln of a delete program under another name.
func (c *Command) fileTool(s Simple) {
	name := s.Name()
	args := s.Args[1:]
	switch name {
	case "tar", "bsdtar", "gtar":
		for _, a := range args {
			if len(a) >= len("--rem") && strings.HasPrefix("--remove-files", a) ||
				len(a) >= len("--recu") && strings.HasPrefix("--recursive-unlink", a) {
				c.deleted("tar " + a)
			}
		}
	case "rsync":
		for _, a := range args {
			if strings.HasPrefix(a, "--del") || strings.HasPrefix(a, "--remove-") {
				c.deleted("rsync " + a)
			}
		}
	case "zip":
		for _, a := range args {
			if a == "--move" || len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.ContainsRune(a, 'm') {
				c.deleted("zip " + a + " (moves files into the archive)")
			}
		}
	case "gio":
		if len(args) > 0 && (args[0] == "remove" || args[0] == "rm" || args[0] == "trash" && slices.Contains(args, "--empty")) {
			c.deleted("gio " + strings.Join(args, " "))
		}
	case "cmake":
		for j := 0; j+1 < len(args); j++ {
			if args[j] == "-E" && slices.Contains([]string{"rm", "remove", "remove_directory"}, args[j+1]) {
				c.deleted("cmake -E " + args[j+1])
			}
		}
	case "7z", "7za", "7zr":
		if slices.Contains(args, "-sdel") {
			c.deleted(name + " -sdel")
		}
	case "mv":
		if len(args) > 0 && args[len(args)-1] == "/dev/null" || slices.Contains(args, "--target-directory=/dev/null") {
			c.deleted("mv … /dev/null")
		}
	case "cp", "ln", "install", "link":
		var operands []int
		for j, a := range args {
			if !strings.HasPrefix(a, "-") {
				operands = append(operands, j)
			}
		}
		for _, j := range operands[:max(len(operands)-1, 0)] {
			a := args[j]
			switch {
			case slices.Contains(deleters, path.Base(a)) && a != path.Base(a):
				c.opaquef("%s makes a copy or link of %s under another name", name, a)
			case s.Dynamic[j+1] && (strings.Contains(a, "$(") || strings.Contains(a, "`")):
				// ln -s "$(command -v rm)" ls
				c.opaquef("%s copies or links a program found at run time (%s)", name, a)
			}
		}
	case "vim", "vi", "nvim", "ex", "view", "vimdiff":
		// vim -c '!rm x', +'call delete("x")'
		for j, a := range args {
			cmd := ""
			switch {
			case (a == "-c" || a == "--cmd") && j+1 < len(args):
				cmd = args[j+1]
			case strings.HasPrefix(a, "+"):
				cmd = a[1:]
			}
			// :!cmd, :r !cmd, :w !cmd, :%!cmd run cmd; wq! does not.
			if i := strings.IndexByte(cmd, '!'); i >= 0 && (i == 0 || strings.IndexByte(" %:", cmd[i-1]) >= 0) {
				c.probe(cmd[i+1:], 1)
			}
			switch {
			case strings.Contains(cmd, "delete("):
				c.deleted(name + " " + cmd)
			case strings.Contains(cmd, "system("):
				c.opaquef("%s runs a command Foya cannot read (%s)", name, cmd)
			}
		}
	case "emacs":
		for j, a := range args {
			expr := ""
			switch {
			case (a == "--eval" || a == "-eval") && j+1 < len(args):
				expr = args[j+1]
			case strings.HasPrefix(a, "--eval="):
				expr = strings.TrimPrefix(a, "--eval=")
			}
			switch {
			case strings.Contains(expr, "delete-file") || strings.Contains(expr, "delete-directory"):
				c.deleted("emacs --eval " + expr)
			case strings.Contains(expr, "shell-command") || strings.Contains(expr, "call-process") || strings.Contains(expr, "start-process"):
				_, strs, _ := lexCode(expr)
				for _, str := range strs {
					c.probe(str, 1)
				}
			}
		}
	case "sqlite3":
		for _, a := range args {
			if rest, ok := strings.CutPrefix(a, ".shell "); ok {
				c.probe(rest, 1)
			} else if rest, ok := strings.CutPrefix(a, ".system "); ok {
				c.probe(rest, 1)
			}
		}
	}
}

// git, its global options (-c key=value is read: a value git runs as a
// command is a command) and its subcommands that delete or discard.
func (c *Command) git(s Simple, depth int) {
	aliases := map[string]string{}
	i := 1
loop:
	for i < len(s.Args) {
		a := s.Args[i]
		switch {
		case s.Dynamic[i]:
			c.opaquef("git's subcommand %s is not a literal word", a)
			return
		case a == "-c" && i+1 < len(s.Args):
			if s.Dynamic[i+1] {
				c.opaquef("git -c %s is not a literal word", s.Args[i+1])
			} else {
				c.gitConfig(s.Args[i+1], aliases, depth)
			}
			i += 2
		case a == "--config-env" || strings.HasPrefix(a, "--config-env="):
			c.opaquef("git --config-env takes configuration from a variable")
			i += map[bool]int{true: 2, false: 1}[a == "--config-env"]
		case slices.Contains([]string{"-C", "--git-dir", "--work-tree", "--namespace", "--exec-path", "--super-prefix", "--attr-source", "--list-cmds"}, a):
			i += 2
		case strings.HasPrefix(a, "-"):
			i++
		default:
			break loop
		}
	}
	if i >= len(s.Args) {
		return
	}
	sub, rest := s.Args[i], s.from(i+1)
	if v, ok := aliases[sub]; ok {
		if strings.HasPrefix(v, "!") {
			c.script(v[1:], depth+1)
			return
		}
		words, err := Words(v)
		if err != nil || len(words) == 0 {
			c.opaquef("the git alias %s=%s cannot be read", sub, v)
			return
		}
		sub = words[0]
		more := Simple{Args: words[1:], Dynamic: make([]bool, len(words)-1)}
		rest = Simple{Args: append(more.Args, rest.Args...), Dynamic: append(more.Dynamic, rest.Dynamic...)}
	}
	args := rest.Args
	flag := func(long string, short byte) bool {
		for _, a := range args {
			if a == "--" {
				return false
			}
			if a == long || short != 0 && len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.IndexByte(a, short) > 0 {
				return true
			}
		}
		return false
	}
	first := ""
	if len(args) > 0 {
		first = args[0]
	}
	switch sub {
	case "clean":
		if !flag("--dry-run", 'n') {
			c.deleted("git clean " + strings.Join(args, " "))
		}
	case "rm":
		if !flag("--cached", 0) {
			c.deleted("git rm " + strings.Join(args, " "))
		}
	case "worktree":
		if first == "remove" || first == "rm" {
			c.deleted("git worktree remove")
		}
	case "reset":
		if flag("--hard", 0) || flag("--merge", 0) || flag("--keep", 0) {
			c.deleted("git reset " + strings.Join(args, " ") + " (discards uncommitted changes)")
		}
	case "checkout":
		if slices.Contains(args, "--") || slices.Contains(args, ".") || flag("--force", 'f') || flag("--patch", 'p') {
			c.deleted("git checkout " + strings.Join(args, " ") + " (discards uncommitted changes)")
		}
	case "restore":
		if !flag("--staged", 'S') || flag("--worktree", 'W') {
			c.deleted("git restore " + strings.Join(args, " ") + " (discards uncommitted changes)")
		}
	case "switch":
		if flag("--discard-changes", 0) || flag("--force", 'f') {
			c.deleted("git switch " + strings.Join(args, " ") + " (discards uncommitted changes)")
		}
	case "stash":
		if first == "drop" || first == "clear" {
			c.deleted("git stash " + first)
		}
	case "submodule":
		if j := slices.Index(args, "foreach"); j >= 0 {
			k := j + 1
			for k < len(args) && strings.HasPrefix(args[k], "-") {
				k++
			}
			c.script(join(rest.from(k)), depth+1)
		}
	case "bisect":
		if first == "run" {
			c.run(rest.from(1), stdin{}, depth+1)
		}
	case "rebase", "difftool", "filter-branch", "mergetool":
		for j := 0; j < len(args); j++ {
			a := args[j]
			name, v, eq := strings.Cut(a, "=")
			if !gitCommandOption(sub, name) {
				continue
			}
			if !eq && j+1 < len(args) {
				j++
				v = args[j]
			}
			if rest.Dynamic[j] {
				c.opaquef("git %s %s runs a command that is not a literal word", sub, name)
				continue
			}
			c.script(v, depth+1)
		}
	}
}

func gitCommandOption(sub, name string) bool {
	switch sub {
	case "rebase":
		return name == "-x" || name == "--exec"
	case "difftool", "mergetool":
		return name == "-x" || name == "--extcmd" || name == "--tool-cmd"
	case "filter-branch":
		return strings.HasSuffix(name, "-filter")
	}
	return false
}

// gitConfig reads one -c key=value: aliases are remembered; a value that
// git may run (core.fsmonitor, core.pager, an alias with !, a filter ...)
// is looked at as a command; an include or a hooks path is opaque.
func (c *Command) gitConfig(kv string, aliases map[string]string, depth int) {
	key, value, _ := strings.Cut(kv, "=")
	key = strings.ToLower(key)
	switch {
	case strings.HasPrefix(key, "alias."):
		aliases[kv[len("alias."):strings.IndexByte(kv+"=", '=')]] = value
	case isIncludeKey(key) || key == "core.hookspath":
		c.opaquef("git -c %s makes git read configuration or hooks Foya cannot see", key)
	default:
		c.probe(strings.TrimPrefix(value, "!"), depth+1)
	}
}

func isIncludeKey(key string) bool {
	key = strings.ToLower(key)
	return key == "include.path" || strings.HasPrefix(key, "includeif.")
}

// interpreter returns the language of a program that runs inline code, or "".
func interpreter(name string) string {
	switch {
	case strings.HasPrefix(name, "python") || strings.HasPrefix(name, "pypy"):
		return "python"
	case strings.HasPrefix(name, "perl"):
		return "perl"
	case strings.HasPrefix(name, "ruby"):
		return "ruby"
	case name == "node" || name == "nodejs" || name == "bun" || name == "deno":
		return "node"
	case strings.HasPrefix(name, "php"):
		return "php"
	case strings.HasPrefix(name, "lua"):
		return "lua"
	case slices.Contains([]string{"awk", "gawk", "mawk", "nawk"}, name):
		return "awk"
	case name == "osascript":
		return "osascript"
	}
	return ""
}

// interp finds an interpreter's inline code (python -c, perl -e, node -e,
// awk 'program', a here-document) and reads it.
func (c *Command) interp(lang string, s Simple, in stdin, depth int) {
	var code []string
	dynamic := false
	take := func(i int) {
		if s.Dynamic[i] && !strings.ContainsAny(s.Args[i], "abcdefghijklmnopqrstuvwxyz") {
			dynamic = true
		}
		code = append(code, s.Args[i])
	}
	script := false // a script file or module names the program
	i := 1
	for ; i < len(s.Args); i++ {
		a := s.Args[i]
		if s.Dynamic[i] && !strings.HasPrefix(a, "-") {
			break
		}
		if a == "--" {
			i++
			break
		}
		if len(a) < 2 || a[0] != '-' {
			break
		}
		codeFlag, valued := codeOptions(lang, a)
		switch {
		case codeFlag != "" && codeFlag != a:
			code = append(code, strings.TrimPrefix(a[len(codeFlag):], "="))
		case codeFlag != "" && i+1 < len(s.Args):
			i++
			take(i)
		case valued && i+1 < len(s.Args):
			if lang == "awk" && (a == "-f" || a == "--file") || lang == "python" && a == "-m" {
				script = true
			}
			i++
		}
		if lang == "python" && (codeFlag != "" || a == "-m") {
			break // the rest are the program's arguments
		}
	}
	if len(code) == 0 && !script && i < len(s.Args) {
		if lang == "awk" || lang == "node" && s.Name() == "deno" && s.Args[i] == "eval" {
			if s.Name() == "deno" {
				i++
			}
			if i < len(s.Args) {
				take(i)
			}
		} else if !stdinLike(s, i) {
			script = true
		}
	}
	// With no code, no script and no other words, the program comes from
	// the standard input (python3 <<EOF, curl ... | python3).
	if len(code) == 0 && !script && (len(s.Args) == 1 || i < len(s.Args) && stdinLike(s, i)) {
		switch {
		case in.kind == "text":
			code = append(code, in.text)
		case in.kind == "":
			c.opaquef("%s runs a program from its standard input, which Foya cannot see", s.Args[0])
		}
	}
	if dynamic {
		c.opaquef("%s runs code that is not a literal word", s.Args[0])
	}
	for _, src := range code {
		c.code(s.Name(), lang, src, depth)
	}
}

// codeOptions says whether option a of lang gives inline code (returning
// the option's name, a prefix of a when the code is attached) or takes a
// value of another kind.
func codeOptions(lang, a string) (code string, valued bool) {
	var codeOpts, valueOpts []string
	switch lang {
	case "python":
		codeOpts, valueOpts = []string{"-c"}, []string{"-m", "-W", "-X", "-Q"}
		// Bundles: -Ic, -Bc: the code follows the bundle.
		if len(a) > 2 && a[1] != '-' && strings.HasSuffix(a, "c") && !strings.ContainsAny(a[1:len(a)-1], "cmWXQ") {
			return a, false
		}
	case "perl":
		codeOpts, valueOpts = []string{"-e", "-E"}, []string{"-I", "-M", "-m", "-x", "-C"}
		// Bundles: -ne, -lne, -pe: the code follows the bundle.
		if len(a) > 2 && a[1] != '-' && (strings.HasSuffix(a, "e") || strings.HasSuffix(a, "E")) && !strings.ContainsAny(a[1:len(a)-1], "eEIMmxC") {
			return a, false
		}
	case "ruby":
		codeOpts, valueOpts = []string{"-e"}, []string{"-r", "-I", "-C", "-E", "-F"}
		if len(a) > 2 && a[1] != '-' && strings.HasSuffix(a, "e") {
			return a, false
		}
	case "node":
		codeOpts, valueOpts = []string{"-e", "--eval", "-p", "--print"}, []string{"-r", "--require", "--import", "--input-type"}
	case "php":
		codeOpts, valueOpts = []string{"-r", "-B", "-R", "-E"}, []string{"-f", "-c", "-d", "-z"}
	case "lua":
		codeOpts, valueOpts = []string{"-e"}, []string{"-l"}
	case "awk":
		codeOpts, valueOpts = []string{"-e", "--source"}, []string{"-F", "-v", "-f", "--file", "--field-separator", "--assign"}
	case "osascript":
		codeOpts = []string{"-e"}
	}
	for _, o := range codeOpts {
		if a == o || strings.HasPrefix(a, "--") && strings.HasPrefix(a, o+"=") || !strings.HasPrefix(o, "--") && !strings.HasPrefix(a, "--") && strings.HasPrefix(a, o) {
			return o, false
		}
	}
	for _, o := range valueOpts {
		if a == o {
			return "", true
		}
	}
	return "", false
}

// strongDeletes are function names that delete in every language that has
// them; qualifiedDeletes need their module (os.remove, fs.rm, File.delete).
var (
	strongDeletes = []string{"unlink", "unlinkSync", "unlinkat", "rmtree", "rmdir", "rmdirSync", "rmSync", "removedirs",
		"remove_tree", "rimraf", "rm_rf", "rm_r", "rm_f", "remove_dir", "remove_entry", "remove_entry_secure", "remove_file", "shred"}
	deleteModules   = []string{"os", "fs", "promises", "fsp", "fse", "FileUtils", "File", "Dir", "Files", "shutil", "lfs", "Path", "pathlib", "Pathname", "Deno"}
	qualifiedDelete = []string{"remove", "rm", "delete", "deleteIfExists", "RemoveAll", "Remove"}
	spawners        = []string{"system", "popen", "Popen", "spawn", "spawnSync", "exec", "execSync", "execFile", "execFileSync",
		"execl", "execlp", "execv", "execvp", "execve", "execvpe", "run", "call", "check_call", "check_output", "getoutput",
		"getstatusoutput", "shell_exec", "passthru", "proc_open", "qx", "do shell script", "getline"}
)

// code reads an interpreter's inline code: calls of delete functions, and
// strings it hands to a shell (system("rm x"), subprocess.run(["rm", "x"])).
// It reads names, not meaning: getattr(os, "re"+"move") is not seen.
func (c *Command) code(prog, lang, src string, depth int) {
	names, strs, ticks := lexCode(src)
	bare := map[string]bool{}
	spawn := len(ticks) > 0 || lang == "awk" && strings.Contains(src, "|") || strings.Contains(src, "do shell script") ||
		lang == "ruby" && strings.Contains(src, "%x")
	for _, n := range names {
		parts := strings.Split(n, ".")
		last := parts[len(parts)-1]
		qual := ""
		if len(parts) > 1 {
			qual = parts[len(parts)-2]
		}
		bare[n] = true
		switch {
		case slices.Contains(strongDeletes, last):
			c.deleted(prog + ": " + n)
		case slices.Contains(qualifiedDelete, last) && slices.Contains(deleteModules, qual):
			c.deleted(prog + ": " + n)
		}
		if slices.Contains(spawners, last) {
			spawn = true
		}
	}
	// A module under another name (import os as o; o.remove), a delete
	// function named in a string (fs["unlinkSync"], getattr(os, "remove")),
	// or remove/delete on anything once a file module is in reach
	// (from os import remove; __import__("os").remove).
	modules := map[string]bool{}
	for _, m := range deleteModules {
		modules[m] = true
	}
	for i := 1; i+1 < len(names); i++ {
		if names[i] == "as" && modules[names[i-1]] {
			modules[names[i+1]] = true
		}
	}
	reach := false
	for _, n := range append(slices.Clone(names), strs...) {
		if first, _, _ := strings.Cut(n, "."); modules[n] || modules[first] {
			reach = true
		}
	}
	for _, n := range names {
		parts := strings.Split(n, ".")
		last, qual := parts[len(parts)-1], ""
		if len(parts) > 1 {
			qual = parts[len(parts)-2]
		}
		if slices.Contains(qualifiedDelete, last) && (modules[qual] || reach && !slices.Contains(deleteModules, qual)) && !slices.Contains(strongDeletes, last) {
			if !(slices.Contains(qualifiedDelete, last) && slices.Contains(deleteModules, qual)) { // not already counted
				c.deleted(prog + ": " + n)
			}
		}
	}
	for _, str := range strs {
		if slices.Contains(strongDeletes, str) || reach && slices.Contains(qualifiedDelete, str) {
			c.deleted(prog + ": " + str)
		}
	}
	// qx{rm x}, %x(rm x): a delete program's name in code that runs commands.
	if spawn {
		for _, n := range names {
			if slices.Contains(deleters, n) {
				c.deleted(prog + ": runs " + n)
			}
		}
	}
	for _, t := range ticks {
		c.probe(t, depth+1)
	}
	// Code in strings that the code runs: exec("os.remove(...)"),
	// eval('require("fs").unlinkSync(...)'). Read one level down, for
	// names only.
	if depth < maxNesting {
		for _, str := range strs {
			if len(str) > 3 && strings.ContainsAny(str, ".(") {
				sub := Command{}
				sub.code(prog, lang, str, maxNesting)
				c.deletes = append(c.deletes, sub.deletes...)
			}
		}
	}
	if spawn {
		for _, str := range strs {
			c.probe(str, depth+1)
		}
	}
}

// lexCode splits code into dotted names (os.remove, File::Path::rmtree as
// File.Path.rmtree, .unlink after a call), string literals and backtick
// strings. It knows ' " and ` quotes with backslash escapes, which covers
// the inline code of every language above well enough for names.
func lexCode(src string) (names, strs, ticks []string) {
	ident := func(b byte) bool {
		return b == '_' || b == '$' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
	}
	var cur strings.Builder
	flush := func() {
		if cur.Len() > 0 {
			names = append(names, strings.Trim(cur.String(), "."))
			cur.Reset()
		}
	}
	for i := 0; i < len(src); i++ {
		b := src[i]
		switch {
		case ident(b):
			cur.WriteByte(b)
		case b == '.' || b == ':' && i+1 < len(src) && src[i+1] == ':' || b == '-' && i+1 < len(src) && src[i+1] == '>':
			if b != '.' {
				i++
			}
			if cur.Len() == 0 {
				cur.WriteByte('.') // a method on a call's result: Path(p).unlink
			} else {
				cur.WriteByte('.')
			}
		case b == '\'' || b == '"' || b == '`':
			flush()
			var s strings.Builder
			j := i + 1
			for ; j < len(src) && src[j] != b; j++ {
				if src[j] == '\\' && j+1 < len(src) {
					j++
				}
				s.WriteByte(src[j])
			}
			if b == '`' {
				ticks = append(ticks, s.String())
			} else {
				strs = append(strs, s.String())
			}
			i = j
		default:
			flush()
		}
	}
	flush()
	return names, strs, ticks
}
