package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"foya/backend/llm"
)

// Messages returns a session's canonical history in order. Sub-agents'
// runs keep their own histories apart (see ChildMessages).
func (s *Store) Messages(ctx context.Context, sessionID string) ([]llm.StoredMessage, error) {
	return s.queryMessages(ctx, sessionID, ``)
}

// ChildMessages returns the history of a sub-agent's run, with positions
// first to last (1-based, inclusive; last 0 means to the end), in order.
func (s *Store) ChildMessages(ctx context.Context, runID string, first, last int) ([]llm.StoredMessage, error) {
	if last <= 0 {
		last = math.MaxInt32
	}
	rows, err := s.r.QueryContext(ctx, `SELECT m.body, r.session_id FROM run_messages m JOIN runs r ON r.id = m.run_id
		WHERE m.run_id = ? AND m.idx BETWEEN ? AND ? ORDER BY m.idx`, runID, first, last)
	if err != nil {
		return nil, s.wrap(err)
	}
	defer rows.Close()
	var out []llm.StoredMessage
	for rows.Next() {
		m := llm.StoredMessage{RunID: runID, Child: true}
		var body string
		if err := rows.Scan(&body, &m.SessionID); err != nil {
			return nil, s.wrap(err)
		}
		if err := json.Unmarshal([]byte(body), &m.Message); err != nil {
			return nil, fmt.Errorf("run %s: stored message: %w", runID, err)
		}
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, s.wrap(err)
	}
	rows.Close()
	for i := range out {
		for j := range out[i].Message.ToolCalls {
			c := &out[i].Message.ToolCalls[j]
			if c.ArgsRef == nil {
				continue
			}
			if c.Arguments, err = s.joinArgs(ctx, c.ArgsRef); err != nil {
				return nil, fmt.Errorf("run %s: tool call %s: %w", runID, c.ID, err)
			}
		}
	}
	return out, nil
}

func (s *Store) queryMessages(ctx context.Context, sessionID, where string, args ...any) ([]llm.StoredMessage, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT run_id, body FROM messages WHERE session_id = ?`+where+` ORDER BY idx`,
		append([]any{sessionID}, args...)...)
	if err != nil {
		return nil, s.wrap(err)
	}
	defer rows.Close()
	var out []llm.StoredMessage
	for rows.Next() {
		m := llm.StoredMessage{SessionID: sessionID}
		var body string
		if err := rows.Scan(&m.RunID, &body); err != nil {
			return nil, s.wrap(err)
		}
		if err := json.Unmarshal([]byte(body), &m.Message); err != nil {
			return nil, fmt.Errorf("session %s: stored message: %w", sessionID, err)
		}
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, s.wrap(err)
	}
	rows.Close()
	for i := range out {
		for j := range out[i].Message.ToolCalls {
			c := &out[i].Message.ToolCalls[j]
			if c.ArgsRef == nil {
				continue
			}
			if c.Arguments, err = s.joinArgs(ctx, c.ArgsRef); err != nil {
				return nil, fmt.Errorf("session %s: tool call %s: %w", sessionID, c.ID, err)
			}
		}
	}
	return out, nil
}

// joinArgs reads back arguments stored by reference.
func (s *Store) joinArgs(ctx context.Context, ref *llm.ArgsRef) (string, error) {
	return llm.JoinArgs(ref, func(sha string) ([]byte, error) { return s.Blob(ctx, sha) })
}

// Events returns up to limit events of a session with seq greater than
// after, in order. A limit of 0 or less means no limit.
func (s *Store) Events(ctx context.Context, sessionID string, after int64, limit int) ([]llm.Event, error) {
	if limit <= 0 {
		limit = -1
	}
	return s.queryEvents(ctx, sessionID, `seq > ? ORDER BY seq LIMIT ?`, after, limit)
}

// EventsOfType returns a session's events of one type, in order.
func (s *Store) EventsOfType(ctx context.Context, sessionID, typ string) ([]llm.Event, error) {
	return s.queryEvents(ctx, sessionID, `type = ? ORDER BY seq`, typ)
}

// queryEvents returns a session's events that match where.
func (s *Store) queryEvents(ctx context.Context, sessionID, where string, args ...any) ([]llm.Event, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT seq, run_id, parent_call_id, type, time, data FROM events
		WHERE session_id = ? AND `+where, append([]any{sessionID}, args...)...)
	if err != nil {
		return nil, s.wrap(err)
	}
	defer rows.Close()
	var out []llm.Event
	for rows.Next() {
		ev := llm.Event{SessionID: sessionID}
		var t int64
		var data sql.NullString
		if err := rows.Scan(&ev.Seq, &ev.RunID, &ev.ParentCallID, &ev.Type, &t, &data); err != nil {
			return nil, s.wrap(err)
		}
		ev.Time = fromNanos(t)
		if data.Valid {
			ev.Data = json.RawMessage(data.String)
		}
		out = append(out, ev)
	}
	return out, s.wrap(rows.Err())
}

const runCols = `id, session_id, status, prompt, error, steps, usage, owner, started_at, ended_at, parent_run_id, parent_call_id`

func scanRun(sc interface{ Scan(...any) error }) (llm.Run, error) {
	var r llm.Run
	var status, usage string
	var started, ended int64
	if err := sc.Scan(&r.ID, &r.SessionID, &status, &r.Prompt, &r.Error, &r.Steps, &usage, &r.Owner, &started, &ended,
		&r.ParentRunID, &r.ParentCallID); err != nil {
		return r, err
	}
	r.Status = llm.RunStatus(status)
	r.StartedAt, r.EndedAt = fromNanos(started), fromNanos(ended)
	if err := json.Unmarshal([]byte(usage), &r.Usage); err != nil {
		return r, fmt.Errorf("run %s: usage: %w", r.ID, err)
	}
	return r, nil
}

func (s *Store) queryRuns(ctx context.Context, where string, args ...any) ([]llm.Run, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+runCols+` FROM runs WHERE `+where+` ORDER BY started_at, id`, args...)
	if err != nil {
		return nil, s.wrap(err)
	}
	defer rows.Close()
	var out []llm.Run
	for rows.Next() {
		r, err := scanRun(rows)
		if err != nil {
			return nil, s.wrap(err)
		}
		out = append(out, r)
	}
	return out, s.wrap(rows.Err())
}

// Run returns one run.
func (s *Store) Run(ctx context.Context, id string) (llm.Run, error) {
	r, err := scanRun(s.r.QueryRowContext(ctx, `SELECT `+runCols+` FROM runs WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return r, fmt.Errorf("run %s: %w", id, ErrNotFound)
	}
	return r, s.wrapRead(err)
}

// Runs returns a session's runs, oldest first.
func (s *Store) Runs(ctx context.Context, sessionID string) ([]llm.Run, error) {
	return s.queryRuns(ctx, `session_id = ?`, sessionID)
}

// RunningRuns returns every run still marked running, in any session.
func (s *Store) RunningRuns(ctx context.Context) ([]llm.Run, error) {
	return s.queryRuns(ctx, `status = 'running'`)
}

// Calls returns a run's tool calls in step and call order.
func (s *Store) Calls(ctx context.Context, runID string) ([]llm.CallRecord, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT session_id, run_id, step, idx, id, name, arguments, args_ref, state, result,
		started_at, ended_at FROM tool_calls WHERE run_id = ? ORDER BY step, idx`, runID)
	if err != nil {
		return nil, s.wrap(err)
	}
	defer rows.Close()
	var out []llm.CallRecord
	for rows.Next() {
		var c llm.CallRecord
		var state string
		var result, ref sql.NullString
		var started, ended int64
		if err := rows.Scan(&c.SessionID, &c.RunID, &c.Step, &c.Index, &c.ID, &c.Name, &c.Arguments, &ref, &state,
			&result, &started, &ended); err != nil {
			return nil, s.wrap(err)
		}
		if ref.Valid {
			c.ArgsRef = new(llm.ArgsRef)
			if err := json.Unmarshal([]byte(ref.String), c.ArgsRef); err != nil {
				return nil, fmt.Errorf("tool call %s: arguments: %w", c.ID, err)
			}
		}
		c.State = llm.CallState(state)
		c.StartedAt, c.EndedAt = fromNanos(started), fromNanos(ended)
		if result.Valid {
			c.Result = new(llm.ToolResult)
			if err := json.Unmarshal([]byte(result.String), c.Result); err != nil {
				return nil, fmt.Errorf("tool call %s: result: %w", c.ID, err)
			}
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, s.wrap(err)
	}
	rows.Close()
	for i := range out {
		if out[i].ArgsRef == nil {
			continue
		}
		if out[i].Arguments, err = s.joinArgs(ctx, out[i].ArgsRef); err != nil {
			return nil, fmt.Errorf("tool call %s: %w", out[i].ID, err)
		}
	}
	return out, nil
}

// Artifact returns an artifact with its bytes. sessionID must match the
// artifact's session, so one session cannot read another's artifacts.
func (s *Store) Artifact(ctx context.Context, sessionID, id string) (llm.Artifact, error) {
	var a llm.Artifact
	var chunks int
	err := s.r.QueryRowContext(ctx, `SELECT a.id, a.session_id, a.mime, a.width, a.height, a.size, a.sha256, b.chunks, b.data
		FROM artifacts a JOIN blobs b ON b.sha256 = a.sha256 WHERE a.id = ? AND a.session_id = ?`, id, sessionID).
		Scan(&a.ID, &a.SessionID, &a.MIME, &a.Width, &a.Height, &a.Size, &a.SHA256, &chunks, &a.Data)
	if errors.Is(err, sql.ErrNoRows) {
		return a, fmt.Errorf("artifact %s: %w", id, ErrNotFound)
	}
	if err == nil && chunks > 0 {
		a.Data, err = s.Blob(ctx, a.SHA256)
		return a, err
	}
	return a, s.wrapRead(err)
}

// MessagesBetween returns a session's messages with positions first to last
// (1-based, inclusive), in order.
func (s *Store) MessagesBetween(ctx context.Context, sessionID string, first, last int) ([]llm.StoredMessage, error) {
	return s.queryMessages(ctx, sessionID, ` AND idx BETWEEN ? AND ?`, first, last)
}
