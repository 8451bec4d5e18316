package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"foya/backend/llm"
)

// toReview is the condition, on a file_changes row f, that the change
// waits for review: no person marked it as reviewed, and it is not a
// revert (a person made those). The session list counts these, and
// ToReview counts them the same way.
const toReview = `coalesce(json_extract(f.body, '$.revertOf'), '') = ''
	AND NOT EXISTS (SELECT 1 FROM change_reviews cr WHERE cr.change_id = f.id)`

// reviewedCol is, on a file_changes row, whether it is marked as reviewed.
const reviewedCol = `EXISTS (SELECT 1 FROM change_reviews cr WHERE cr.change_id = file_changes.id)`

// putReview marks one change as reviewed or as not reviewed. The change
// must be of the session the mark names.
func putReview(ctx context.Context, tx *sql.Tx, m llm.ReviewMark, now time.Time) error {
	var sess string
	err := tx.QueryRowContext(ctx, `SELECT session_id FROM file_changes WHERE id = ?`, m.ChangeID).Scan(&sess)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("review mark: file change %s: %w", m.ChangeID, ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("review mark %s: %w", m.ChangeID, err)
	}
	if sess != m.SessionID {
		return fmt.Errorf("review mark: file change %s is of session %s, not %s", m.ChangeID, sess, m.SessionID)
	}
	if m.Reviewed {
		_, err = tx.ExecContext(ctx, `INSERT INTO change_reviews (change_id, session_id, reviewed_at) VALUES (?, ?, ?)
			ON CONFLICT (change_id) DO NOTHING`, m.ChangeID, m.SessionID, now.UnixNano())
	} else {
		_, err = tx.ExecContext(ctx, `DELETE FROM change_reviews WHERE change_id = ?`, m.ChangeID)
	}
	if err != nil {
		return fmt.Errorf("review mark %s: %w", m.ChangeID, err)
	}
	return nil
}

// ToReview counts a session's changes that wait for review (see
// llm.Session.ToReview).
func (s *Store) ToReview(ctx context.Context, sessionID string) (int, error) {
	var n int
	err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM file_changes f WHERE f.session_id = ? AND `+toReview, sessionID).Scan(&n)
	return n, s.wrapRead(err)
}
