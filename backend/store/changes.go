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

func (s *Store) queryChanges(ctx context.Context, where string, args ...any) ([]llm.FileChange, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT body, `+reviewedCol+` FROM file_changes WHERE `+where+` ORDER BY session_id, seq`, args...)
	if err != nil {
		return nil, s.wrap(err)
	}
	defer rows.Close()
	var out []llm.FileChange
	for rows.Next() {
		var body string
		var reviewed bool
		if err := rows.Scan(&body, &reviewed); err != nil {
			return nil, s.wrap(err)
		}
		var fc llm.FileChange
		if err := json.Unmarshal([]byte(body), &fc); err != nil {
			return nil, fmt.Errorf("stored file change: %w", err)
		}
		fc.Reviewed = reviewed
		out = append(out, fc)
	}
	return out, s.wrap(rows.Err())
}

// FileChanges returns a session's file changes, oldest first.
func (s *Store) FileChanges(ctx context.Context, sessionID string) ([]llm.FileChange, error) {
	return s.queryChanges(ctx, `session_id = ?`, sessionID)
}

// OwnChangesSince returns the session's file changes stored at or after
// since that a shell command did not make (Foya's own tools, reverts),
// oldest first: the look before a shell command asks for what those
// changed since the last look, at the cost of what it finds (an index
// holds those changes alone).
func (s *Store) OwnChangesSince(ctx context.Context, sessionID string, since time.Time) ([]llm.FileChange, error) {
	return s.queryChanges(ctx, `session_id = ? AND created_at >= ? AND tool <> 'bash'`, sessionID, nanos(since))
}

// LastFileChanges returns the session's newest file change of each of
// paths that has one, by path.
func (s *Store) LastFileChanges(ctx context.Context, sessionID string, paths []string) (map[string]llm.FileChange, error) {
	out := make(map[string]llm.FileChange, len(paths))
	for _, p := range paths {
		if _, done := out[p]; done {
			continue
		}
		list, err := s.queryChanges(ctx, `id = (SELECT id FROM file_changes WHERE session_id = ? AND path = ? ORDER BY seq DESC LIMIT 1)`, sessionID, p)
		if err != nil {
			return nil, err
		}
		if len(list) > 0 {
			out[p] = list[0]
		}
	}
	return out, nil
}

// RunFileChanges returns a run's file changes, with those of the sub-agents
// it started (and theirs), oldest first: a turn's changes are its own and
// its sub-agents'.
func (s *Store) RunFileChanges(ctx context.Context, runID string) ([]llm.FileChange, error) {
	return s.queryChanges(ctx, `run_id IN (WITH RECURSIVE tree(id) AS (SELECT ? UNION SELECT runs.id FROM runs JOIN tree ON runs.parent_run_id = tree.id)
		SELECT id FROM tree)`, runID)
}

// FileChange returns one file change.
func (s *Store) FileChange(ctx context.Context, id string) (llm.FileChange, error) {
	list, err := s.queryChanges(ctx, `id = ?`, id)
	if err != nil {
		return llm.FileChange{}, err
	}
	if len(list) == 0 {
		return llm.FileChange{}, fmt.Errorf("file change %s: %w", id, ErrNotFound)
	}
	return list[0], nil
}

// FileChangesAfter returns the changes of a change's session made after it
// (not including it), newest first: what restoring to that point undoes.
func (s *Store) FileChangesAfter(ctx context.Context, id string) ([]llm.FileChange, error) {
	var sess string
	var seq int64
	err := s.r.QueryRowContext(ctx, `SELECT session_id, seq FROM file_changes WHERE id = ?`, id).Scan(&sess, &seq)
	if err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, fmt.Errorf("file change %s: %w", id, ErrNotFound)
		}
		return nil, s.wrap(err)
	}
	list, err := s.queryChanges(ctx, `session_id = ? AND seq > ?`, sess, seq)
	for i, j := 0, len(list)-1; i < j; i, j = i+1, j-1 {
		list[i], list[j] = list[j], list[i]
	}
	return list, err
}
