package kernel

import (
	"context"
	"strings"
	"time"

	"foya/backend/hooks"
	"foya/backend/sandbox"
	"foya/backend/trust"
)

// Hooks (docs/hooks.md): the user's own hooks file lives beside the
// user's rules (hooks.UserFile in the data folder) and runs as the user
// set it; a project's (.foya/hooks.json) runs only while the user
// approved its exact content, kept in the trust ledger like a project's
// rules, and always in the sandbox of its workspace. The engine reads the
// set at each turn's start (hooksFor).

// Hooks reads a workspace's hooks files and says whether their hooks run.
func (k *Kernel) Hooks(ctx context.Context, workdir string) (Hooks, error) {
	dir, err := trust.Dir(workdir)
	if err != nil {
		return Hooks{}, err
	}
	out := Hooks{Workdir: dir, User: HooksFile{Source: string(hooks.User), File: k.userHooks, Status: HooksNone}}
	if k.userHooks != "" {
		f := hooks.Read(k.userHooks, hooks.User)
		out.User = fileOf(f, hooks.User)
		if f.Exists && f.Err == nil {
			out.User.Status = HooksActive
			if where, exposed := k.trust.Exposed(ctx, k.userHooks, dir); exposed {
				out.User.Status = HooksExposed
				out.User.Error = "it lies in the workspace of a session (" + where + "), whose agent could have written it, " +
					"so its hooks do not run: keep Foya's data folder outside your projects"
			}
		}
	}
	f := hooks.ReadProject(dir)
	out.Project = fileOf(f, hooks.Project)
	if !f.Exists || f.Err != nil {
		return out, nil
	}
	a, ok, err := k.trust.Approval(ctx, dir, trust.Hooks)
	if err != nil {
		return Hooks{}, err
	}
	switch {
	case !ok:
		out.Project.Status = HooksUnapproved
	case !strings.EqualFold(a.Fingerprint, out.Project.Hash):
		out.Project.Status = HooksChanged
	default:
		out.Project.Status = HooksApproved
		at := a.ApprovedAt
		out.Project.ApprovedAt = &at
	}
	return out, nil
}

// fileOf is a hooks file as the API shows it; its status is none or
// invalid, for the caller to set otherwise.
func fileOf(f hooks.File, src hooks.Source) HooksFile {
	out := HooksFile{Source: string(src), File: f.Path, Status: HooksNone, Hooks: []HookInfo{}}
	if !f.Exists {
		return out
	}
	if f.Content != nil {
		out.Content, out.Hash = string(f.Content), trust.Fingerprint(f.Content)
	}
	if f.Err != nil {
		out.Status, out.Error = HooksInvalid, f.Err.Error()
		return out
	}
	for _, h := range f.Hooks {
		out.Hooks = append(out.Hooks, HookInfo{Name: h.Name, Event: string(h.Event), Match: h.Match, Command: h.Command,
			TimeoutSeconds: int(h.Timeout / time.Second), Sandbox: h.Sandbox})
	}
	return out
}

// TrustProjectHooks approves a workspace's hooks file, but only if its
// content still has hash: the content the user reviewed. A file that
// cannot be parsed cannot be approved.
func (k *Kernel) TrustProjectHooks(ctx context.Context, workdir, hash string) error {
	h, err := k.Hooks(ctx, workdir)
	if err != nil {
		return err
	}
	p := h.Project
	switch {
	case p.Status == HooksNone:
		return kindf(ErrNotFound, "%s has no %s to approve", h.Workdir, hooks.ProjectFile)
	case p.Status == HooksInvalid:
		return kindf(ErrInvalid, "%s cannot be approved: %s; fix it first", p.File, p.Error)
	case !strings.EqualFold(strings.TrimSpace(hash), p.Hash):
		return kindf(ErrConflict, "%s changed since it was shown (sha256 %s, not %s): review it again", p.File, p.Hash, hash)
	}
	return k.trust.Approve(ctx, h.Workdir, trust.Hooks, trust.Approval{Fingerprint: p.Hash})
}

// RevokeProjectHooks withdraws the approval of a workspace's hooks file:
// its hooks stop running from the next turn.
func (k *Kernel) RevokeProjectHooks(ctx context.Context, workdir string) error {
	return k.trust.Revoke(ctx, workdir, trust.Hooks)
}

// UserHooksFile is the path of the user's own hooks file.
func (k *Kernel) UserHooksFile() string { return k.userHooks }

// hooksFor gives the engine the hooks of a workspace at a turn's start:
// the user's own, then the project's if the approved hash is the hash of
// the bytes just read; the others are named with why they do not run.
func (k *Kernel) hooksFor(ctx context.Context, workdir string) hooks.Set {
	set := hooks.Set{Runner: k.hookRunner}
	h, err := k.Hooks(ctx, workdir)
	if err != nil {
		set.Skipped = append(set.Skipped, hooks.Skip{Source: hooks.Project, File: hooks.ProjectFile,
			Why: "the hooks files could not be read, so no hook runs this turn: " + err.Error()})
		return set
	}
	for _, f := range []HooksFile{h.User, h.Project} {
		src := hooks.Source(f.Source)
		switch f.Status {
		case HooksNone:
			continue
		case HooksActive, HooksApproved:
			// Parsed again from the bytes that were fingerprinted: what
			// runs is what was approved.
			hs, err := hooks.Parse([]byte(f.Content), src, f.File)
			if err != nil {
				set.Skipped = append(set.Skipped, hooks.Skip{Source: src, File: f.File, Why: "it cannot be used: " + err.Error()})
				continue
			}
			set.Hooks = append(set.Hooks, hs...)
		case HooksInvalid:
			set.Skipped = append(set.Skipped, hooks.Skip{Source: src, File: f.File, Why: "it cannot be used, so none of its hooks runs: " + f.Error})
		case HooksUnapproved:
			set.Skipped = append(set.Skipped, hooks.Skip{Source: src, File: f.File, Why: "not approved: its hooks do not run until you approve " +
				"this exact content (Settings, or foya hooks allow)"})
		case HooksChanged:
			set.Skipped = append(set.Skipped, hooks.Skip{Source: src, File: f.File, Why: "changed since you approved it: its hooks do not run " +
				"until you approve the new content (Settings, or foya hooks allow)"})
		case HooksExposed:
			set.Skipped = append(set.Skipped, hooks.Skip{Source: src, File: f.File, Why: f.Error})
		}
	}
	return set
}

// newHookRunner runs hooks with the environment commands get; a
// sandboxed hook gets the confinement of a sandboxed command of its
// workspace (the shell's), with the session's temp folder as its TMPDIR.
func newHookRunner(k *Kernel) *hooks.Runner {
	return &hooks.Runner{
		Environ: k.commandEnv,
		Confine: func(workdir string) (sandbox.Policy, func() []string) {
			c := k.shell.Confine(workdir)
			return c.Policy, func() []string { return c.Sweep("the hook") }
		},
		TempDir: k.shell.TempDir,
	}
}
