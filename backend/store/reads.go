package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// FileRead is what the stale-read guard remembers about one file one
// session read or wrote (see package files).
type FileRead struct {
	SessionID string
	Path      string
	// SHA256 is the digest of the whole content, or empty after a partial
	// read.
	SHA256  string
	Size    int64
	ModTime time.Time
	ReadAt  time.Time
	// Outside says the file changed outside Foya since.
	Outside bool
	// Absent says the session knows nothing is at Path.
	Absent bool
}

// PutFileRead stores r, replacing the session's earlier record of the path.
func (s *Store) PutFileRead(ctx context.Context, r FileRead) error {
	if r.SessionID == "" || r.Path == "" {
		return errors.New("file read: session and path are required")
	}
	return s.inTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO file_reads (session_id, path, sha256, size, mtime, read_at, outside, absent)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (session_id, path) DO UPDATE SET sha256 = excluded.sha256, size = excluded.size,
				mtime = excluded.mtime, read_at = excluded.read_at, outside = excluded.outside, absent = excluded.absent`,
			r.SessionID, r.Path, r.SHA256, r.Size, nanos(r.ModTime), nanos(r.ReadAt), r.Outside, r.Absent)
		if err != nil {
			return noSessionFK(r.SessionID, err)
		}
		return nil
	})
}

// noSessionFK names the session when a row refers to one that does not exist.
func noSessionFK(id string, err error) error {
	if err != nil && strings.Contains(err.Error(), "FOREIGN KEY") {
		return fmt.Errorf("session %s: %w", id, ErrNotFound)
	}
	return err
}

const readCols = `session_id, path, sha256, size, mtime, read_at, outside, absent`

func scanRead(sc interface{ Scan(...any) error }) (FileRead, error) {
	var r FileRead
	var mtime, readAt int64
	err := sc.Scan(&r.SessionID, &r.Path, &r.SHA256, &r.Size, &mtime, &readAt, &r.Outside, &r.Absent)
	r.ModTime, r.ReadAt = fromNanos(mtime), fromNanos(readAt)
	return r, err
}

// FileRead returns a session's record of one path, or an error wrapping
// ErrNotFound.
func (s *Store) FileRead(ctx context.Context, sessionID, path string) (FileRead, error) {
	r, err := scanRead(s.r.QueryRowContext(ctx, `SELECT `+readCols+` FROM file_reads WHERE session_id = ? AND path = ?`, sessionID, path))
	if errors.Is(err, sql.ErrNoRows) {
		return r, fmt.Errorf("file read %s in session %s: %w", path, sessionID, ErrNotFound)
	}
	return r, s.wrapRead(err)
}

// FileReads returns a session's records, by path.
func (s *Store) FileReads(ctx context.Context, sessionID string) ([]FileRead, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+readCols+` FROM file_reads WHERE session_id = ? ORDER BY path`, sessionID)
	if err != nil {
		return nil, s.wrap(err)
	}
	defer rows.Close()
	var out []FileRead
	for rows.Next() {
		r, err := scanRead(rows)
		if err != nil {
			return nil, s.wrap(err)
		}
		out = append(out, r)
	}
	return out, s.wrap(rows.Err())
}

// MarkFileReadOutside notes that a path changed outside Foya since the
// session saw it; it reports whether the record was not marked before.
func (s *Store) MarkFileReadOutside(ctx context.Context, sessionID, path string) (bool, error) {
	var first bool
	err := s.inTx(ctx, func(tx *sql.Tx) (err error) {
		first, err = markOutside(ctx, tx, sessionID, path)
		return err
	})
	return first, err
}

// markOutside marks the session's record of path as changed outside its
// view; it reports whether the record was not marked before.
func markOutside(ctx context.Context, tx *sql.Tx, sessionID, path string) (bool, error) {
	res, err := tx.ExecContext(ctx, `UPDATE file_reads SET outside = 1 WHERE session_id = ? AND path = ? AND outside = 0`, sessionID, path)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}
