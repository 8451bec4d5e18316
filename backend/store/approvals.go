package store

import (
	"context"
	"database/sql"
	"encoding/json"

	"foya/backend/llm"
)

// Grants returns a session's remembered grants as JSON, oldest first.
func (s *Store) Grants(ctx context.Context, sessionID string) ([]json.RawMessage, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT grant_json FROM grants WHERE session_id = ? ORDER BY created_at`, sessionID)
	if err != nil {
		return nil, s.wrap(err)
	}
	defer rows.Close()
	var out []json.RawMessage
	for rows.Next() {
		var g string
		if err := rows.Scan(&g); err != nil {
			return nil, s.wrap(err)
		}
		out = append(out, json.RawMessage(g))
	}
	return out, s.wrap(rows.Err())
}

// Approvals returns a session's approval requests, oldest first.
func (s *Store) Approvals(ctx context.Context, sessionID string) ([]llm.ApprovalRecord, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT id, run_id, call_id, state, request, answer, asked_at, answered_at
		FROM approvals WHERE session_id = ? ORDER BY asked_at, id`, sessionID)
	if err != nil {
		return nil, s.wrap(err)
	}
	defer rows.Close()
	var out []llm.ApprovalRecord
	for rows.Next() {
		a := llm.ApprovalRecord{SessionID: sessionID}
		var req string
		var answer sql.NullString
		var asked, answered int64
		if err := rows.Scan(&a.ID, &a.RunID, &a.CallID, &a.State, &req, &answer, &asked, &answered); err != nil {
			return nil, s.wrap(err)
		}
		a.Request = json.RawMessage(req)
		if answer.Valid {
			a.Answer = json.RawMessage(answer.String)
		}
		a.AskedAt, a.AnsweredAt = fromNanos(asked), fromNanos(answered)
		out = append(out, a)
	}
	return out, s.wrap(rows.Err())
}
