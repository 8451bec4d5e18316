package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"foya/backend/llm"
)

// CreateSession stores a new session. CreatedAt and UpdatedAt default to now.
func (s *Store) CreateSession(ctx context.Context, sess llm.Session) (llm.Session, error) {
	_, err := s.Apply(ctx, llm.Commit{Session: &sess, NewSession: true})
	return sess, err
}

// UpdateSession changes a session's title, approval mode, provider, model and
// tool allowlist.
func (s *Store) UpdateSession(ctx context.Context, sess llm.Session) error {
	_, err := s.Apply(ctx, llm.Commit{Session: &sess})
	return err
}

// putSession creates the session's row (create) or updates it, filling in
// sess's times.
func putSession(ctx context.Context, tx *sql.Tx, sess *llm.Session, create bool, now time.Time) error {
	tools, err := toolsJSON(sess.Tools)
	if err != nil {
		return err
	}
	if !create {
		sess.UpdatedAt = now
		res, err := tx.ExecContext(ctx, `UPDATE sessions SET title = ?, title_by_user = ?, approval_mode = ?, provider = ?, model = ?,
			tools = ?, updated_at = ? WHERE id = ?`,
			sess.Title, sess.TitleByUser, sess.ApprovalMode, sess.Provider, sess.Model, tools, nanos(sess.UpdatedAt), sess.ID)
		if err != nil {
			return fmt.Errorf("session %s: %w", sess.ID, err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("session %s: %w", sess.ID, ErrNotFound)
		}
		return nil
	}
	if sess.ID == "" || sess.Workdir == "" || sess.ApprovalMode == "" {
		return errors.New("create session: id, workdir and approval mode are required")
	}
	if sess.CreatedAt.IsZero() {
		sess.CreatedAt = now
	}
	sess.UpdatedAt = sess.CreatedAt
	_, err = tx.ExecContext(ctx, `INSERT INTO sessions
		(id, title, title_by_user, project_id, workdir, approval_mode, provider, model, tools, created_at, updated_at,
		forked_from, forked_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		sess.ID, sess.Title, sess.TitleByUser, sess.ProjectID, sess.Workdir, sess.ApprovalMode, sess.Provider, sess.Model,
		tools, nanos(sess.CreatedAt), nanos(sess.UpdatedAt), sess.ForkedFrom, sess.ForkedAt)
	if err != nil {
		return fmt.Errorf("create session: %w", err)
	}
	return nil
}

// putIsolation stores iso as session id's isolation.
func putIsolation(ctx context.Context, tx *sql.Tx, id string, iso *llm.Isolation) error {
	if id == "" || iso.Kind == "" || iso.Dir == "" || iso.Folder == "" {
		return errors.New("session isolation: session, kind, folder and copy are required")
	}
	unc := iso.Uncommitted
	if unc == nil {
		unc = []string{}
	}
	b, err := json.Marshal(unc)
	if err != nil {
		return err
	}
	var discarded int64
	if !iso.DiscardedAt.IsZero() {
		discarded = nanos(iso.DiscardedAt)
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO session_isolation
		(session_id, kind, dir, folder, repo, branch, base, uncommitted, note, setup, discarded_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (session_id) DO UPDATE SET kind = excluded.kind, dir = excluded.dir, folder = excluded.folder,
		repo = excluded.repo, branch = excluded.branch, base = excluded.base, uncommitted = excluded.uncommitted,
		note = excluded.note, setup = excluded.setup, discarded_at = excluded.discarded_at`,
		id, iso.Kind, iso.Dir, iso.Folder, iso.Repo, iso.Branch, iso.Base, string(b), iso.Note, iso.Setup, discarded)
	if err != nil {
		return fmt.Errorf("session %s: isolation: %w", id, err)
	}
	return nil
}

// putTitle makes title the session's title unless the user gave it one
// (Commit.Title).
func putTitle(ctx context.Context, tx *sql.Tx, sessionID, title string, now time.Time) error {
	_, err := tx.ExecContext(ctx, `UPDATE sessions SET title = ?, updated_at = ? WHERE id = ? AND title_by_user = 0`,
		title, nanos(now), sessionID)
	if err != nil {
		return fmt.Errorf("session %s: title: %w", sessionID, err)
	}
	return nil
}

// retitle makes r.Title the session's title unless the user named the
// session or it has that title already: then it returns an error wrapping
// llm.ErrTitleKept, and the commit is not stored (Commit.Retitle).
func retitle(ctx context.Context, tx *sql.Tx, r *llm.Retitle, now time.Time) error {
	res, err := tx.ExecContext(ctx, `UPDATE sessions SET title = ?, updated_at = ? WHERE id = ? AND title_by_user = 0 AND title <> ?`,
		r.Title, nanos(now), r.SessionID, r.Title)
	if err != nil {
		return fmt.Errorf("session %s: title: %w", r.SessionID, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("session %s: title: %w", r.SessionID, err)
	} else if n == 0 {
		return fmt.Errorf("session %s: %w", r.SessionID, llm.ErrTitleKept)
	}
	return nil
}

// DeleteSession removes a session and everything it owns.
func (s *Store) DeleteSession(ctx context.Context, id string) error {
	return s.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE id = ?`, id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("session %s: %w", id, ErrNotFound)
		}
		// Blobs are shared between sessions (content addressing): only
		// those nothing refers to any more go.
		_, err = tx.ExecContext(ctx, `DELETE FROM blobs WHERE sha256 NOT IN (
			SELECT sha256 FROM artifacts
			UNION SELECT json_extract(body, '$.shaBefore') FROM file_changes WHERE json_extract(body, '$.shaBefore') IS NOT NULL
			UNION SELECT json_extract(body, '$.shaAfter') FROM file_changes WHERE json_extract(body, '$.shaAfter') IS NOT NULL
			UNION SELECT json_extract(p.value, '$.sha256') FROM tool_calls c, json_each(c.args_ref, '$.pieces') p
				WHERE c.args_ref IS NOT NULL AND json_extract(p.value, '$.sha256') IS NOT NULL)`)
		return err
	})
}

const sessionCols = `s.id, s.title, s.title_by_user, s.project_id, s.workdir, s.approval_mode, s.provider, s.model, s.tools,
	s.created_at, s.updated_at, s.last_seq, (SELECT count(*) FROM runs r WHERE r.session_id = s.id AND r.parent_call_id = ''),
	(SELECT count(*) FROM file_changes f WHERE f.session_id = s.id AND ` + toReview + `), s.forked_from, s.forked_at,
	i.kind, i.dir, i.folder, i.repo, i.branch, i.base, i.uncommitted, i.note, i.setup, i.discarded_at`

// sessionFrom is the FROM clause sessionCols reads.
const sessionFrom = ` FROM sessions s LEFT JOIN session_isolation i ON i.session_id = s.id`

func scanSession(sc interface{ Scan(...any) error }) (llm.Session, error) {
	var sess llm.Session
	var tools sql.NullString
	var created, updated int64
	var kind, dir, folder, repo, branch, base, uncommitted, note, setup sql.NullString
	var discarded sql.NullInt64
	err := sc.Scan(&sess.ID, &sess.Title, &sess.TitleByUser, &sess.ProjectID, &sess.Workdir, &sess.ApprovalMode, &sess.Provider,
		&sess.Model, &tools, &created, &updated, &sess.LastSeq, &sess.Runs, &sess.ToReview,
		&sess.ForkedFrom, &sess.ForkedAt,
		&kind, &dir, &folder, &repo, &branch, &base, &uncommitted, &note, &setup, &discarded)
	if err != nil {
		return sess, err
	}
	if kind.Valid {
		iso := &llm.Isolation{Kind: kind.String, Dir: dir.String, Folder: folder.String, Repo: repo.String, Branch: branch.String,
			Base: base.String, Note: note.String, Setup: setup.String}
		if discarded.Int64 != 0 {
			iso.DiscardedAt = fromNanos(discarded.Int64)
		}
		if err := json.Unmarshal([]byte(uncommitted.String), &iso.Uncommitted); err != nil {
			return sess, fmt.Errorf("session %s: isolation: %w", sess.ID, err)
		}
		sess.Isolation = iso
	}
	sess.CreatedAt, sess.UpdatedAt = fromNanos(created), fromNanos(updated)
	if tools.Valid {
		if err := json.Unmarshal([]byte(tools.String), &sess.Tools); err != nil {
			return sess, fmt.Errorf("session %s: tool allowlist: %w", sess.ID, err)
		}
	}
	return sess, nil
}

// Session returns one session.
func (s *Store) Session(ctx context.Context, id string) (llm.Session, error) {
	sess, err := scanSession(s.r.QueryRowContext(ctx, `SELECT `+sessionCols+sessionFrom+` WHERE s.id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return sess, fmt.Errorf("session %s: %w", id, ErrNotFound)
	}
	return sess, s.wrapRead(err)
}

// ApprovalMode returns a session's approval mode alone: read at every
// call, it must not count the session's runs and changes as Session does.
func (s *Store) ApprovalMode(ctx context.Context, id string) (string, error) {
	var mode string
	err := s.r.QueryRowContext(ctx, `SELECT approval_mode FROM sessions WHERE id = ?`, id).Scan(&mode)
	if errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("session %s: %w", id, ErrNotFound)
	}
	return mode, s.wrapRead(err)
}

// Workdirs lists the distinct workspaces of every session.
func (s *Store) Workdirs(ctx context.Context) ([]string, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT DISTINCT workdir FROM sessions`)
	if err != nil {
		return nil, s.wrap(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var w string
		if err := rows.Scan(&w); err != nil {
			return nil, s.wrap(err)
		}
		out = append(out, w)
	}
	return out, s.wrap(rows.Err())
}

// Sessions lists every session, most recently updated first.
func (s *Store) Sessions(ctx context.Context) ([]llm.Session, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+sessionCols+sessionFrom+` ORDER BY s.updated_at DESC, s.id`)
	if err != nil {
		return nil, s.wrap(err)
	}
	defer rows.Close()
	var out []llm.Session
	for rows.Next() {
		sess, err := scanSession(rows)
		if err != nil {
			return nil, s.wrap(err)
		}
		out = append(out, sess)
	}
	return out, s.wrap(rows.Err())
}

func (s *Store) wrapRead(err error) error {
	if err == nil {
		return nil
	}
	return s.wrap(err)
}

func toolsJSON(tools []string) (any, error) {
	if tools == nil {
		return nil, nil
	}
	b, err := json.Marshal(tools)
	if err != nil {
		return nil, err
	}
	return string(b), nil
}

// Setting returns a stored setting; ok is false if it was never set.
func (s *Store) Setting(ctx context.Context, key string) (value string, ok bool, err error) {
	err = s.r.QueryRowContext(ctx, `SELECT value FROM settings WHERE key = ?`, key).Scan(&value)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	return value, err == nil, s.wrapRead(err)
}

// SetSetting stores a setting.
func (s *Store) SetSetting(ctx context.Context, key, value string) error {
	return s.inTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO settings (key, value) VALUES (?, ?)
			ON CONFLICT (key) DO UPDATE SET value = excluded.value`, key, value)
		return err
	})
}

// Settings returns every stored setting.
func (s *Store) Settings(ctx context.Context) (map[string]string, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT key, value FROM settings ORDER BY key`)
	if err != nil {
		return nil, s.wrap(err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return nil, s.wrap(err)
		}
		out[k] = v
	}
	return out, s.wrap(rows.Err())
}

// UpdateSetting reads a setting and replaces it with what fn returns, in
// one write transaction, so that two processes changing the same setting
// do not lose each other's change. ok is false if it was never set. An
// error of fn is returned as it is and changes nothing; remove true from
// fn deletes the setting.
func (s *Store) UpdateSetting(ctx context.Context, key string, fn func(value string, ok bool) (next string, remove bool, err error)) error {
	var fnErr error
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		var value string
		err := tx.QueryRowContext(ctx, `SELECT value FROM settings WHERE key = ?`, key).Scan(&value)
		ok := err == nil
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		next, remove, err := fn(value, ok)
		if err != nil {
			fnErr = err
			return err
		}
		if remove {
			_, err = tx.ExecContext(ctx, `DELETE FROM settings WHERE key = ?`, key)
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO settings (key, value) VALUES (?, ?)
			ON CONFLICT (key) DO UPDATE SET value = excluded.value`, key, next)
		return err
	})
	if fnErr != nil {
		return fnErr
	}
	return err
}

// SessionSeqs returns the last event seq of every session, by ID.
func (s *Store) SessionSeqs(ctx context.Context) (map[string]int64, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT id, last_seq FROM sessions`)
	if err != nil {
		return nil, s.wrap(err)
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var id string
		var seq int64
		if err := rows.Scan(&id, &seq); err != nil {
			return nil, s.wrap(err)
		}
		out[id] = seq
	}
	return out, s.wrap(rows.Err())
}
