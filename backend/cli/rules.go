package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"foya/backend/approval"
	"foya/backend/kernel"
)

const rulesUsage = `usage: foya rules [--workdir DIR] [--json]      show the project's rules and whether they are approved
       foya rules allow [--workdir DIR] [--hash SHA256]
                                               show the rules file and approve this exact content
       foya rules revoke [--workdir DIR]       withdraw the approval: its allow rules are ignored again`

// rulesCmd: foya rules [allow|revoke] [--workdir DIR]. A project's
// .foya/permissions.json grants nothing until approved here.
func rulesCmd(ctx context.Context, args []string, env Env) int {
	a, code, ok := projectFileArgs("foya rules", rulesUsage, "print the rules and their status as JSON", "show", args, env)
	if !ok {
		return code
	}
	sub, dir := a.sub, a.dir
	k, err := openKernel(ctx, a.db, env)
	if err != nil {
		return fail(env, err)
	}
	defer k.Close()
	pr, err := k.ProjectRules(ctx, dir)
	if err != nil {
		return fail(env, err)
	}
	switch sub {
	case "allow":
		showRules(env.Stdout, pr, true)
		if pr.Status == kernel.RulesApproved {
			fmt.Fprintln(env.Stdout, "This exact content is already approved.")
			return ExitOK
		}
		want := pr.Hash
		if a.hash != "" {
			want = a.hash
		}
		if err := k.TrustProjectRules(ctx, dir, want); err != nil {
			fmt.Fprintf(env.Stderr, "foya rules: %v\n", err)
			return ExitFailed
		}
		fmt.Fprintf(env.Stdout, "Approved %s (sha256 %s): its allow rules now apply inside the workspace and the sandbox. "+
			"If the file changes, it must be approved again.\n", pr.File, pr.Hash)
		return ExitOK
	case "revoke":
		if err := k.RevokeProjectRules(ctx, dir); err != nil {
			return fail(env, err)
		}
		fmt.Fprintf(env.Stdout, "Revoked: the allow rules of %s are ignored until you approve it again.\n", pr.File)
		return ExitOK
	}
	if a.json {
		printJSON(env.Stdout, pr)
		return ExitOK
	}
	showRules(env.Stdout, pr, false)
	if f := k.UserRulesFile(); f != "" {
		fmt.Fprintf(env.Stdout, "Your own rules (they may allow anything): %s\n", f)
	}
	return ExitOK
}

// showRules prints a rules file's status, its rules and, with content, its
// exact text.
func showRules(w io.Writer, pr kernel.ProjectRules, content bool) {
	switch pr.Status {
	case kernel.RulesNone:
		fmt.Fprintf(w, "%s: no %s; nothing to approve.\n", pr.Workdir, approval.RulesFile)
		return
	case kernel.RulesInvalid:
		fmt.Fprintf(w, "%s cannot be used (%s): Foya asks before every action until it is fixed.\n", pr.File, pr.Error)
	case kernel.RulesApproved:
		fmt.Fprintf(w, "%s: approved by you on %s (sha256 %s).\n", pr.File, pr.ApprovedAt.Format("2006-01-02 15:04 MST"), pr.Hash)
	case kernel.RulesChanged:
		fmt.Fprintf(w, "%s: CHANGED since you approved it; not approved (sha256 %s). Its allow rules are ignored: "+
			"review it and run `foya rules allow`.\n", pr.File, pr.Hash)
	default:
		fmt.Fprintf(w, "%s: not approved (sha256 %s). Its allow rules are ignored; deny and ask rules apply: "+
			"review it and run `foya rules allow`.\n", pr.File, pr.Hash)
	}
	for _, l := range []struct {
		name  string
		rules []kernel.Rule
	}{{"deny", pr.Deny}, {"ask", pr.Ask}, {"allow", pr.Allow}} {
		for _, r := range l.rules {
			fmt.Fprintf(w, "  %-5s %s\n", l.name, r)
		}
	}
	if len(pr.Allow) > 0 {
		fmt.Fprintln(w, "Even approved, a project's allow rules never allow leaving the sandbox or the workspace, "+
			"writing .git, .agents or .foya, or commands Foya cannot read; only your own rules, a grant or your answer can.")
	}
	if content && pr.Content != "" {
		fmt.Fprintf(w, "--- %s\n%s", pr.File, sanitize(pr.Content))
		if !strings.HasSuffix(pr.Content, "\n") {
			fmt.Fprintln(w)
		}
		fmt.Fprintln(w, "---")
	}
}

// sanitize keeps a file's text from driving the terminal: control
// characters other than newline and tab are shown as \xNN.
func sanitize(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0:
			fmt.Fprintf(&b, "\\x%02x", r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// projectArgs are the arguments of foya rules and foya hooks: a
// subcommand, the project folder and the flags.
type projectArgs struct {
	db, dir, sub, hash string
	json               bool
}

// projectFileArgs reads [allow|revoke|list] [--workdir DIR] [--json]
// [--hash SHA256] for a command about a project's file that needs the
// user's approval (foya rules, foya hooks); list names the subcommand that
// shows it (as no subcommand does). ok false: the command ends with code.
func projectFileArgs(name, usage, jsonHelp, list string, args []string, env Env) (projectArgs, int, bool) {
	fs, db := newFlags(name, env)
	workdir := fs.String("workdir", "", "the project folder (default: the current folder)")
	asJSON := fs.Bool("json", false, jsonHelp)
	hash := fs.String("hash", "", "with allow: approve only if the file's sha256 is this (as shown before)")
	fs.Usage = func() { fmt.Fprintln(env.Stderr, usage) }
	pos, code, ok := parseFlags(fs, args)
	if !ok {
		return projectArgs{}, code, false
	}
	a := projectArgs{db: *db, dir: *workdir, hash: *hash, json: *asJSON}
	if len(pos) > 0 {
		a.sub = pos[0]
	}
	if len(pos) > 1 || a.sub != "" && a.sub != "allow" && a.sub != "revoke" && a.sub != list {
		fmt.Fprintln(env.Stderr, usage)
		return projectArgs{}, ExitUsage, false
	}
	if a.dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return projectArgs{}, fail(env, err), false
		}
		a.dir = wd
	}
	return a, 0, true
}
