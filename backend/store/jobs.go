package store

import (
	"context"
	"database/sql"
	"time"
)

// Job is a stored background command: the call that started it, and the
// kernel (owner) whose Shell runs it. EndedAt is zero while it may be
// alive.
type Job struct {
	ID, SessionID, RunID, CallID, Owner string
	StartedAt, EndedAt                  time.Time
}

// StartJob stores a background command that started.
func (s *Store) StartJob(ctx context.Context, j Job) error {
	return s.inTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO background_jobs (id, session_id, run_id, call_id, owner, started_at)
			VALUES (?, ?, ?, ?, ?, ?)`, j.ID, j.SessionID, j.RunID, j.CallID, j.Owner, nanos(j.StartedAt))
		return err
	})
}

// EndJobs marks background commands ended (their changes captured, or
// given to them by recovery). An ID already ended or unknown is left as
// it is.
func (s *Store) EndJobs(ctx context.Context, at time.Time, ids ...string) error {
	if len(ids) == 0 {
		return nil
	}
	return s.inTx(ctx, func(tx *sql.Tx) error {
		for _, id := range ids {
			if _, err := tx.ExecContext(ctx, `UPDATE background_jobs SET ended_at = ? WHERE id = ? AND ended_at = 0`,
				max(nanos(at), 1), id); err != nil {
				return err
			}
		}
		return nil
	})
}

// AliveJobs returns the background commands not marked ended, of every
// owner, oldest first.
func (s *Store) AliveJobs(ctx context.Context) ([]Job, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT id, session_id, run_id, call_id, owner, started_at
		FROM background_jobs WHERE ended_at = 0 ORDER BY started_at, id`)
	if err != nil {
		return nil, s.wrap(err)
	}
	defer rows.Close()
	var out []Job
	for rows.Next() {
		var j Job
		var started int64
		if err := rows.Scan(&j.ID, &j.SessionID, &j.RunID, &j.CallID, &j.Owner, &started); err != nil {
			return nil, s.wrap(err)
		}
		j.StartedAt = fromNanos(started)
		out = append(out, j)
	}
	return out, s.wrap(rows.Err())
}
