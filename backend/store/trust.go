package store

import (
	"context"
	"database/sql"
	"errors"
	"time"
)

// Trust is the user's approval of something in a workspace that Foya does
// not act on until approved: a project's rules file, a project's MCP
// server (see package trust, which owns what the fields mean).
type Trust struct {
	// Workdir is the workspace's real path.
	Workdir string
	// Subject names what was approved ("rules", "mcp:NAME").
	Subject string
	// Fingerprint is the hex sha256 of what was approved.
	Fingerprint string
	// Detail is what the subject keeps besides, as JSON ("" for none).
	Detail     string
	ApprovedAt time.Time
}

// Trust returns the approval of subject in workdir; ok is false when there
// is none.
func (s *Store) Trust(ctx context.Context, workdir, subject string) (t Trust, ok bool, err error) {
	var at string
	err = s.r.QueryRowContext(ctx, `SELECT fingerprint, detail, approved_at FROM trust WHERE workdir = ? AND subject = ?`,
		workdir, subject).Scan(&t.Fingerprint, &t.Detail, &at)
	if errors.Is(err, sql.ErrNoRows) {
		return Trust{}, false, nil
	}
	if err != nil {
		return Trust{}, false, s.wrapRead(err)
	}
	t.Workdir, t.Subject = workdir, subject
	t.ApprovedAt, _ = time.Parse(time.RFC3339Nano, at) // a time that cannot be read is not known
	return t, true, nil
}

// SetTrust stores an approval, replacing the one of its subject.
func (s *Store) SetTrust(ctx context.Context, t Trust) error {
	return s.inTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO trust (workdir, subject, fingerprint, detail, approved_at) VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (workdir, subject) DO UPDATE SET fingerprint = excluded.fingerprint, detail = excluded.detail,
			approved_at = excluded.approved_at`, t.Workdir, t.Subject, t.Fingerprint, t.Detail, t.ApprovedAt.UTC().Format(time.RFC3339Nano))
		return err
	})
}

// DeleteTrust withdraws the approval of subject in workdir, if any.
func (s *Store) DeleteTrust(ctx context.Context, workdir, subject string) error {
	return s.inTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM trust WHERE workdir = ? AND subject = ?`, workdir, subject)
		return err
	})
}
