package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"foya/backend/approval"
	"foya/backend/event"
	"foya/backend/llm"
	"foya/backend/tools"
)

// MaxCallsPerStep is the most tool calls of one model answer that run; the
// calls after them are answered with an error instead. It is far above what
// any model sends on purpose (tens of reads at most), and low enough that a
// model caught in a loop that proposes ten thousand calls cannot spend the
// whole turn, the approvals of a person and the next request's size on them.
const MaxCallsPerStep = 1000

// prepared is a call ready to run, or already answered because it cannot.
type prepared struct {
	rec      llm.CallRecord
	tool     tools.Tool
	call     tools.Call
	parallel bool
	exposed  []string
	result   *llm.ToolResult // set when the call was refused before running
}

// batch runs one step's calls. Consecutive calls that their tools declare
// parallel-safe form a parallel lane of at most MaxParallel at once; every
// other call runs alone, in the model's order, after everything before it
// has finished (spec P1, P2, P3, P5). results[i] answers recs[i]; a nil
// entry means the call never ran. A non-nil error is a runtime failure that
// ends the run (spec K4).
func (r *runner) batch(ctx context.Context, step int, f tools.Filter, visible []string, recs []llm.CallRecord) ([]*llm.ToolResult, error) {
	results := make([]*llm.ToolResult, len(recs))
	preps := make([]*prepared, len(recs))
	var refused llm.Commit
	for i, rec := range recs {
		var p *prepared
		if i < MaxCallsPerStep {
			p = r.prepare(ctx, rec, visible)
		} else {
			p = &prepared{rec: rec, result: &llm.ToolResult{IsError: true, Text: fmt.Sprintf(
				"not run: your answer has %d tool calls and at most %d of one answer run; this is call %d. "+
					"Send the ones still needed again, at most %d at a time", len(recs), MaxCallsPerStep, i+1, MaxCallsPerStep)}}
		}
		preps[i] = p
		if p.result != nil {
			// spec T4: unknown tools and bad arguments are business errors.
			p.rec.State, p.rec.Result, p.rec.EndedAt = llm.CallError, p.result, time.Now()
			results[i] = p.result
			refused.Calls = append(refused.Calls, p.rec)
			refused.Events = append(refused.Events, endEvent(p.rec, 0))
		}
	}
	if len(refused.Calls) > 0 {
		if err := r.rec.commit(ctx, refused); err != nil {
			return results, err
		}
	}

	bctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu      sync.Mutex
		fatal   error
		stopped string // the tool that ended the batch
	)
	// carry is the end of the last serial call, held back so that it is
	// stored in one transaction with the start of the next serial call: in
	// the serial lane nothing happens between the two.
	var carry *llm.Commit
	run := func(i int, prev *llm.Commit, deferEnd bool) *llm.Commit {
		res, end, err := r.runCall(bctx, preps[i], prev, deferEnd)
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			if fatal == nil {
				fatal = err
				cancel()
			}
			return nil
		}
		results[i] = res
		if res.StopBatch && stopped == "" {
			stopped = preps[i].rec.Name
		}
		return end
	}
	halted := func() bool {
		mu.Lock()
		defer mu.Unlock()
		return fatal != nil || stopped != "" || bctx.Err() != nil
	}

	for i := 0; i < len(preps); {
		if halted() {
			break
		}
		if preps[i].result != nil {
			i++
			continue
		}
		if !preps[i].parallel {
			next := i + 1
			// The last call's end is held for the step's results.
			carry = run(i, carry, next == len(preps) || preps[next].result == nil && !preps[next].parallel)
			i++
			continue
		}
		if carry != nil {
			if err := r.rec.commit(ctx, *carry); err != nil {
				return results, err
			}
			carry = nil
		}
		// A run of consecutive parallel-safe calls.
		sem := make(chan struct{}, MaxParallel)
		var wg sync.WaitGroup
		for ; i < len(preps) && (preps[i].result != nil || preps[i].parallel); i++ {
			if preps[i].result != nil {
				continue
			}
			sem <- struct{}{}
			if halted() {
				<-sem
				break
			}
			j := i
			wg.Go(func() {
				defer func() { <-sem }()
				run(j, nil, false)
			})
		}
		wg.Wait()
	}

	if carry != nil {
		// Stored with what follows: the step's results.
		if err := r.rec.hold(ctx, *carry); err != nil && fatal == nil {
			fatal = err
		}
	}
	if fatal != nil {
		return results, fatal
	}
	if stopped != "" {
		c := llm.Commit{}
		for i, p := range preps {
			if results[i] == nil {
				res := &llm.ToolResult{Text: fmt.Sprintf("not run: %s ended this batch of calls", stopped), IsError: true}
				p.rec.State, p.rec.Result, p.rec.EndedAt = llm.CallError, res, time.Now()
				results[i] = res
				c.Calls = append(c.Calls, p.rec)
				c.Events = append(c.Events, endEvent(p.rec, 0))
			}
		}
		if len(c.Calls) > 0 {
			if err := r.rec.commit(ctx, c); err != nil {
				return results, err
			}
		}
	}
	return results, nil
}

// prepare checks the call's arguments, then looks its tool up among the
// tools visible in this step and checks the arguments against its schema
// (spec L2, K1). Arguments that are not whole JSON come first: such a call
// never runs, whatever it names, and the model is told that they were cut
// off. A hidden, deferred-but-inactive or unknown tool cannot be called even
// when the model names it (spec A1, E1).
func (r *runner) prepare(ctx context.Context, rec llm.CallRecord, visible []string) *prepared {
	p := &prepared{rec: rec, exposed: visible}
	refuse := func(format string, args ...any) *prepared {
		p.result = &llm.ToolResult{Text: fmt.Sprintf(format, args...), IsError: true}
		return p
	}
	args, err := validArgs(rec.Arguments)
	if err != nil {
		name := rec.Name
		if name == "" {
			name = "the call"
		}
		msg := err.Error()
		var ae *argsError
		if errors.As(err, &ae) {
			// The same mistake a second time: say how to avoid it.
			if r.mistakes == nil {
				r.mistakes = map[string]int{}
			}
			if r.mistakes[ae.kind]++; r.mistakes[ae.kind] >= 2 {
				msg += ". " + ae.hint()
			}
		}
		return refuse("%s: %s", name, msg)
	}
	if rec.Name == "" {
		return refuse("the call has no tool name; call one of: %s", strings.Join(visible, ", "))
	}
	t, _, ok := r.e.cfg.Tools.Lookup(rec.Name)
	if !ok || !contains(visible, rec.Name) {
		return refuse("unknown tool %q: it is not available in this step; available tools: %s", rec.Name, strings.Join(visible, ", "))
	}
	call := tools.Call{ID: rec.ID, Name: rec.Name, Arguments: args}
	if pc, ok := t.(tools.Prechecked); ok {
		// Before the schema check decodes the arguments: a call refused
		// for its size costs no decoding.
		if res := pc.Precheck(ctx, call); res != nil {
			p.result = &llm.ToolResult{Text: res.Text, IsError: true}
			return p
		}
	}
	if err := r.e.cfg.Tools.Validate(rec.Name, args); err != nil {
		return refuse("%v", err)
	}
	p.tool = t
	p.call = call
	if par, ok := t.(tools.Parallel); ok {
		p.parallel = par.ParallelSafe(p.call)
	}
	return p
}

// runCall runs one prepared call and records its start and its end. prev,
// if set, is the previous call's end, stored in the same transaction as this
// call's start. With deferEnd the end is returned instead of stored, for the
// next call to carry. It returns a Go error only for a runtime failure (a
// tool's error, a panic, storage).
func (r *runner) runCall(ctx context.Context, p *prepared, prev *llm.Commit, deferEnd bool) (*llm.ToolResult, *llm.Commit, error) {
	if err := r.stopIfUnstored(); err != nil {
		// The call does not start; the previous call's end is stored
		// all the same, so no call that ran is left without it.
		if prev != nil {
			if cerr := r.rec.commit(ctx, *prev); cerr != nil {
				return nil, nil, unstored(cerr)
			}
		}
		return nil, nil, err
	}
	p.rec.State, p.rec.StartedAt = llm.CallRunning, time.Now()
	start := llm.Commit{
		Calls:  []llm.CallRecord{p.rec},
		Events: []llm.Event{event.ToolUpdate(event.ToolUpdateData{Step: p.rec.Step, ID: p.rec.ID, Status: llm.CallRunning})},
	}
	if prev != nil {
		start = merge(*prev, start)
	}
	if err := r.rec.commit(ctx, start); err != nil {
		return nil, nil, err
	}
	// One mode for the whole call: the tool plans with it (bash: sandboxed
	// or not) and the gateway decides with it.
	mode, err := r.callMode(ctx)
	if err != nil {
		return nil, nil, err
	}
	var allowedBy []string // what allowed this call's actions, for its result
	// The change lock the tool still holds when it returns is released
	// once its end is stored (below), or when the call fails.
	cl := &callLock{locks: &r.e.changes, sessionID: r.sess.ID, workdir: r.sess.Workdir, changing: r.e.cfg.Changing}
	defer cl.release()
	rc := &tools.RunContext{
		SessionID:    r.sess.ID,
		RunID:        r.run.ID,
		ProjectID:    r.sess.ProjectID,
		Workdir:      r.sess.Workdir,
		ApprovalMode: string(mode),
		Provider:     r.sess.Provider,
		Model:        r.sess.Model,
		Exposed:      p.exposed,
		Activator:    r,
		Agents:       agents{r: r, callID: p.rec.ID},
		Approval: func(ctx context.Context, req approval.Request) (approval.Outcome, error) {
			out, err := r.approve(ctx, p.rec.ID, mode, req)
			if out.Noteworthy(req.Action.Kind) && !slices.Contains(allowedBy, out.Reason) {
				allowedBy = append(allowedBy, out.Reason)
			}
			return out, err
		},
		ChangeLock: cl.lock,
		Update: func(pr event.Progress) {
			// Masked as JSON text: the masker knows each value's
			// JSON-escaped form, and its replacement needs no escaping.
			ev := event.ToolUpdate(event.ToolUpdateData{Step: p.rec.Step, ID: p.rec.ID, Progress: &pr})
			ev.Data = json.RawMessage(r.e.cfg.Mask(string(ev.Data)))
			// A progress event that cannot be stored fails the run: the
			// recorder keeps the error, and the run stops before its next
			// call or step (stopIfUnstored).
			_ = r.rec.commit(ctx, llm.Commit{Events: []llm.Event{ev}})
		},
	}
	if r.child != nil {
		rc.ParentCallID = r.child.callID
	}
	var (
		res   tools.Result
		notes []string
	)
	refused, notes, err := r.beforeHooks(ctx, p, mode)
	if err != nil && ctx.Err() == nil {
		return nil, nil, err
	}
	switch {
	case err != nil:
		res, err = tools.Result{Text: "not run: the run was cancelled while a hook checked this call", IsError: true}, nil
	case refused != nil:
		res = *refused
	default:
		res, err = safeRun(ctx, p.tool, rc, p.call)
		if err == nil && ctx.Err() == nil {
			after, herr := r.afterHooks(ctx, p.rec, mode, res)
			if herr != nil && ctx.Err() == nil {
				return nil, nil, herr
			}
			notes = append(notes, after...)
		}
	}
	res.Text = withNotes(noteAllowed(res.Text, allowedBy), notes)
	dur := time.Since(p.rec.StartedAt)
	p.rec.EndedAt = time.Now()
	if err != nil {
		if ctx.Err() == nil {
			p.rec.State = llm.CallError
			p.rec.Result = &llm.ToolResult{Text: r.e.cfg.Mask("internal error: " + err.Error()), IsError: true}
			msg, _, _ := strings.Cut(err.Error(), "\n")
			failed := &runError{msg: fmt.Sprintf("tool %s failed: %s", p.rec.Name, msg)}
			if err := r.rec.commit(ctx, llm.Commit{Calls: []llm.CallRecord{p.rec}, Events: []llm.Event{endEvent(p.rec, dur)}}); err != nil {
				return nil, nil, unstored(fmt.Errorf("%s, and its end: %w", failed.msg, err))
			}
			return nil, nil, failed
		}
		res = tools.Result{Text: "cancelled: the run was cancelled while this call was running; it may have done part of its work", IsError: true}
	}
	stored, c := r.keep(p.rec, res)
	p.rec.State = llm.CallDone
	if stored.IsError {
		p.rec.State = llm.CallError
	}
	if ctx.Err() != nil && stored.IsError {
		// The tool gave up because the run was cancelled (spec X1).
		p.rec.State = llm.CallCancelled
	}
	p.rec.Result = stored
	c.Calls = []llm.CallRecord{p.rec}
	c.Events = []llm.Event{endEvent(p.rec, dur)}
	// A call that holds the change lock has its end, with its File
	// Changes, stored now: a look waiting for the lock must find them
	// stored, or it takes them for changes of its own.
	if deferEnd && ctx.Err() == nil && !stored.StopBatch && !cl.held() {
		return stored, &c, nil
	}
	if err := r.rec.commit(ctx, c); err != nil {
		return nil, nil, err
	}
	return stored, nil, nil
}

// noteAllowed ends a result with what allowed the call's actions, unless
// the tool said it already (bash does, in its sandbox note), so the model
// never has to guess who approved what.
func noteAllowed(text string, allowedBy []string) string {
	for _, why := range allowedBy {
		if strings.Contains(text, why) {
			continue
		}
		if text != "" && !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		text += strings.ToUpper(why[:1]) + why[1:] + "."
	}
	return text
}

// merge joins two commits into one, a's rows and events first.
func merge(a, b llm.Commit) llm.Commit {
	if a.Run == nil {
		a.Run = b.Run
	}
	if b.Session != nil {
		a.Session, a.NewSession = b.Session, b.NewSession
	}
	a.Calls = append(a.Calls, b.Calls...)
	a.Artifacts = append(a.Artifacts, b.Artifacts...)
	a.Blobs = append(a.Blobs, b.Blobs...)
	a.FileChanges = append(a.FileChanges, b.FileChanges...)
	a.Approvals = append(a.Approvals, b.Approvals...)
	a.Grants = append(a.Grants, b.Grants...)
	a.Messages = append(a.Messages, b.Messages...)
	a.ReadMarks = append(a.ReadMarks, b.ReadMarks...)
	a.Events = append(a.Events, b.Events...)
	return a
}

// keep turns a tool's result into its stored form: image bytes become
// artifacts in the session's store, referred to by ID (spec I1, I2), and
// known secret values are masked in every text, so that no tool (bash,
// bash_output, read, MCP) stores or sends them. The contents before and
// after a file change stay exact: revert restores them.
func (r *runner) keep(call llm.CallRecord, res tools.Result) (*llm.ToolResult, llm.Commit) {
	mask := r.e.cfg.Mask
	out := &llm.ToolResult{
		Text:        mask(res.Text),
		IsError:     res.IsError,
		Artifacts:   append([]string(nil), res.Artifacts...),
		StopBatch:   res.StopBatch,
		DisplayDiff: mask(res.DisplayDiff),
		ExitCode:    res.ExitCode,
		Background:  res.Background,
	}
	for _, d := range res.Denials {
		d.Text, d.Path, d.Host, d.Folder = mask(d.Text), mask(d.Path), mask(d.Host), mask(d.Folder)
		out.Denials = append(out.Denials, d)
	}
	var c llm.Commit
	// spec F1: file changes and their contents are stored in the same
	// transaction as the result.
	for _, fc := range res.FileChanges {
		rec := fc.FileChange
		rec.Diff = mask(rec.Diff)
		if rec.ID == "" {
			rec.ID = NewID("chg")
		}
		rec.SessionID, rec.RunID = r.sess.ID, r.run.ID
		if rec.CallID == "" {
			rec.CallID = call.ID
		}
		if rec.Tool == "" {
			rec.Tool = call.Name
		}
		c.AddChange(rec, fc.Before, fc.After)
		out.FileChanges = append(out.FileChanges, rec)
	}
	for _, img := range res.Images {
		w, h, err := checkImage(img.Data)
		if err != nil {
			// A broken or huge image is the tool's business failure.
			out.IsError = true
			out.Text = strings.TrimSpace(out.Text + "\n" + err.Error())
			continue
		}
		a := llm.Artifact{ID: NewID("art"), SessionID: r.sess.ID, MIME: img.MIME, Width: w, Height: h, Data: img.Data}
		c.Artifacts = append(c.Artifacts, a)
		out.Artifacts = append(out.Artifacts, a.ID)
		out.Parts = append(out.Parts, llm.Part{Type: llm.PartImage, ArtifactID: a.ID, MIME: img.MIME})
	}
	for _, au := range res.Audio {
		if len(au.Data) > MaxAudioBytes {
			out.Text = strings.TrimSpace(out.Text + fmt.Sprintf("\n[audio (%s, %d bytes) was not kept: more than the %d MB Foya keeps]", au.MIME, len(au.Data), MaxAudioBytes>>20))
			continue
		}
		a := llm.Artifact{ID: NewID("art"), SessionID: r.sess.ID, MIME: au.MIME, Data: au.Data}
		c.Artifacts = append(c.Artifacts, a)
		out.Artifacts = append(out.Artifacts, a.ID)
		out.Text = strings.TrimSpace(out.Text + fmt.Sprintf("\n[audio (%s, %d bytes) kept as artifact %s for the user; models are not given audio]", au.MIME, len(au.Data), a.ID))
	}
	return out, c
}

// MaxAudioBytes bounds one sound a tool result keeps as an artifact.
const MaxAudioBytes = 16 << 20

// safeRun runs a tool, turning a panic into an error: a panicking tool is a
// broken program and ends the run (spec K4), but never the process.
func safeRun(ctx context.Context, t tools.Tool, rc *tools.RunContext, call tools.Call) (res tools.Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v\n%s", p, debug.Stack())
		}
	}()
	return t.Run(ctx, rc, call)
}
