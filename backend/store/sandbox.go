package store

import (
	"context"
	"database/sql"
	"time"
)

// SandboxGrant is a stored sandbox grant of a session: Kind "write" with
// Folder, or "network"; Once for the session's next command only.
type SandboxGrant struct {
	ID        int64
	SessionID string
	Kind      string
	Folder    string
	Once      bool
	CreatedAt time.Time
}

// AddSandboxGrant stores a grant and returns it with its ID. The same
// grant stored again is the one already there. An unknown session is
// ErrNotFound.
func (s *Store) AddSandboxGrant(ctx context.Context, g SandboxGrant) (SandboxGrant, error) {
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM sessions WHERE id = ?`, g.SessionID).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			return ErrNotFound
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO sandbox_grants (session_id, kind, folder, once, created_at)
			VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`, g.SessionID, g.Kind, g.Folder, g.Once, nanos(g.CreatedAt)); err != nil {
			return err
		}
		var created int64
		if err := tx.QueryRowContext(ctx, `SELECT id, created_at FROM sandbox_grants
			WHERE session_id = ? AND kind = ? AND folder = ? AND once = ?`, g.SessionID, g.Kind, g.Folder, g.Once).Scan(&g.ID, &created); err != nil {
			return err
		}
		g.CreatedAt = fromNanos(created)
		return nil
	})
	return g, s.wrap(err)
}

// SandboxGrants returns a session's grants, oldest first.
func (s *Store) SandboxGrants(ctx context.Context, sessionID string) ([]SandboxGrant, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT id, kind, folder, once, created_at FROM sandbox_grants
		WHERE session_id = ? ORDER BY id`, sessionID)
	if err != nil {
		return nil, s.wrap(err)
	}
	defer rows.Close()
	var out []SandboxGrant
	for rows.Next() {
		g := SandboxGrant{SessionID: sessionID}
		var created int64
		if err := rows.Scan(&g.ID, &g.Kind, &g.Folder, &g.Once, &created); err != nil {
			return nil, s.wrap(err)
		}
		g.CreatedAt = fromNanos(created)
		out = append(out, g)
	}
	return out, s.wrap(rows.Err())
}

// DeleteSandboxGrants removes a session's grants by ID and reports how
// many there were; IDs of other sessions are left alone.
func (s *Store) DeleteSandboxGrants(ctx context.Context, sessionID string, ids ...int64) (int, error) {
	n := 0
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		for _, id := range ids {
			r, err := tx.ExecContext(ctx, `DELETE FROM sandbox_grants WHERE session_id = ? AND id = ?`, sessionID, id)
			if err != nil {
				return err
			}
			k, _ := r.RowsAffected()
			n += int(k)
		}
		return nil
	})
	return n, s.wrap(err)
}
