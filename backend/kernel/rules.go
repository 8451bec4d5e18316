package kernel

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"

	"foya/backend/approval"
	"foya/backend/trust"
)

// A project's rules file (.foya/permissions.json) grants nothing until the
// user approved its exact content: its approval is kept in the trust
// ledger (package trust), keyed by the workspace's real path, and a file
// whose content changed is unapproved again. Deny and ask rules apply
// either way. The user's own rules live in Foya's data folder
// (approval.UserRulesFile).

// ProjectRules reads a workspace's rules file and says whether the user
// approved this exact content.
func (k *Kernel) ProjectRules(ctx context.Context, workdir string) (ProjectRules, error) {
	dir, err := trust.Dir(workdir)
	if err != nil {
		return ProjectRules{}, err
	}
	pr := ProjectRules{Workdir: dir, File: filepath.Join(dir, approval.RulesFile), Status: RulesNone}
	data, err := os.ReadFile(pr.File)
	if errors.Is(err, os.ErrNotExist) {
		return pr, nil
	}
	if err != nil {
		pr.Status, pr.Error = RulesInvalid, err.Error()
		return pr, nil
	}
	pr.Content, pr.Hash = string(data), trust.Fingerprint(data)
	r, err := approval.ParseRules(data, dir)
	if err != nil {
		pr.Status, pr.Error = RulesInvalid, err.Error()
		return pr, nil
	}
	pr.Allow, pr.Ask, pr.Deny = mapSlice(r.Allow, ruleOf), mapSlice(r.Ask, ruleOf), mapSlice(r.Deny, ruleOf)
	a, ok, err := k.trust.Approval(ctx, dir, trust.Rules)
	if err != nil {
		return ProjectRules{}, err
	}
	switch {
	case !ok:
		pr.Status = RulesUnapproved
	case a.Fingerprint != pr.Hash:
		pr.Status = RulesChanged
	default:
		pr.Status = RulesApproved
		at := a.ApprovedAt
		pr.ApprovedAt = &at
	}
	return pr, nil
}

// TrustProjectRules approves a workspace's rules file, but only if its
// content still has hash: the content the user reviewed. Approving a file
// that cannot be parsed is refused.
func (k *Kernel) TrustProjectRules(ctx context.Context, workdir, hash string) error {
	pr, err := k.ProjectRules(ctx, workdir)
	if err != nil {
		return err
	}
	switch {
	case pr.Status == RulesNone:
		return kindf(ErrNotFound, "%s has no %s to approve", pr.Workdir, approval.RulesFile)
	case pr.Status == RulesInvalid:
		return kindf(ErrInvalid, "%s cannot be approved: %s; fix it first", pr.File, pr.Error)
	case !strings.EqualFold(strings.TrimSpace(hash), pr.Hash):
		return kindf(ErrConflict, "%s changed since it was shown (sha256 %s, not %s): review it again", pr.File, pr.Hash, hash)
	}
	return k.trust.Approve(ctx, pr.Workdir, trust.Rules, trust.Approval{Fingerprint: pr.Hash})
}

// RevokeProjectRules withdraws the approval of a workspace's rules file: its
// allow rules are ignored again.
func (k *Kernel) RevokeProjectRules(ctx context.Context, workdir string) error {
	return k.trust.Revoke(ctx, workdir, trust.Rules)
}

// rulesFor gives the engine the rules of a workspace at each decision: the
// user's own, then the project's, marked approved only when the approved
// hash is the hash of the bytes just read.
func (k *Kernel) rulesFor(ctx context.Context, workdir string) []*approval.Rules {
	var out []*approval.Rules
	if _, exposed := k.trust.Exposed(ctx, k.userRules, workdir); k.userRules != "" && !exposed {
		out = append(out, approval.LoadUserRules(k.userRules, workdir))
	}
	p := approval.LoadRules(workdir)
	if p != nil && p.Err == nil {
		if a, ok := k.trust.Holds(ctx, workdir, trust.Rules, p.Hash); ok {
			p.Approved = a.ApprovedAt
		}
	}
	return append(out, p)
}

// UserRulesFile is the path of the user's own rules file.
func (k *Kernel) UserRulesFile() string { return k.userRules }
