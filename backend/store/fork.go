package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"foya/backend/llm"
)

// Fork is what ForkSession copies of a session into a new one.
type Fork struct {
	// From is the session forked.
	From string
	// To is the new session's record: its ID, title, mode, provider,
	// model and tools, with ForkedFrom and ForkedAt set.
	To llm.Session
	// Before is the top-level run whose prompt the fork stops before: the
	// fork holds what the session stored before that run started. Empty,
	// the fork holds the whole session, which must have no run going.
	Before string
	// NewID makes the copies' IDs (runs, file changes, artifacts), as
	// the engine makes IDs: a prefix, "_" and 32 hex digits.
	NewID func(prefix string) string
	// Isolation, if set, is the new session's own isolated copy (a fork
	// of an isolated session), recorded in the same transaction as the
	// session, as a new isolated session's is.
	Isolation *llm.Isolation
	// Then are events of the new session stored after the copied ones,
	// in the same transaction (their seq follows): what the fork records
	// of itself, such as its approval mode when the copied history does
	// not end in it.
	Then []llm.Event
	// Known, if set, is called in the transaction, before it commits,
	// with the new session's last seq: the copied events are history, not
	// news, and a publisher that follows the database (the kernel's) is
	// to know them as published before it can see them.
	Known func(lastSeq int64)
}

// ErrRunning is returned by ForkSession for a whole session with a run
// still going: its history is not finished.
var ErrRunning = errors.New("the session has a run going")

// idToken matches the IDs of the records a fork copies under new IDs
// (runs, file changes, artifacts) and of sessions, wherever a copied
// row's text names them (events' payloads, messages, results, change
// bodies).
var idToken = regexp.MustCompile(`\b(?:run|chg|art|ses)_[0-9a-f]{32}\b`)

// ForkSession creates f.To holding a copy of f.From's history up to
// f.Before (see Fork), in one transaction: the events (with their seq
// numbers, so the fork's log starts as the parent's did), the canonical
// messages (same positions, so a compaction recorded before the fork
// point stands for the same messages in the fork), the runs with their
// tool calls and sub-agents' histories, the file changes with their
// review marks, and the artifacts, each copied record under a new ID and
// every mention of an old ID in the copied text replaced by the new one.
// What belongs to the session's life rather than its history is not
// copied: approvals asked, session grants, the stale-read guard's
// records, review comments and background commands. The parent is not
// changed. It returns the new session as stored.
func (s *Store) ForkSession(ctx context.Context, f Fork) (llm.Session, error) {
	if f.From == "" || f.To.ID == "" || f.NewID == nil {
		return llm.Session{}, errors.New("fork session: the session, the new session's ID and NewID are required")
	}
	now := time.Now()
	sess := f.To
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		seqCut, msgCut, startCut, err := forkPoint(ctx, tx, f)
		if err != nil {
			return err
		}

		ids := map[string]string{f.From: sess.ID}
		runs, err := idsOf(ctx, tx, `SELECT id FROM runs WHERE session_id = ? AND (? = '' OR (started_at < ? AND id <> ?))`,
			f.From, f.Before, startCut, f.Before)
		if err != nil {
			return err
		}
		for _, id := range runs {
			ids[id] = f.NewID("run")
		}
		runList, _ := json.Marshal(runs)
		changes, err := idsOf(ctx, tx, `SELECT id FROM file_changes WHERE session_id = ? AND (? = '' OR `+beforeFork+`) ORDER BY seq`,
			f.From, f.Before, f.From, startCut, f.Before, startCut)
		if err != nil {
			return err
		}
		for _, id := range changes {
			ids[id] = f.NewID("chg")
		}
		arts, err := idsOf(ctx, tx, `SELECT id FROM artifacts WHERE session_id = ? AND (? = '' OR created_at < ?)`, f.From, f.Before, startCut)
		if err != nil {
			return err
		}
		for _, id := range arts {
			ids[id] = f.NewID("art")
		}
		changeList, _ := json.Marshal(changes)
		artList, _ := json.Marshal(arts)
		// IDs of another form (made by hand, not by NewID) are replaced
		// where they stand as a JSON string of their own.
		var odd []string
		for old, n := range ids {
			if !idToken.MatchString(old) {
				odd = append(odd, `"`+old+`"`, `"`+n+`"`)
			}
		}
		quoted := strings.NewReplacer(odd...)
		rewrite := func(v any) any {
			switch t := v.(type) {
			case string:
				if n, ok := ids[t]; ok { // a column holding an ID, whatever its form
					return n
				}
				t = idToken.ReplaceAllStringFunc(t, func(id string) string {
					if n, ok := ids[id]; ok {
						return n
					}
					return id
				})
				if len(odd) > 0 {
					t = quoted.Replace(t)
				}
				return t
			case []byte:
				return idToken.ReplaceAllFunc(t, func(id []byte) []byte {
					if n, ok := ids[string(id)]; ok {
						return []byte(n)
					}
					return id
				})
			}
			return v
		}

		sess.ForkedFrom = f.From
		if err := putSession(ctx, tx, &sess, true, now); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE sessions SET last_seq = ?, last_msg = ? WHERE id = ?`, seqCut-1, msgCut-1, sess.ID); err != nil {
			return err
		}
		if f.Isolation != nil {
			if err := putIsolation(ctx, tx, sess.ID, f.Isolation); err != nil {
				return err
			}
		}
		// Parents before children: runs before their calls and histories,
		// changes before their review marks.
		copies := []struct {
			table, cols, where string
			args               []any
		}{
			{"runs", "id, session_id, status, prompt, error, steps, usage, owner, started_at, ended_at, parent_run_id, parent_call_id",
				`id IN (SELECT value FROM json_each(?))`, []any{string(runList)}},
			{"tool_calls", "session_id, run_id, step, idx, id, name, arguments, args_ref, state, result, started_at, ended_at",
				`run_id IN (SELECT value FROM json_each(?))`, []any{string(runList)}},
			{"run_messages", "run_id, idx, role, body", `run_id IN (SELECT value FROM json_each(?))`, []any{string(runList)}},
			{"messages", "session_id, idx, run_id, role, body", `session_id = ? AND idx < ?`, []any{f.From, msgCut}},
			{"events", "session_id, seq, run_id, parent_call_id, type, time, data", `session_id = ? AND seq < ?`, []any{f.From, seqCut}},
			{"artifacts", "id, session_id, sha256, mime, width, height, size, created_at", `id IN (SELECT value FROM json_each(?))`, []any{string(artList)}},
			{"file_changes", "id, session_id, run_id, call_id, seq, path, body, created_at, tool", `id IN (SELECT value FROM json_each(?))`, []any{string(changeList)}},
			{"change_reviews", "change_id, session_id, reviewed_at", `change_id IN (SELECT value FROM json_each(?))`, []any{string(changeList)}},
		}
		for _, c := range copies {
			if err := copyRows(ctx, tx, c.table, c.cols, c.where, c.args, rewrite); err != nil {
				return fmt.Errorf("fork session %s: copy %s: %w", f.From, c.table, err)
			}
		}
		last := seqCut - 1
		for _, ev := range f.Then {
			last++
			var data any
			if len(ev.Data) > 0 {
				data = string(ev.Data)
			}
			if _, err := tx.ExecContext(ctx, sqlInsertEvent, sess.ID, last, ev.RunID, ev.ParentCallID, ev.Type, nanos(now), data); err != nil {
				return fmt.Errorf("fork session %s: %w", f.From, err)
			}
		}
		if _, err := tx.ExecContext(ctx, `UPDATE sessions SET last_seq = ? WHERE id = ?`, last, sess.ID); err != nil {
			return err
		}
		if f.Known != nil {
			f.Known(seqCut - 1)
		}
		return nil
	})
	if err != nil {
		return llm.Session{}, err
	}
	return s.Session(ctx, sess.ID)
}

// forkPoint returns where a fork of f.From stops: the first seq and
// message position it does not hold, and the start (unix ns) of the run
// it stops before (0 for the whole session).
func forkPoint(ctx context.Context, tx *sql.Tx, f Fork) (seqCut, msgCut, startCut int64, err error) {
	var lastSeq, lastMsg int64
	err = tx.QueryRowContext(ctx, `SELECT last_seq, last_msg FROM sessions WHERE id = ?`, f.From).Scan(&lastSeq, &lastMsg)
	if err != nil {
		return 0, 0, 0, noSession(f.From, err)
	}
	seqCut, msgCut = lastSeq+1, lastMsg+1
	if f.Before == "" {
		var running int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM runs WHERE session_id = ? AND status = 'running'`, f.From).Scan(&running); err != nil {
			return 0, 0, 0, err
		}
		if running > 0 {
			return 0, 0, 0, fmt.Errorf("fork session %s: %w", f.From, ErrRunning)
		}
	} else {
		var session, parent string
		err := tx.QueryRowContext(ctx, `SELECT session_id, parent_call_id, started_at FROM runs WHERE id = ?`, f.Before).Scan(&session, &parent, &startCut)
		if errors.Is(err, sql.ErrNoRows) || (err == nil && (session != f.From || parent != "")) {
			return 0, 0, 0, fmt.Errorf("fork session %s: run %s is not one of its prompts: %w", f.From, f.Before, ErrNotFound)
		}
		if err != nil {
			return 0, 0, 0, err
		}
		var seq, idx sql.NullInt64
		if err := tx.QueryRowContext(ctx, `SELECT min(seq) FROM events WHERE session_id = ? AND run_id = ?`, f.From, f.Before).Scan(&seq); err != nil {
			return 0, 0, 0, err
		}
		if !seq.Valid {
			// A run with no event of its own (never seen, but a
			// crash may leave anything): the history ends with the
			// last event of the runs before it.
			if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(seq), 0) + 1 FROM events WHERE session_id = ? AND run_id IN
				(SELECT id FROM runs WHERE session_id = ? AND started_at < ?)`, f.From, f.From, startCut).Scan(&seq); err != nil {
				return 0, 0, 0, err
			}
		}
		if seq.Valid {
			seqCut = seq.Int64
		}
		if err := tx.QueryRowContext(ctx, `SELECT min(idx) FROM messages WHERE session_id = ? AND run_id = ?`, f.From, f.Before).Scan(&idx); err != nil {
			return 0, 0, 0, err
		}
		if !idx.Valid {
			// No message of its own: the history ends with the runs
			// before it.
			if err := tx.QueryRowContext(ctx, `SELECT max(idx) + 1 FROM messages WHERE session_id = ? AND run_id IN
				(SELECT id FROM runs WHERE session_id = ? AND started_at < ?)`, f.From, f.From, startCut).Scan(&idx); err != nil {
				return 0, 0, 0, err
			}
			if !idx.Valid {
				idx = sql.NullInt64{Int64: 1, Valid: true}
			}
		}
		msgCut = idx.Int64
	}
	return seqCut, msgCut, startCut, nil
}

// beforeFork selects the file changes of a session a fork before a run
// holds: those of the runs started before it (sub-agents' included), and
// those of no run (reverts, captured outside changes) made before it.
// Its arguments: the session, the run's start, the run, its start again.
const beforeFork = `(run_id IN (SELECT id FROM runs WHERE session_id = ? AND started_at < ? AND id <> ?)
	OR (run_id = '' AND created_at < ?))`

// ChangesAfterFork returns the file changes of a session that a fork
// before its run before does not hold (see ForkSession), oldest first:
// those a copy of the session's files is to be taken back through to be
// as the files were at the fork point.
func (s *Store) ChangesAfterFork(ctx context.Context, sessionID, before string) ([]llm.FileChange, error) {
	r, err := s.Run(ctx, before)
	if err != nil {
		return nil, err
	}
	if r.SessionID != sessionID || r.ParentRunID != "" {
		return nil, fmt.Errorf("run %s is not one of session %s's prompts: %w", before, sessionID, ErrNotFound)
	}
	start := nanos(r.StartedAt)
	return s.queryChanges(ctx, `session_id = ? AND NOT `+beforeFork, sessionID, sessionID, start, before, start)
}

// idsOf returns the first column of a query's rows.
func idsOf(ctx context.Context, tx *sql.Tx, query string, args ...any) ([]string, error) {
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []string{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// copyRows inserts into table a copy of the rows where selects, each
// value passed through fix (which maps the IDs in it): all rows are read
// before the first is written, so a table copies into itself safely.
func copyRows(ctx context.Context, tx *sql.Tx, table, cols, where string, args []any, fix func(any) any) error {
	rows, err := tx.QueryContext(ctx, `SELECT `+cols+` FROM `+table+` WHERE `+where, args...)
	if err != nil {
		return err
	}
	n := len(strings.Split(cols, ","))
	var all [][]any
	for rows.Next() {
		vals := make([]any, n)
		ptrs := make([]any, n)
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			rows.Close()
			return err
		}
		for i := range vals {
			vals[i] = fix(vals[i])
		}
		all = append(all, vals)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	if len(all) == 0 {
		return nil
	}
	st, err := tx.PrepareContext(ctx, `INSERT INTO `+table+` (`+cols+`) VALUES (?`+strings.Repeat(", ?", n-1)+`)`)
	if err != nil {
		return err
	}
	defer st.Close()
	for _, vals := range all {
		if _, err := st.ExecContext(ctx, vals...); err != nil {
			return err
		}
	}
	return nil
}
