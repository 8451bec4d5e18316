package trust

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"foya/backend/store"
)

// Rules is the subject of a project's rules file.
const Rules = "rules"

// Hooks is the subject of a project's hooks file (.foya/hooks.json).
const Hooks = "hooks"

// MCP is the subject of a project's MCP server of that name.
func MCP(name string) string { return "mcp:" + name }

// Fingerprint is the hex sha256 of content: what an approval covers.
func Fingerprint(content []byte) string {
	sum := sha256.Sum256(content)
	return hex.EncodeToString(sum[:])
}

// Dir is the key of a workspace: its absolute path with symlinks resolved,
// so two spellings of one folder share one approval.
func Dir(workdir string) (string, error) {
	abs, err := filepath.Abs(workdir)
	if err != nil {
		return "", fmt.Errorf("workspace %s: %w", workdir, err)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real, nil
	}
	return filepath.Clean(abs), nil
}

// Approval is what the user approved of a subject.
type Approval struct {
	// Fingerprint is the Fingerprint of what was approved.
	Fingerprint string
	// Detail is what the subject keeps besides, as JSON ("" for none).
	Detail     string
	ApprovedAt time.Time
}

// Store is what a Ledger needs of the database; *store.Store has it.
type Store interface {
	Trust(ctx context.Context, workdir, subject string) (store.Trust, bool, error)
	SetTrust(ctx context.Context, t store.Trust) error
	DeleteTrust(ctx context.Context, workdir, subject string) error
	Workdirs(ctx context.Context) ([]string, error)
}

// Ledger keeps the approvals of every workspace.
type Ledger struct {
	st  Store
	key func(dir string) string // MapDir's, or nil
}

// MapDir makes fn choose the folder whose approvals a workspace (its Dir)
// shares: an isolated session's copy shares its project folder's, since an
// approval covers exact content wherever it lies. Call it before the
// ledger is used.
func (l *Ledger) MapDir(fn func(dir string) string) { l.key = fn }

// dir is the key of workdir's approvals.
func (l *Ledger) dir(workdir string) (string, error) {
	dir, err := Dir(workdir)
	if err != nil || l.key == nil {
		return dir, err
	}
	return l.key(dir), nil
}

// New returns the ledger of st.
func New(st Store) *Ledger { return &Ledger{st: st} }

// Approval returns the approval of subject in workdir; ok is false when
// there is none. It does not compare fingerprints: Holds does.
func (l *Ledger) Approval(ctx context.Context, workdir, subject string) (a Approval, ok bool, err error) {
	dir, err := l.dir(workdir)
	if err != nil {
		return Approval{}, false, err
	}
	t, ok, err := l.st.Trust(ctx, dir, subject)
	if err != nil || !ok || t.Fingerprint == "" {
		return Approval{}, false, err
	}
	return Approval{Fingerprint: t.Fingerprint, Detail: t.Detail, ApprovedAt: t.ApprovedAt}, true, nil
}

// Holds returns the approval of subject in workdir when it was given for
// fingerprint, the Fingerprint of what is there now. An approval that
// cannot be read approves nothing.
func (l *Ledger) Holds(ctx context.Context, workdir, subject, fingerprint string) (Approval, bool) {
	a, ok, err := l.Approval(ctx, workdir, subject)
	if err != nil || !ok || fingerprint == "" || !strings.EqualFold(a.Fingerprint, fingerprint) {
		return Approval{}, false
	}
	return a, true
}

// Approve records that the user approved subject in workdir as it has a's
// fingerprint; a zero ApprovedAt means now.
func (l *Ledger) Approve(ctx context.Context, workdir, subject string, a Approval) error {
	if a.Fingerprint == "" {
		return fmt.Errorf("approve %s in %s: no fingerprint", subject, workdir)
	}
	dir, err := l.dir(workdir)
	if err != nil {
		return err
	}
	if a.ApprovedAt.IsZero() {
		a.ApprovedAt = time.Now().UTC()
	}
	return l.st.SetTrust(ctx, store.Trust{Workdir: dir, Subject: subject, Fingerprint: strings.ToLower(a.Fingerprint),
		Detail: a.Detail, ApprovedAt: a.ApprovedAt})
}

// Revoke withdraws the approval of subject in workdir, if any.
func (l *Ledger) Revoke(ctx context.Context, workdir, subject string) error {
	dir, err := l.dir(workdir)
	if err != nil {
		return err
	}
	return l.st.DeleteTrust(ctx, dir, subject)
}

// Inside reports whether own, one of Foya's own files (the user's rules,
// the user's MCP servers), lies in workdir (a session opened on the home
// folder, say, or --db inside it). When in doubt it says inside.
func Inside(own, workdir string) bool {
	dir, err := Dir(workdir)
	if err != nil {
		return true
	}
	file, err := Dir(own)
	if err != nil {
		return true
	}
	rel, err := filepath.Rel(dir, file)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// Exposed returns the workspace of a session that holds own, one of Foya's
// own files, and whether there is one; workdir (a run's, or "") is looked
// at first. The agent of that session may write there, so the file is not
// the user's word in any session: a planted mcp.json would otherwise start
// its servers in every other session's runs. When the sessions cannot be
// read it says exposed.
func (l *Ledger) Exposed(ctx context.Context, own, workdir string) (string, bool) {
	if workdir != "" && Inside(own, workdir) {
		return workdir, true
	}
	dirs, err := l.st.Workdirs(ctx)
	if err != nil {
		return "(the sessions could not be read: " + err.Error() + ")", true
	}
	for _, d := range dirs {
		if Inside(own, d) {
			return d, true
		}
	}
	return "", false
}
