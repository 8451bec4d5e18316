package kernel

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"foya/backend/approval"
)

// A project's rules file (.foya/permissions.json) grants nothing until the
// user approved its exact content: like direnv's allow or an editor's
// workspace trust, the sha256 of the approved bytes is kept in Foya's
// database, keyed by the workspace's real path, and a file whose content
// changed is unapproved again. Deny and ask rules apply either way. The
// user's own rules live in Foya's data folder (approval.UserRulesFile).

// settingRulesPrefix keys the approvals of project rules files in the
// settings table; users cannot set them with SetSetting.
const settingRulesPrefix = "rules.approved:"

type rulesApproval struct {
	Hash       string    `json:"sha256"`
	ApprovedAt time.Time `json:"approvedAt"`
}

// realDir is the key of a workspace: its absolute path with symlinks
// resolved, so two spellings of one folder share one approval.
func realDir(workdir string) (string, error) {
	abs, err := filepath.Abs(workdir)
	if err != nil {
		return "", fmt.Errorf("workspace %s: %w", workdir, err)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real, nil
	}
	return filepath.Clean(abs), nil
}

func (k *Kernel) rulesApproval(ctx context.Context, dir string) (rulesApproval, error) {
	var a rulesApproval
	v, ok, err := k.store.Setting(ctx, settingRulesPrefix+dir)
	if err != nil || !ok || v == "" {
		return a, err
	}
	if err := json.Unmarshal([]byte(v), &a); err != nil {
		return rulesApproval{}, nil // an unreadable approval approves nothing
	}
	return a, nil
}

// ProjectRules reads a workspace's rules file and says whether the user
// approved this exact content.
func (k *Kernel) ProjectRules(ctx context.Context, workdir string) (ProjectRules, error) {
	dir, err := realDir(workdir)
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
	sum := sha256.Sum256(data)
	pr.Content, pr.Hash = string(data), hex.EncodeToString(sum[:])
	r, err := approval.ParseRules(data, dir)
	if err != nil {
		pr.Status, pr.Error = RulesInvalid, err.Error()
		return pr, nil
	}
	pr.Allow, pr.Ask, pr.Deny = mapSlice(r.Allow, ruleOf), mapSlice(r.Ask, ruleOf), mapSlice(r.Deny, ruleOf)
	a, err := k.rulesApproval(ctx, dir)
	if err != nil {
		return ProjectRules{}, err
	}
	switch {
	case a.Hash == "":
		pr.Status = RulesUnapproved
	case a.Hash != pr.Hash:
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
	v, _ := json.Marshal(rulesApproval{Hash: pr.Hash, ApprovedAt: time.Now().UTC()})
	return k.store.SetSetting(ctx, settingRulesPrefix+pr.Workdir, string(v))
}

// RevokeProjectRules withdraws the approval of a workspace's rules file: its
// allow rules are ignored again.
func (k *Kernel) RevokeProjectRules(ctx context.Context, workdir string) error {
	dir, err := realDir(workdir)
	if err != nil {
		return err
	}
	return k.store.SetSetting(ctx, settingRulesPrefix+dir, "")
}

// rulesFor gives the engine the rules of a workspace at each decision: the
// user's own, then the project's, marked approved only when the approved
// hash is the hash of the bytes just read.
func (k *Kernel) rulesFor(ctx context.Context, workdir string) []*approval.Rules {
	var out []*approval.Rules
	if _, exposed := k.exposedIn(ctx, k.userRules, workdir); k.userRules != "" && !exposed {
		out = append(out, approval.LoadUserRules(k.userRules, workdir))
	}
	p := approval.LoadRules(workdir)
	if p != nil && p.Err == nil {
		if dir, err := realDir(workdir); err == nil {
			if a, err := k.rulesApproval(ctx, dir); err == nil && a.Hash != "" && a.Hash == p.Hash {
				p.Approved = a.ApprovedAt
			}
		}
	}
	return append(out, p)
}

// insideWorkspace reports whether one of Foya's own files (the user's
// rules, the user's MCP servers) lies in the workspace (a session opened on
// the home folder, say, or --db inside it). The agent may write there, so
// such a file is not the user's word and is not read for that session's
// runs (issue 21 item 3). When in doubt it says inside.
func insideWorkspace(own, workdir string) bool {
	dir, err := realDir(workdir)
	if err != nil {
		return true
	}
	file, err := realDir(own)
	if err != nil {
		return true
	}
	rel, err := filepath.Rel(dir, file)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// exposedIn returns the workspace of a session that holds own, one of
// Foya's own files, and whether there is one; workdir (the run's, or "")
// is looked at first. The agent of that session could have written the
// file, so it is not the user's word in any session: a planted mcp.json
// would otherwise start its servers in every other session's runs. When
// the sessions cannot be read it says exposed.
func (k *Kernel) exposedIn(ctx context.Context, own, workdir string) (string, bool) {
	if workdir != "" && insideWorkspace(own, workdir) {
		return workdir, true
	}
	dirs, err := k.store.Workdirs(ctx)
	if err != nil {
		return "(the sessions could not be read: " + err.Error() + ")", true
	}
	for _, d := range dirs {
		if insideWorkspace(own, d) {
			return d, true
		}
	}
	return "", false
}

// UserRulesFile is the path of the user's own rules file.
func (k *Kernel) UserRulesFile() string { return k.userRules }
