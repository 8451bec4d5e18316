package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"foya/backend/hooks"
	"foya/backend/kernel"
)

const hooksUsage = `usage: foya hooks [--workdir DIR] [--json]      list the hooks in effect (yours and the project's) and whether they run
       foya hooks allow [--workdir DIR] [--hash SHA256]
                                               show the project's hooks file and approve this exact content
       foya hooks revoke [--workdir DIR]       withdraw the approval: the project's hooks stop running`

// hooksCmd: foya hooks [allow|revoke] [--workdir DIR]. A project's
// .foya/hooks.json runs nothing until approved here (or in Settings);
// docs/hooks.md is the reference.
func hooksCmd(ctx context.Context, args []string, env Env) int {
	a, code, ok := projectFileArgs("foya hooks", hooksUsage, "print the hooks files and their status as JSON", "list", args, env)
	if !ok {
		return code
	}
	sub, dir := a.sub, a.dir
	k, err := openKernel(ctx, a.db, env)
	if err != nil {
		return fail(env, err)
	}
	defer k.Close()
	h, err := k.Hooks(ctx, dir)
	if err != nil {
		return fail(env, err)
	}
	switch sub {
	case "allow":
		p := h.Project
		showHooksFile(env.Stdout, p, true)
		switch p.Status {
		case kernel.HooksNone:
			return ExitFailed
		case kernel.HooksApproved:
			fmt.Fprintln(env.Stdout, "This exact content is already approved.")
			return ExitOK
		}
		want := p.Hash
		if a.hash != "" {
			want = a.hash
		}
		if err := k.TrustProjectHooks(ctx, dir, want); err != nil {
			fmt.Fprintf(env.Stderr, "foya hooks: %v\n", err)
			return ExitFailed
		}
		fmt.Fprintf(env.Stdout, "Approved %s (sha256 %s): its hooks run from the next turn, in the sandbox. "+
			"If the file changes, it must be approved again.\n", p.File, p.Hash)
		return ExitOK
	case "revoke":
		if err := k.RevokeProjectHooks(ctx, dir); err != nil {
			return fail(env, err)
		}
		fmt.Fprintf(env.Stdout, "Revoked: the hooks of %s do not run until you approve it again.\n", h.Project.File)
		return ExitOK
	}
	if a.json {
		printJSON(env.Stdout, h)
		return ExitOK
	}
	showHooksFile(env.Stdout, h.User, false)
	showHooksFile(env.Stdout, h.Project, false)
	return ExitOK
}

// showHooksFile prints a hooks file's status, its hooks and, with content,
// its exact text.
func showHooksFile(w io.Writer, f kernel.HooksFile, content bool) {
	whose := "Your hooks"
	if f.Source == string(hooks.Project) {
		whose = "The project's hooks"
	}
	switch f.Status {
	case kernel.HooksNone:
		fmt.Fprintf(w, "%s: no %s.\n", whose, f.File)
		return
	case kernel.HooksInvalid:
		fmt.Fprintf(w, "%s: %s cannot be used, so none of its hooks runs: %s\n", whose, f.File, f.Error)
	case kernel.HooksExposed:
		fmt.Fprintf(w, "%s: %s: NOT RUN: %s\n", whose, f.File, f.Error)
	case kernel.HooksActive:
		fmt.Fprintf(w, "%s: %s: they run (outside the sandbox unless a hook says \"sandbox\": true).\n", whose, f.File)
	case kernel.HooksApproved:
		fmt.Fprintf(w, "%s: %s: approved by you on %s (sha256 %s); they run in the sandbox.\n", whose, f.File,
			f.ApprovedAt.Format("2006-01-02 15:04 MST"), f.Hash)
	case kernel.HooksChanged:
		fmt.Fprintf(w, "%s: %s: CHANGED since you approved it; not run (sha256 %s): review it and run `foya hooks allow`.\n", whose, f.File, f.Hash)
	default:
		fmt.Fprintf(w, "%s: %s: not approved, not run (sha256 %s): review it and run `foya hooks allow`.\n", whose, f.File, f.Hash)
	}
	for _, h := range f.Hooks {
		match := ""
		if h.Match != "" && h.Event != string(hooks.TurnEnd) {
			match = " " + h.Match
		}
		where := "unsandboxed"
		if h.Sandbox {
			where = "sandboxed"
		}
		fmt.Fprintf(w, "  %-11s %-20s %s, %ds: %s\n", h.Event+match, h.Name, where, h.TimeoutSeconds, sanitize(commandLine(h.Command)))
	}
	if content && f.Content != "" {
		fmt.Fprintf(w, "--- %s\n%s", f.File, sanitize(f.Content))
		if !strings.HasSuffix(f.Content, "\n") {
			fmt.Fprintln(w)
		}
		fmt.Fprintln(w, "---")
	}
}

// commandLine is a command's first line, marked when it has more.
func commandLine(s string) string {
	if l, _, more := strings.Cut(s, "\n"); more {
		return l + " …"
	}
	return s
}
