package approval

import (
	"slices"
	"strings"
	"testing"
)

// asked reports whether Decide asks about src in Auto for a reason of its
// own: the command deletes for good, or Foya cannot read it.
func asked(c Command) bool { return len(c.PermanentDelete()) > 0 || len(c.Opaque()) > 0 }

// quote returns s as one single-quoted shell word. The wrappers that take
// a script as an argument get it after a space, so that one starting with
// "-" or "+" is not read as an option (bash -c '+x' runs nothing).
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// deleteWrappers put a command where the shell still runs it: in a
// subshell, a group, after && or ;, in an if or a loop, in a function that
// is called, under sh -c, eval, a pipe into sh, a command substitution, time.
var deleteWrappers = []func(string) string{
	func(s string) string { return "(" + s + "\n)" },
	func(s string) string { return "{ " + s + "\n}" },
	func(s string) string { return "true && " + s },
	func(s string) string { return "false || " + s },
	func(s string) string { return "echo start; " + s },
	func(s string) string { return "if true; then " + s + "\nfi" },
	func(s string) string { return "for i in 1; do " + s + "\ndone" },
	func(s string) string { return "while false; do :; done; " + s },
	func(s string) string { return "f() { " + s + "\n}; f" },
	func(s string) string { return "sh -c " + quote(" "+s) },
	func(s string) string { return "bash -lc " + quote(" "+s) },
	func(s string) string { return "eval " + quote(" "+s) },
	func(s string) string { return "echo " + quote(s) + " | sh" },
	func(s string) string { return "x=$(" + s + "\n)" },
	func(s string) string {
		// Inside backquotes \\, \` and \$ lose their backslash: escape
		// them, so that the inner command is s exactly.
		return "echo `" + strings.NewReplacer(`\`, `\\`, "`", "\\`", "$", `\$`).Replace(s) + "`"
	},
}

// prefixWrappers run a program by name: they wrap a command only when it
// starts with one (not an assignment, a reserved word or "!", which they
// would run as a program named so, nor "-" or "+", which they read as an
// option).
var prefixWrappers = []func(string) string{
	func(s string) string { return "command " + s },
	func(s string) string { return "env FOO=1 " + s },
	func(s string) string { return "nohup " + s },
	func(s string) string { return "sudo " + s },
	func(s string) string { return "\\" + s },
}

// startsWithProgram reports whether src starts with a plain program name.
func startsWithProgram(src string) bool {
	first, _, _ := strings.Cut(src, " ")
	if first == "" || strings.ContainsAny(first, "=") || strings.HasPrefix(first, "-") || strings.HasPrefix(first, "+") || slices.Contains([]string{"if", "then", "else", "elif", "fi", "for", "while", "until",
		"do", "done", "case", "esac", "in", "function", "select", "time", "coproc", "{", "}", "[[", "]]", "!"}, first) {
		return false
	}
	return strings.Trim(first, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./-") == ""
}

// FuzzDeleteDetector holds the shell delete-command detector to its
// promise under composition: a command that it finds deleting for good (or
// cannot read) is still found so when put where the shell still runs it.
// A wrapper that makes the script unparsable is skipped: a script that
// does not parse is refused before it runs.
//
// spec: D1
func FuzzDeleteDetector(f *testing.F) {
	for _, s := range []string{"rm x", "rm -rf -- 'a b'", "rmdir d", "find . -delete", "git clean -fdx", "git reset --hard",
		"python3 -c 'import os; os.remove(\"v\")'", "xargs rm < list", "tar --remove-files -cf a.tar d", "mv x /dev/null",
		"FOO=1 rm x", "/bin/rm x", "busybox rm x", "npx rimraf d", "perl -e 'unlink \"x\"'", "echo x | xargs -0 rm", "rm x &", "rm x | cat"} {
		f.Add(s, uint8(0))
	}
	f.Fuzz(func(t *testing.T, src string, pick uint8) {
		c, err := ParseCommand(src)
		if err != nil || !asked(c) {
			return
		}
		// Every wrapper for a short command, one picked for a long one
		// (each parse costs).
		ws := deleteWrappers
		if startsWithProgram(src) {
			ws = append(slices.Clip(ws), prefixWrappers...)
		}
		if len(src) > 200 {
			ws = ws[int(pick)%len(ws) : int(pick)%len(ws)+1]
		}
		for _, w := range ws {
			wrapped := w(src)
			c2, err := ParseCommand(wrapped)
			if err != nil {
				continue
			}
			if !asked(c2) {
				t.Fatalf("ParseCommand(%q) deletes %v (opaque %v), but wrapped as %q it deletes nothing and reads clear", src, c.PermanentDelete(), c.Opaque(), wrapped)
			}
		}
	})
}

// TestNestedBackquotesAreOpaque pins what FuzzDeleteDetector found: inside
// backquotes, the shell parser split "r\`echo m\`" into two words, so
// `r\`echo m\` x`, which bash runs as rm x, read as a harmless program "r"
// and was allowed in Auto without asking.
//
// spec: D1
func TestNestedBackquotesAreOpaque(t *testing.T) {
	for _, src := range []string{"echo `r\\`echo m\\` x`", "echo `x\\`true\\``", "echo `0\\`\\``"} {
		c, err := ParseCommand(src)
		if err != nil {
			t.Fatalf("ParseCommand(%q): %v", src, err)
		}
		if !asked(c) {
			t.Errorf("ParseCommand(%q) reads clear; want it opaque (bash runs a program the parser does not see)", src)
		}
		if got := Decide(Auto, Action{Kind: Shell, Tool: "bash", Command: src}, nil); got.Verdict != Ask {
			t.Errorf("Decide(auto, %q) = %v; want ask", src, got.Verdict)
		}
	}
	for _, src := range []string{"echo `date`", "echo $(echo $(date))", "echo `echo \\$HOME`"} {
		if c, _ := ParseCommand(src); asked(c) {
			t.Errorf("ParseCommand(%q) = deletes %v, opaque %v; want clear", src, c.PermanentDelete(), c.Opaque())
		}
	}
}
