package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Comment is a review comment as kept: the user's words on a range of
// lines of a file change's after side (package kernel owns what the
// fields mean and works out the rest of its state).
type Comment struct {
	ID        string
	SessionID string
	ChangeID  string
	// Path is the changed file's absolute path.
	Path string
	// StartLine and EndLine number the lines, from 1, both included.
	StartLine, EndLine int
	// Quote is the lines as they were when the comment was made.
	Quote string
	Text  string
	// SeenChange is the session's last change when the comment was made.
	SeenChange string
	CreatedAt  time.Time
	UpdatedAt  time.Time
	// SentAt is zero until the comment went to the agent, in run SentRun.
	SentAt  time.Time
	SentRun string
}

const commentCols = `id, session_id, change_id, path, start_line, end_line, quote, body, seen_change, created_at, updated_at, sent_at, sent_run`

func scanComment(row interface{ Scan(...any) error }) (Comment, error) {
	var c Comment
	var created, updated, sent int64
	err := row.Scan(&c.ID, &c.SessionID, &c.ChangeID, &c.Path, &c.StartLine, &c.EndLine, &c.Quote, &c.Text, &c.SeenChange,
		&created, &updated, &sent, &c.SentRun)
	c.CreatedAt, c.UpdatedAt, c.SentAt = fromNanos(created), fromNanos(updated), fromNanos(sent)
	return c, err
}

// PutComment stores a new comment.
func (s *Store) PutComment(ctx context.Context, c Comment) error {
	return s.inTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO review_comments (`+commentCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			c.ID, c.SessionID, c.ChangeID, c.Path, c.StartLine, c.EndLine, c.Quote, c.Text, c.SeenChange,
			nanos(c.CreatedAt), nanos(c.UpdatedAt), nanos(c.SentAt), c.SentRun)
		return err
	})
}

// Comment returns one comment.
func (s *Store) Comment(ctx context.Context, id string) (Comment, error) {
	c, err := scanComment(s.r.QueryRowContext(ctx, `SELECT `+commentCols+` FROM review_comments WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return c, fmt.Errorf("comment %s: %w", id, ErrNotFound)
	}
	return c, s.wrapRead(err)
}

// Comments returns a session's comments, oldest first.
func (s *Store) Comments(ctx context.Context, sessionID string) ([]Comment, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+commentCols+` FROM review_comments WHERE session_id = ? ORDER BY created_at, rowid`, sessionID)
	if err != nil {
		return nil, s.wrapRead(err)
	}
	defer rows.Close()
	var out []Comment
	for rows.Next() {
		c, err := scanComment(rows)
		if err != nil {
			return nil, s.wrapRead(err)
		}
		out = append(out, c)
	}
	return out, s.wrapRead(rows.Err())
}

// SetCommentText replaces a comment's text.
func (s *Store) SetCommentText(ctx context.Context, id, text string, at time.Time) error {
	return s.changeComment(ctx, id, `UPDATE review_comments SET body = ?, updated_at = ? WHERE id = ?`, text, nanos(at), id)
}

// DeleteComment removes a comment.
func (s *Store) DeleteComment(ctx context.Context, id string) error {
	return s.changeComment(ctx, id, `DELETE FROM review_comments WHERE id = ?`, id)
}

// MarkCommentsSent records that the comments went to the agent in run
// runID, in one transaction.
func (s *Store) MarkCommentsSent(ctx context.Context, ids []string, runID string, at time.Time) error {
	return s.inTx(ctx, func(tx *sql.Tx) error {
		for _, id := range ids {
			if _, err := tx.ExecContext(ctx, `UPDATE review_comments SET sent_at = ?, sent_run = ? WHERE id = ?`, nanos(at), runID, id); err != nil {
				return err
			}
		}
		return nil
	})
}

// changeComment runs one statement on comment id; ErrNotFound when it
// changed no row.
func (s *Store) changeComment(ctx context.Context, id, query string, args ...any) error {
	var n int64
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, query, args...)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err == nil && n == 0 {
		return fmt.Errorf("comment %s: %w", id, ErrNotFound)
	}
	return err
}
