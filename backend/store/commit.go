package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"foya/backend/llm"
)

// Apply writes everything in c in one transaction and returns c's events
// with the Seq and Time the store gave them. Either all of c is stored or
// none of it.
func (s *Store) Apply(ctx context.Context, c llm.Commit) ([]llm.Event, error) {
	events := make([]llm.Event, len(c.Events))
	copy(events, c.Events)
	now := time.Now()
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if c.Session != nil {
			if err := putSession(ctx, tx, c.Session, c.NewSession, now); err != nil {
				return err
			}
		}
		if c.Isolation != nil {
			if err := putIsolation(ctx, tx, c.IsolationOf, c.Isolation); err != nil {
				return err
			}
		}
		if c.Run != nil {
			if err := putRun(ctx, tx.StmtContext(ctx, s.stmts.putRun), c.Run); err != nil {
				return err
			}
		}
		if c.Title != "" {
			if c.Run == nil {
				return errors.New("a commit's title needs its run, whose session it names")
			}
			if err := putTitle(ctx, tx, c.Run.SessionID, c.Title, now); err != nil {
				return err
			}
		}
		if c.Retitle != nil {
			if err := retitle(ctx, tx, c.Retitle, now); err != nil {
				return err
			}
		}
		for i := range c.Calls {
			if err := putCall(ctx, tx.StmtContext(ctx, s.stmts.putCall), &c.Calls[i]); err != nil {
				return err
			}
		}
		for i := range c.Artifacts {
			if err := putArtifact(ctx, tx, &c.Artifacts[i], now); err != nil {
				return err
			}
		}
		for _, b := range c.Blobs {
			sum := sha256.Sum256(b)
			if err := putBlob(ctx, tx, hex.EncodeToString(sum[:]), b); err != nil {
				return err
			}
		}
		for i := range c.FileChanges {
			if err := putFileChange(ctx, tx, &c.FileChanges[i], now); err != nil {
				return err
			}
		}
		for _, a := range c.Approvals {
			var answer any
			if len(a.Answer) > 0 {
				answer = string(a.Answer)
			}
			if a.AskedAt.IsZero() {
				a.AskedAt = now
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO approvals (id, session_id, run_id, call_id, state, request, answer, asked_at, answered_at)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
				ON CONFLICT (id) DO UPDATE SET state = excluded.state, answer = excluded.answer, answered_at = excluded.answered_at`,
				a.ID, a.SessionID, a.RunID, a.CallID, a.State, string(a.Request), answer, nanos(a.AskedAt), nanos(a.AnsweredAt)); err != nil {
				return fmt.Errorf("approval %s: %w", a.ID, err)
			}
		}
		for _, g := range c.Grants {
			if _, err := tx.ExecContext(ctx, `INSERT INTO grants (session_id, grant_json, created_at) VALUES (?, ?, ?)
				ON CONFLICT DO NOTHING`, g.SessionID, string(g.Grant), now.UnixNano()); err != nil {
				return fmt.Errorf("grant: %w", err)
			}
		}
		for _, m := range c.Messages {
			body, err := json.Marshal(storable(m.Message))
			if err != nil {
				return fmt.Errorf("message: %w", err)
			}
			if m.Child {
				// A sub-agent's own history, apart from the session's.
				if _, err := tx.ExecContext(ctx, `INSERT INTO run_messages (run_id, idx, role, body)
					VALUES (?, (SELECT coalesce(max(idx), 0) + 1 FROM run_messages WHERE run_id = ?), ?, ?)`,
					m.RunID, m.RunID, string(m.Message.Role), string(body)); err != nil {
					return fmt.Errorf("run %s: message: %w", m.RunID, err)
				}
				continue
			}
			var idx int64
			err = tx.StmtContext(ctx, s.stmts.nextMsg).QueryRowContext(ctx, now.UnixNano(), m.SessionID).Scan(&idx)
			if err != nil {
				return noSession(m.SessionID, err)
			}
			if _, err := tx.StmtContext(ctx, s.stmts.insertMsg).ExecContext(ctx, m.SessionID, idx, m.RunID, string(m.Message.Role), string(body)); err != nil {
				return err
			}
		}
		for _, m := range c.ReadMarks {
			if _, err := markOutside(ctx, tx, m.SessionID, m.Path); err != nil {
				return fmt.Errorf("mark %s as changed: %w", m.Path, err)
			}
		}
		for _, m := range c.Reviews {
			if err := putReview(ctx, tx, m, now); err != nil {
				return err
			}
		}
		for i := range events {
			ev := &events[i]
			if ev.Time.IsZero() {
				ev.Time = now
			}
			err := tx.StmtContext(ctx, s.stmts.nextSeq).QueryRowContext(ctx, now.UnixNano(), ev.SessionID).Scan(&ev.Seq)
			if err != nil {
				return noSession(ev.SessionID, err)
			}
			var data any
			if len(ev.Data) > 0 {
				data = string(ev.Data)
			}
			if _, err := tx.StmtContext(ctx, s.stmts.insertEvent).ExecContext(ctx, ev.SessionID, ev.Seq, ev.RunID, ev.ParentCallID, ev.Type, nanos(ev.Time), data); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return events, nil
}

func putFileChange(ctx context.Context, tx *sql.Tx, fc *llm.FileChange, now time.Time) error {
	if fc.ID == "" || fc.SessionID == "" || fc.Path == "" {
		return errors.New("file change: id, session and path are required")
	}
	if fc.CreatedAt.IsZero() {
		fc.CreatedAt = now
	}
	body, err := json.Marshal(fc)
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO file_changes (id, session_id, run_id, call_id, seq, path, body, created_at, tool)
		VALUES (?, ?, ?, ?, (SELECT coalesce(max(seq), 0) + 1 FROM file_changes WHERE session_id = ?), ?, ?, ?, ?)`,
		fc.ID, fc.SessionID, fc.RunID, fc.CallID, fc.SessionID, fc.Path, string(body), nanos(fc.CreatedAt), fc.Tool)
	if err != nil {
		return fmt.Errorf("file change %s: %w", fc.ID, err)
	}
	return nil
}

func noSession(id string, err error) error {
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("session %s: %w", id, ErrNotFound)
	}
	return err
}

// Hot statements, prepared once on the writer's connection.
const (
	sqlNextMsg     = `UPDATE sessions SET last_msg = last_msg + 1, updated_at = ? WHERE id = ? RETURNING last_msg`
	sqlInsertMsg   = `INSERT INTO messages (session_id, idx, run_id, role, body) VALUES (?, ?, ?, ?, ?)`
	sqlNextSeq     = `UPDATE sessions SET last_seq = last_seq + 1, updated_at = ? WHERE id = ? RETURNING last_seq`
	sqlInsertEvent = `INSERT INTO events (session_id, seq, run_id, parent_call_id, type, time, data) VALUES (?, ?, ?, ?, ?, ?, ?)`
	sqlPutRun      = `INSERT INTO runs (id, session_id, status, prompt, error, steps, usage, owner, started_at, ended_at,
			parent_run_id, parent_call_id)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET status = excluded.status, error = excluded.error, steps = excluded.steps,
			usage = excluded.usage, owner = excluded.owner, ended_at = excluded.ended_at`
	sqlPutCall = `INSERT INTO tool_calls (session_id, run_id, step, idx, id, name, arguments, args_ref, state, result, started_at, ended_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (run_id, step, idx) DO UPDATE SET id = excluded.id, name = excluded.name,
			arguments = excluded.arguments, args_ref = excluded.args_ref, state = excluded.state, result = excluded.result,
			started_at = excluded.started_at, ended_at = excluded.ended_at`
)

type stmts struct {
	nextMsg, insertMsg, nextSeq, insertEvent, putRun, putCall *sql.Stmt
}

func (s *Store) prepare(ctx context.Context) error {
	for _, p := range []struct {
		dst **sql.Stmt
		sql string
	}{
		{&s.stmts.nextMsg, sqlNextMsg}, {&s.stmts.insertMsg, sqlInsertMsg}, {&s.stmts.nextSeq, sqlNextSeq},
		{&s.stmts.insertEvent, sqlInsertEvent}, {&s.stmts.putRun, sqlPutRun}, {&s.stmts.putCall, sqlPutCall},
	} {
		st, err := s.w.PrepareContext(ctx, p.sql)
		if err != nil {
			return s.wrap(err)
		}
		*p.dst = st
	}
	return nil
}

func putRun(ctx context.Context, stmt *sql.Stmt, r *llm.Run) error {
	usage, err := json.Marshal(r.Usage)
	if err != nil {
		return err
	}
	_, err = stmt.ExecContext(ctx, r.ID, r.SessionID, string(r.Status), r.Prompt, r.Error, r.Steps, string(usage), r.Owner,
		nanos(r.StartedAt), nanos(r.EndedAt), r.ParentRunID, r.ParentCallID)
	if err != nil {
		return fmt.Errorf("run %s: %w", r.ID, err)
	}
	return nil
}

func putCall(ctx context.Context, stmt *sql.Stmt, c *llm.CallRecord) error {
	var result any
	if c.Result != nil {
		b, err := json.Marshal(c.Result)
		if err != nil {
			return err
		}
		result = string(b)
	}
	args, ref, err := argsColumns(c.Arguments, c.ArgsRef)
	if err != nil {
		return fmt.Errorf("tool call %s: %w", c.ID, err)
	}
	_, err = stmt.ExecContext(ctx, c.SessionID, c.RunID, c.Step, c.Index, c.ID, c.Name, args, ref, string(c.State), result,
		nanos(c.StartedAt), nanos(c.EndedAt))
	if err != nil {
		return fmt.Errorf("tool call %s: %w", c.ID, err)
	}
	return nil
}

func putArtifact(ctx context.Context, tx *sql.Tx, a *llm.Artifact, now time.Time) error {
	if a.ID == "" || a.SessionID == "" || a.MIME == "" {
		return errors.New("artifact: id, session and MIME type are required")
	}
	sum := sha256.Sum256(a.Data)
	a.SHA256 = hex.EncodeToString(sum[:])
	a.Size = int64(len(a.Data))
	if err := putBlob(ctx, tx, a.SHA256, a.Data); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO artifacts (id, session_id, sha256, mime, width, height, size, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, a.ID, a.SessionID, a.SHA256, a.MIME, a.Width, a.Height, a.Size, now.UnixNano())
	if err != nil {
		return fmt.Errorf("artifact %s: %w", a.ID, err)
	}
	return nil
}

// blobChunk is the largest piece of a blob stored in one row; larger blobs
// are split, so SQLite never holds a whole large value in memory at once.
const blobChunk = 1 << 20

// putBlob stores data under sum unless a blob with that sum is stored
// already; then nothing is written (and a large blob is not handed to SQLite
// a second time).
func putBlob(ctx context.Context, tx *sql.Tx, sum string, data []byte) error {
	if data == nil {
		data = []byte{}
	}
	var one int
	switch err := tx.QueryRowContext(ctx, `SELECT 1 FROM blobs WHERE sha256 = ?`, sum).Scan(&one); {
	case err == nil:
		return nil
	case !errors.Is(err, sql.ErrNoRows):
		return fmt.Errorf("blob %s: %w", sum, err)
	}
	if len(data) <= blobChunk {
		if _, err := tx.ExecContext(ctx, `INSERT INTO blobs (sha256, size, data) VALUES (?, ?, ?)`, sum, len(data), data); err != nil {
			return fmt.Errorf("blob %s: %w", sum, err)
		}
		return nil
	}
	n := (len(data) + blobChunk - 1) / blobChunk
	if _, err := tx.ExecContext(ctx, `INSERT INTO blobs (sha256, size, data, chunks) VALUES (?, ?, X'', ?)`, sum, len(data), n); err != nil {
		return fmt.Errorf("blob %s: %w", sum, err)
	}
	st, err := tx.PrepareContext(ctx, `INSERT INTO blob_chunks (sha256, n, data) VALUES (?, ?, ?)`)
	if err != nil {
		return fmt.Errorf("blob %s: %w", sum, err)
	}
	defer st.Close()
	for i := range n {
		if _, err := st.ExecContext(ctx, sum, i, data[i*blobChunk:min((i+1)*blobChunk, len(data))]); err != nil {
			return fmt.Errorf("blob %s: chunk %d: %w", sum, i, err)
		}
	}
	return nil
}

// PutBlob stores data under its sha256 (hex) and returns it. Storing the same
// bytes twice keeps one copy.
func (s *Store) PutBlob(ctx context.Context, data []byte) (string, error) {
	sum := sha256.Sum256(data)
	key := hex.EncodeToString(sum[:])
	return key, s.inTx(ctx, func(tx *sql.Tx) error { return putBlob(ctx, tx, key, data) })
}

// Blob returns the bytes stored under sum.
func (s *Store) Blob(ctx context.Context, sum string) ([]byte, error) {
	var data []byte
	var size, chunks int
	err := s.r.QueryRowContext(ctx, `SELECT size, chunks, data FROM blobs WHERE sha256 = ?`, sum).Scan(&size, &chunks, &data)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("blob %s: %w", sum, ErrNotFound)
	}
	if err != nil || chunks == 0 {
		return data, s.wrapRead(err)
	}
	rows, err := s.r.QueryContext(ctx, `SELECT data FROM blob_chunks WHERE sha256 = ? ORDER BY n`, sum)
	if err != nil {
		return nil, s.wrap(err)
	}
	defer rows.Close()
	data = make([]byte, 0, size)
	for rows.Next() {
		var chunk sql.RawBytes
		if err := rows.Scan(&chunk); err != nil {
			return nil, s.wrap(err)
		}
		data = append(data, chunk...)
	}
	if err := rows.Err(); err != nil {
		return nil, s.wrap(err)
	}
	if len(data) != size {
		return nil, fmt.Errorf("blob %s: %d of its %d bytes are stored", sum, len(data), size)
	}
	return data, nil
}

// argsColumns returns what a call's row keeps of its arguments: the text
// itself, or, for arguments stored by reference, an empty text and the
// reference as JSON.
func argsColumns(args string, ref *llm.ArgsRef) (string, any, error) {
	if ref == nil {
		return args, nil, nil
	}
	b, err := json.Marshal(ref)
	if err != nil {
		return "", nil, err
	}
	return "", string(b), nil
}

// storable returns m as its body is stored: the arguments of calls stored by
// reference are left out (the reference stays), so the body is small.
func storable(m llm.Message) llm.Message {
	if !slices.ContainsFunc(m.ToolCalls, func(c llm.ToolCall) bool { return c.ArgsRef != nil }) {
		return m
	}
	m.ToolCalls = slices.Clone(m.ToolCalls)
	for i := range m.ToolCalls {
		if m.ToolCalls[i].ArgsRef != nil {
			m.ToolCalls[i].Arguments = ""
		}
	}
	return m
}
