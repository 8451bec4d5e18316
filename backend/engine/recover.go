package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"foya/backend/event"
	"foya/backend/llm"
	"foya/backend/tools"
)

// Interrupted is the result given to a call that was running, or waiting,
// when the process driving its run died.
const interruptedText = "interrupted, not replayed: Foya stopped while this call was %s; it may have done part of its work. Check its effects before calling it again."

// Recover marks runs left running by a process that is gone as interrupted
// (spec X2). claim is asked once per owner of a running run: it reports
// whether the owner is gone, holding what proves it (the owner's lock)
// until release is called; runs of live owners are left alone, so two Foya
// processes can share a database. After a claim the runs are read again,
// so runs another process recovered meanwhile are not recovered twice.
// release(true) says every run of the owner was recovered. Unfinished calls
// get an explicit "interrupted, not replayed" result and are never run
// again; results that were complete are kept and fed back. It returns the
// runs it marked.
func (e *Engine) Recover(ctx context.Context, claim func(owner string) (release func(done bool), gone bool)) ([]llm.Run, error) {
	runs, err := e.cfg.Store.RunningRuns(ctx)
	if err != nil {
		return nil, fmt.Errorf("recover: %w", err)
	}
	var owners []string
	seen := map[string]bool{}
	for _, run := range runs {
		if !seen[run.Owner] {
			seen[run.Owner] = true
			owners = append(owners, run.Owner)
		}
	}
	var marked []llm.Run
	for _, owner := range owners {
		release, gone := claim(owner)
		if !gone {
			continue
		}
		done, err := e.recoverOwner(ctx, owner, &marked)
		release(done && err == nil)
		if err != nil {
			return marked, err
		}
	}
	return marked, nil
}

// recoverOwner recovers the runs of one owner that is gone, read afresh.
// It reports whether none of them is left running.
func (e *Engine) recoverOwner(ctx context.Context, owner string, marked *[]llm.Run) (bool, error) {
	runs, err := e.cfg.Store.RunningRuns(ctx)
	if err != nil {
		return false, fmt.Errorf("recover: %w", err)
	}
	done := true
	for _, run := range runs {
		if run.Owner != owner {
			continue
		}
		e.mu.Lock()
		_, busy := e.active[run.SessionID]
		e.mu.Unlock()
		if busy {
			done = false
			continue
		}
		if err := e.recoverRun(ctx, run); err != nil {
			return false, err
		}
		*marked = append(*marked, run)
	}
	return done, nil
}

func (e *Engine) recoverRun(ctx context.Context, run llm.Run) error {
	calls, err := e.cfg.Store.Calls(ctx, run.ID)
	if err != nil {
		return fmt.Errorf("recover run %s: %w", run.ID, err)
	}
	msgs, err := e.cfg.Store.Messages(ctx, run.SessionID)
	if err != nil {
		return fmt.Errorf("recover run %s: %w", run.ID, err)
	}
	now := time.Now()
	var c llm.Commit
	byID := map[string]*llm.CallRecord{}
	prior := e.prior(run.SessionID)
	asked := map[string]bool{} // the tools asked about a running call
	for i := range calls {
		cr := &calls[i]
		byID[cr.ID] = cr
		if cr.State.Terminal() {
			continue
		}
		what := "waiting to run"
		var changes []llm.FileChange
		if cr.State == llm.CallRunning {
			what = "running"
			asked[cr.Name] = true
			if changes, err = e.recoverChanges(ctx, run, *cr, prior, &c); err != nil {
				return fmt.Errorf("recover run %s: %w", run.ID, err)
			}
		}
		cr.State, cr.EndedAt = llm.CallInterrupted, now
		cr.Result = &llm.ToolResult{Text: fmt.Sprintf(interruptedText, what), IsError: true, FileChanges: changes}
		if len(changes) > 0 {
			cr.Result.Text += fmt.Sprintf(" Its files are not what Foya recorded before it: %d change(s) recorded as unconfirmed, from what the disk holds now.", len(changes))
		}
		c.Calls = append(c.Calls, *cr)
		c.Events = append(c.Events, endEvent(*cr, 0))
	}
	if err := e.recoverLingering(ctx, run, calls, asked, prior, &c); err != nil {
		return fmt.Errorf("recover run %s: %w", run.ID, err)
	}
	// Every call the history shows the model must be answered, or the
	// conversation cannot go on: answer the unanswered ones from their
	// stored results.
	answered := map[string]bool{}
	for _, m := range msgs {
		if m.Message.Role == llm.RoleTool {
			answered[m.Message.ToolCallID] = true
		}
	}
	for _, m := range msgs {
		if m.RunID != run.ID || m.Message.Role != llm.RoleAssistant {
			continue
		}
		for _, tc := range m.Message.ToolCalls {
			if answered[tc.ID] {
				continue
			}
			res := &llm.ToolResult{Text: fmt.Sprintf(interruptedText, "waiting to run"), IsError: true}
			rec := llm.CallRecord{ID: tc.ID, Name: tc.Name}
			if cr, ok := byID[tc.ID]; ok && cr.Result != nil {
				res, rec = cr.Result, *cr
			}
			c.Messages = append(c.Messages, llm.StoredMessage{SessionID: run.SessionID, RunID: run.ID, Message: toolMessage(rec, res),
				Child: run.ParentCallID != ""})
			answered[tc.ID] = true
		}
	}
	run.Status, run.EndedAt = llm.RunInterrupted, now
	run.Error = "interrupted: Foya stopped during this run; unfinished tool calls were not replayed"
	c.Run = &run
	c.Events = append(c.Events,
		event.RunInterrupted(event.RunInterruptedData{Calls: len(c.Calls)}),
		event.RunEnd(event.RunEndData{Status: run.Status, Error: run.Error, Steps: run.Steps, Usage: run.Usage}),
	)
	for i := range c.Events {
		c.Events[i].SessionID, c.Events[i].RunID = run.SessionID, run.ID
		c.Events[i].ParentCallID = run.ParentCallID
	}
	if _, err := e.pub.commit(ctx, run.SessionID, c); err != nil {
		return fmt.Errorf("recover run %s: %w", run.ID, err)
	}
	return nil
}

// recoverChanges asks the tool of a call that was running whether it left
// files other than the session's records say (tools.Recoverable), and adds
// what it found to c as File Changes marked unconfirmed, with their
// contents. It never runs the call.
func (e *Engine) recoverChanges(ctx context.Context, run llm.Run, cr llm.CallRecord, prior *priors, c *llm.Commit) ([]llm.FileChange, error) {
	t, _, ok := e.cfg.Tools.Lookup(cr.Name)
	if !ok {
		return nil, nil
	}
	r, ok := t.(tools.Recoverable)
	if !ok {
		return nil, nil
	}
	sess, err := e.cfg.Store.Session(ctx, run.SessionID)
	if err != nil {
		return nil, err
	}
	rc := &tools.RunContext{SessionID: sess.ID, RunID: run.ID, Workdir: sess.Workdir, ApprovalMode: sess.ApprovalMode,
		Provider: sess.Provider, Model: sess.Model}
	found, err := r.Recover(ctx, rc, tools.Call{ID: cr.ID, Name: cr.Name, Arguments: json.RawMessage(cr.Arguments)}, prior.get)
	if err != nil {
		return nil, err
	}
	var out []llm.FileChange
	for _, fc := range found {
		rec := fc.FileChange
		rec.ID, rec.SessionID, rec.RunID, rec.CallID, rec.Tool = NewID("chg"), run.SessionID, run.ID, cr.ID, cr.Name
		rec.Unconfirmed, rec.CreatedAt = true, time.Now()
		rec.Diff = e.cfg.Mask(rec.Diff)
		if err := prior.add(ctx, rec, fc.After); err != nil {
			return nil, err
		}
		c.AddChange(rec, fc.Before, fc.After)
		out = append(out, rec)
	}
	return out, nil
}

// recoverLingering asks each tools.Lingering tool not asked about a
// running call of the run about its newest ended call that may have left
// work running (a background command), and adds what it found to c as
// unconfirmed File Changes of that call, with a file.captured event. The
// call's stored result stays as it was.
func (e *Engine) recoverLingering(ctx context.Context, run llm.Run, calls []llm.CallRecord, asked map[string]bool, prior *priors, c *llm.Commit) error {
	for i := len(calls) - 1; i >= 0; i-- {
		cr := calls[i]
		if asked[cr.Name] || !cr.State.Terminal() {
			continue
		}
		t, _, ok := e.cfg.Tools.Lookup(cr.Name)
		if !ok {
			continue
		}
		l, ok := t.(tools.Lingering)
		if !ok || !l.Lingers(tools.Call{ID: cr.ID, Name: cr.Name, Arguments: json.RawMessage(cr.Arguments)}) {
			continue
		}
		asked[cr.Name] = true
		changes, err := e.recoverChanges(ctx, run, cr, prior, c)
		if err != nil {
			return err
		}
		if len(changes) > 0 {
			ev := event.FileCaptured(event.FileCapturedData{CallID: cr.ID, FileChanges: changes})
			c.Events = append(c.Events, ev)
		}
	}
	return nil
}

// priors is a session's tools.Prior for one recovery: the newest File
// Change of each path, read once, and the content of its after side,
// kept up to date with the changes the recovery adds before they are
// stored. Without that, two calls recovered in one commit (a write that
// was running and a background command of the run) both recorded a
// path's change from the stored newest record, and the second did not
// start where the first left it (the crash harness found it, issue 16
// item 1).
type priors struct {
	e         *Engine
	sessionID string
	newest    map[string]llm.FileChange
	after     map[string][]byte // the added changes' after sides
}

func (e *Engine) prior(sessionID string) *priors {
	return &priors{e: e, sessionID: sessionID, after: map[string][]byte{}}
}

// get implements tools.Prior.
func (p *priors) get(ctx context.Context, path string) (llm.FileChange, []byte, bool, error) {
	if p.newest == nil {
		list, err := p.e.cfg.Store.FileChanges(ctx, p.sessionID)
		if err != nil {
			return llm.FileChange{}, nil, false, err
		}
		p.newest = map[string]llm.FileChange{}
		for _, fc := range list {
			p.newest[fc.Path] = fc
		}
	}
	fc, ok := p.newest[path]
	if !ok || !fc.ExistsAfter || fc.IsDir || fc.SHAAfter == "" {
		return fc, nil, ok, nil
	}
	if data, ok := p.after[path]; ok {
		return fc, data, true, nil
	}
	// No blob means contents too large to keep: the change is then
	// recorded without a diff, and cannot restore them.
	data, _ := p.e.cfg.Store.Blob(ctx, fc.SHAAfter)
	return fc, data, true, nil
}

// add makes rec, about to be stored with after as its after side's
// content, the newest change of its path.
func (p *priors) add(ctx context.Context, rec llm.FileChange, after []byte) error {
	if _, _, _, err := p.get(ctx, rec.Path); err != nil {
		return err
	}
	p.newest[rec.Path] = rec
	p.after[rec.Path] = after
	return nil
}

// RecoverJob gives a background command that was alive when the process
// running it died what differs between its session's saved workspace index
// and the disk (the Recover of the tool of its call, callID of run runID),
// as unconfirmed File Changes of that call with a file.captured event,
// whatever state the run is in: a command outlives its run, so its changes
// may come after the run ended. The call's stored result
// stays as it was. It returns how many changes it recorded; a call the
// store does not have gets none.
func (e *Engine) RecoverJob(ctx context.Context, sessionID, runID, callID string) (int, error) {
	calls, err := e.cfg.Store.Calls(ctx, runID)
	if err != nil {
		return 0, fmt.Errorf("recover background call %s: %w", callID, err)
	}
	for _, cr := range calls {
		if cr.ID != callID {
			continue
		}
		run := llm.Run{ID: runID, SessionID: sessionID}
		var c llm.Commit
		changes, err := e.recoverChanges(ctx, run, cr, e.prior(sessionID), &c)
		if err != nil {
			return 0, fmt.Errorf("recover background call %s: %w", callID, err)
		}
		if len(changes) == 0 {
			return 0, nil
		}
		ev := event.FileCaptured(event.FileCapturedData{CallID: cr.ID, FileChanges: changes})
		ev.SessionID, ev.RunID = sessionID, runID
		c.Events = append(c.Events, ev)
		if _, err := e.pub.commit(ctx, sessionID, c); err != nil {
			return 0, fmt.Errorf("recover background call %s: %w", callID, err)
		}
		return len(changes), nil
	}
	return 0, nil
}
