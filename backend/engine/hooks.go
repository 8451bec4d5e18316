package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"foya/backend/approval"
	"foya/backend/event"
	"foya/backend/hooks"
	"foya/backend/llm"
	"foya/backend/tools"
)

// Hooks (docs/hooks.md) run at four points of a turn: before a call
// (runCall, beforeHooks), after it (afterHooks), when Foya asks the
// person (ask, approvalHooks) and at the turn's end (finish, turnHooks).
// The set is read once, at the turn's start (Config.Hooks), like the
// project's instructions: a hooks file changed during the turn counts
// from the next one, and then only once approved again. Every run of a
// hook is stored as a hook.run event, so none fails unseen; before a
// call, a hook that fails refuses the call (fail closed).

// loadHooks reads the turn's hooks and stores a hook.run event for each
// file whose hooks do not run.
func (r *runner) loadHooks(ctx context.Context) error {
	if r.e.cfg.Hooks == nil {
		return nil
	}
	r.hooks = r.e.cfg.Hooks(ctx, r.sess.Workdir)
	if r.child != nil || len(r.hooks.Skipped) == 0 {
		return nil
	}
	var c llm.Commit
	for _, s := range r.hooks.Skipped {
		c.Events = append(c.Events, r.hookEvent(event.HookRunData{Source: string(s.Source), File: s.File,
			Status: event.HookSkipped, Error: s.Why}))
	}
	return r.rec.commit(ctx, c)
}

// hookEvent is the hook.run event of d, masked like a tool's output.
func (r *runner) hookEvent(d event.HookRunData) llm.Event {
	ev := event.HookRun(d)
	ev.Data = json.RawMessage(r.e.cfg.Mask(string(ev.Data)))
	return ev
}

// hookInput is the part of every hook's input this run sets.
func (r *runner) hookInput(ev hooks.Event, mode approval.Mode) hooks.Input {
	return hooks.Input{Event: ev, SessionID: r.sess.ID, RunID: r.run.ID, Workdir: r.sess.Workdir, ApprovalMode: string(mode)}
}

// toolInput is a call as hooks get it.
func toolInput(rec llm.CallRecord) *hooks.ToolInput {
	t := &hooks.ToolInput{Name: rec.Name, CallID: rec.ID, ArgumentsBytes: len(rec.Arguments), Arguments: json.RawMessage("null")}
	if a := strings.TrimSpace(rec.Arguments); a == "" {
		t.Arguments = json.RawMessage("{}")
	} else if len(a) <= hooks.MaxInputArgs && json.Valid([]byte(a)) {
		t.Arguments = json.RawMessage(a)
	}
	return t
}

// runHooks runs the hooks of ev for tool, in order, storing each one's
// hook.run event as it ends; stop, if set, ends the list early after an
// outcome (a deny before a call).
func (r *runner) runHooks(ctx context.Context, ev hooks.Event, tool, callID string, in hooks.Input, stop func(hooks.Outcome) bool) ([]hooks.Outcome, error) {
	var outs []hooks.Outcome
	for _, h := range r.hooks.Matching(ev, tool) {
		o := r.hooks.Runner.Run(ctx, h, r.sess.Workdir, in)
		outs = append(outs, o)
		d := event.HookRunData{Hook: h.Name, Event: string(ev), Source: string(h.Source), File: h.File, CallID: callID, Tool: tool,
			Status: event.HookOK, Decision: string(o.Decision), Reason: o.Reason, Note: o.Note, Error: o.Failed,
			DurationMs: o.Duration.Milliseconds(), Output: o.Output, Sandbox: o.Sandbox}
		if o.Failed != "" {
			d.Status = event.HookFailed
		}
		if o.ExitCode >= 0 {
			code := o.ExitCode
			d.ExitCode = &code
		}
		if err := r.rec.commit(ctx, llm.Commit{Events: []llm.Event{r.hookEvent(d)}}); err != nil {
			return outs, err
		}
		if stop != nil && stop(o) {
			break
		}
	}
	return outs, nil
}

// hookName names a hook for the model and the person.
func hookName(h hooks.Hook) string {
	return fmt.Sprintf("%s hook %q (%s)", h.Source, h.Name, h.File)
}

// beforeHooks runs the before_tool hooks of a call. A deny, or a hook that
// fails, refuses the call: refused is the result the model gets. An ask
// asks the person, in every mode; their denial refuses the call too.
// notes are the hooks' notes, for the call's result.
func (r *runner) beforeHooks(ctx context.Context, p *prepared, mode approval.Mode) (refused *tools.Result, notes []string, err error) {
	if len(r.hooks.Matching(hooks.BeforeTool, p.rec.Name)) == 0 {
		return nil, nil, nil
	}
	in := r.hookInput(hooks.BeforeTool, mode)
	in.Tool = toolInput(p.rec)
	outs, err := r.runHooks(ctx, hooks.BeforeTool, p.rec.Name, p.rec.ID, in, func(o hooks.Outcome) bool {
		return o.Failed != "" || o.Decision == hooks.Deny
	})
	if err != nil {
		return nil, nil, err
	}
	var asks []hooks.Outcome
	for _, o := range outs {
		if o.Note != "" {
			notes = append(notes, fmt.Sprintf("[note from the %s: %s]", hookName(o.Hook), o.Note))
		}
		switch {
		case o.Failed != "":
			return &tools.Result{IsError: true, Text: fmt.Sprintf("not run: the %s failed, so the call was refused: %s. "+
				"The user sees why; do not try to get around the hook", hookName(o.Hook), o.Failed)}, nil, nil
		case o.Decision == hooks.Deny:
			why := o.Reason
			if why == "" {
				why = "it gave no reason"
			}
			return &tools.Result{IsError: true, Text: fmt.Sprintf("denied by the %s: %s", hookName(o.Hook), why)}, nil, nil
		case o.Decision == hooks.Ask:
			asks = append(asks, o)
		}
	}
	for _, o := range asks {
		reason := fmt.Sprintf("the %s asks you before this call", hookName(o.Hook))
		if o.Reason != "" {
			reason += ": " + o.Reason
		}
		preview, _ := hooks.Cut(p.rec.Arguments, 4<<10)
		req := approval.Request{Action: approval.Action{Kind: approval.Hook, Tool: p.rec.Name},
			Why: fmt.Sprintf("call %s with these arguments", p.rec.Name), Preview: preview}
		out, err := r.ask(ctx, p.rec.ID, mode, req, reason, nil)
		if err != nil {
			return nil, nil, err
		}
		if !out.Allowed {
			return &tools.Result{IsError: true, Text: out.Message + " (the " + hookName(o.Hook) + " asked)"}, nil, nil
		}
	}
	return nil, notes, nil
}

// afterHooks runs the after_tool hooks of a call that ran, and returns
// what they add to its result: their notes, and a line for each that
// failed.
func (r *runner) afterHooks(ctx context.Context, rec llm.CallRecord, mode approval.Mode, res tools.Result) ([]string, error) {
	if len(r.hooks.Matching(hooks.AfterTool, rec.Name)) == 0 {
		return nil, nil
	}
	in := r.hookInput(hooks.AfterTool, mode)
	in.Tool = toolInput(rec)
	text := r.e.cfg.Mask(res.Text)
	cut, truncated := hooks.Cut(text, hooks.MaxInputText)
	in.Result = &hooks.ResultInput{Text: cut, IsError: res.IsError, TextBytes: len(text), Truncated: truncated}
	outs, err := r.runHooks(ctx, hooks.AfterTool, rec.Name, rec.ID, in, nil)
	var notes []string
	for _, o := range outs {
		switch {
		case o.Failed != "":
			notes = append(notes, fmt.Sprintf("[the %s failed: %s]", hookName(o.Hook), o.Failed))
		case o.Note != "":
			notes = append(notes, fmt.Sprintf("[note from the %s: %s]", hookName(o.Hook), o.Note))
		}
	}
	return notes, err
}

// withNotes ends a result's text with the hooks' notes.
func withNotes(text string, notes []string) string {
	for _, n := range notes {
		if text != "" && !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		text += n
	}
	return text
}

// approvalHooks runs the approval hooks of a request Foya is about to ask
// the person. A deny answers it (decided), as does a user's hook's allow;
// a hook that fails is shown, and the person is asked as without it.
func (r *runner) approvalHooks(ctx context.Context, callID string, mode approval.Mode, req approval.Request, reason string) (approval.Outcome, bool, error) {
	tool := req.Action.Tool
	if len(r.hooks.Matching(hooks.Approval, tool)) == 0 {
		return approval.Outcome{}, false, nil
	}
	in := r.hookInput(hooks.Approval, mode)
	a := req.Action
	in.Approval = &hooks.ApprovalInput{Kind: string(a.Kind), Tool: a.Tool, Command: a.Command, Paths: a.Paths, Host: a.Host, Why: req.Why, Reason: reason}
	outs, err := r.runHooks(ctx, hooks.Approval, tool, callID, in, func(o hooks.Outcome) bool {
		return o.Decision == hooks.Deny || o.Decision == hooks.Allow
	})
	if err != nil {
		return approval.Outcome{}, false, err
	}
	for _, o := range outs {
		switch o.Decision {
		case hooks.Deny:
			msg := "denied by the " + hookName(o.Hook)
			if o.Reason != "" {
				msg += ": " + o.Reason
			}
			return approval.Outcome{Message: msg}, true, nil
		case hooks.Allow:
			if o.Hook.Source == hooks.User { // hooks.Run refuses a project's allow
				return approval.Outcome{Allowed: true, Reason: "allowed by your " + hookName(o.Hook)}, true, nil
			}
		}
	}
	return approval.Outcome{}, false, nil
}

// turnHooks runs the turn_end hooks of a top-level run that ended; they
// run even when the run was cancelled (bounded by their own timeouts).
func (r *runner) turnHooks(ctx context.Context) error {
	if r.child != nil || len(r.hooks.Matching(hooks.TurnEnd, "")) == 0 {
		return nil
	}
	mode, err := r.callMode(ctx)
	if err != nil {
		mode = approval.Manual
	}
	in := r.hookInput(hooks.TurnEnd, mode)
	answer, _ := hooks.Cut(r.e.cfg.Mask(r.answer), hooks.MaxInputText)
	in.Turn = &hooks.TurnInput{Status: string(r.run.Status), Error: r.run.Error, Steps: r.run.Steps, Answer: answer}
	_, err = r.runHooks(ctx, hooks.TurnEnd, "", "", in, nil)
	return err
}
