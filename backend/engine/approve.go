package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"foya/backend/approval"
	"foya/backend/event"
	"foya/backend/llm"
)

// rules are the rules Decide applies to this session: the user's own and
// the project's, with the project's approval (Config.Rules). Without
// Config.Rules, the project's rules are read unapproved: their deny and ask
// rules apply, their allow rules do not.
func (r *runner) rules(ctx context.Context) []*approval.Rules {
	if r.e.cfg.Rules != nil {
		return r.e.cfg.Rules(ctx, r.sess.Workdir)
	}
	return []*approval.Rules{approval.LoadRules(r.sess.Workdir)}
}

// canceled is a context that is already done.
var canceled = func() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}()

// callMode is the session's approval mode as it is now (it may change
// mid-run), read once when a call starts: the call's RunContext carries it
// and every approval decision of the call uses it, so that a tool plans
// with the mode the gateway decides with. An unknown
// stored mode reads as Manual, the strictest.
func (r *runner) callMode(ctx context.Context) (approval.Mode, error) {
	var mode string
	if ms, ok := r.e.cfg.Store.(ModeStore); ok {
		var err error
		if mode, err = ms.ApprovalMode(ctx, r.sess.ID); err != nil {
			return approval.Manual, fmt.Errorf("read the session's approval mode: %w", err)
		}
	} else {
		sess, err := r.e.cfg.Store.Session(ctx, r.sess.ID)
		if err != nil {
			return approval.Manual, fmt.Errorf("read the session's approval mode: %w", err)
		}
		mode = sess.ApprovalMode
	}
	m, err := approval.ParseMode(mode)
	if err != nil {
		return approval.Manual, nil
	}
	return m, nil
}

// approve is the approval gateway as tools see it (spec A1): the policy
// decides from the call's mode (see callMode), the session's remembered
// grants and the project's rules; what needs a person is stored, announced
// as approval.request, and waits for the first answer.
func (r *runner) approve(ctx context.Context, callID string, mode approval.Mode, req approval.Request) (approval.Outcome, error) {
	req.CallID = callID
	raw, err := r.e.cfg.Store.Grants(ctx, r.sess.ID)
	if err != nil {
		return approval.Outcome{}, fmt.Errorf("approval: %w", err)
	}
	grants := make([]approval.Grant, 0, len(raw))
	for _, g := range raw {
		var gr approval.Grant
		if json.Unmarshal(g, &gr) == nil {
			grants = append(grants, gr)
		}
	}
	d := approval.Decide(mode, req.Action, grants, r.rules(ctx)...)
	switch d.Verdict {
	case approval.Allow:
		return approval.Outcome{Allowed: true, Reason: d.Reason, ByMode: d.ByMode}, nil
	case approval.Refuse:
		return approval.Outcome{Message: "refused: " + d.Reason}, nil
	}
	return r.ask(ctx, callID, mode, req, d.Reason, approval.Scopes(req.Action))
}

// ask asks the person (spec A1): the approval hooks run first (they may
// deny, and the user's own allow); then the request is stored, announced
// as approval.request, and waits for the first answer. scopes are the
// grants the person may choose for "allow for this session" (none: allow
// once or deny).
func (r *runner) ask(ctx context.Context, callID string, mode approval.Mode, req approval.Request, reason string, scopes []approval.Grant) (approval.Outcome, error) {
	req.CallID = callID
	if out, decided, err := r.approvalHooks(ctx, callID, mode, req, reason); decided || err != nil {
		return out, err
	}
	gw := r.e.cfg.Gateway
	if gw == nil {
		if req.Action.Kind == approval.Hook {
			return approval.Outcome{Message: "not run: " + reason + ", and no one can answer here (Foya runs headless); " +
				"run it where you can answer, or change the hook"}, nil
		}
		return approval.Outcome{Message: unanswered(mode, req.Action, reason)}, nil
	}
	p := approval.Pending{
		ID: NewID("apr"), SessionID: r.sess.ID, RunID: r.run.ID, Request: req, Reason: reason,
		Scopes: scopes, AskedAt: time.Now(),
	}
	if r.child != nil {
		p.SubAgent = r.child.description
	}
	gw.Open(p) // before it is announced, so an answer can never come too early
	rec := llm.ApprovalRecord{ID: p.ID, SessionID: p.SessionID, RunID: p.RunID, CallID: callID, State: event.ApprovalPending,
		Request: llm.Data(req), AskedAt: p.AskedAt}
	if err := r.rec.commit(ctx, llm.Commit{
		Approvals: []llm.ApprovalRecord{rec},
		Events:    []llm.Event{event.ApprovalRequest(requestData(p))},
	}); err != nil {
		gw.Wait(canceled, p.ID) // withdraw it
		return approval.Outcome{}, err
	}
	ans, werr := gw.Wait(ctx, p.ID)
	rec.AnsweredAt = time.Now()
	c := llm.Commit{}
	out := approval.Outcome{}
	switch {
	case werr != nil:
		rec.State = event.ApprovalCancelled
		ans = approval.Answer{Choice: approval.Deny, Message: "the run was cancelled"}
	case ans.Choice == approval.Deny:
		rec.State = event.ApprovalDenied
		out.Message = "denied by the user: no changes made"
		if ans.Message != "" {
			out.Message = "denied by the user: " + ans.Message
		}
	default:
		rec.State = event.ApprovalAllowed
		out.Allowed = true
		out.Reason = "allowed by your answer 'allow once'"
		if ans.Scope != nil {
			out.Reason = "allowed by your answer 'allow for this session' (" + ans.Scope.String() + ")"
		}
		scope := ans.Scope
		if ans.Choice == approval.AllowOnce && mode == approval.Auto && req.Action.Kind == approval.Fetch && req.Action.Host != "" {
			// Auto asks once per host.
			scope = &approval.Grant{Kind: approval.Fetch, Host: req.Action.Host}
		}
		if scope != nil && req.Action.Kind != approval.Hook {
			c.Grants = []llm.GrantRecord{{SessionID: r.sess.ID, Grant: llm.Data(scope)}}
		}
	}
	rec.Answer = llm.Data(ans)
	c.Approvals = []llm.ApprovalRecord{rec}
	c.Events = []llm.Event{event.ApprovalAnswer(event.ApprovalAnswerData{ID: p.ID, CallID: callID, State: rec.State, Answer: answerData(ans)})}
	if err := r.rec.commit(ctx, c); err != nil {
		return approval.Outcome{}, err
	}
	if werr != nil {
		return approval.Outcome{}, werr
	}
	return out, nil
}

// requestData is the approval.request payload of p: event mirrors the
// approval types it carries, field for field (event imports no Foya
// package; approval imports llm, which imports event).
func requestData(p approval.Pending) event.ApprovalRequestData {
	scopes := make([]event.Grant, len(p.Scopes))
	for i, g := range p.Scopes {
		scopes[i] = grantData(g)
	}
	if p.Scopes == nil {
		scopes = nil
	}
	a := p.Request.Action
	return event.ApprovalRequestData{
		ID: p.ID, SessionID: p.SessionID, RunID: p.RunID, Reason: p.Reason, Scopes: scopes, AskedAt: p.AskedAt,
		SubAgent: p.SubAgent,
		Request: event.Ask{
			CallID: p.Request.CallID, Why: p.Request.Why, Preview: p.Request.Preview,
			Action: event.Action{Kind: string(a.Kind), Tool: a.Tool, Paths: a.Paths, Command: a.Command, Host: a.Host, Addresses: a.Addresses, ReadOnly: a.ReadOnly,
				MCPServer: a.MCPServer, MCPTool: a.MCPTool, Parsed: parsedData(a.ParsedCommand())},
		},
	}
}

// parsedData is a parsed shell command as the approval.request payload
// carries it, lists empty rather than null; nil for none.
func parsedData(c *approval.Command) *event.ParsedCommand {
	if c == nil {
		return nil
	}
	out := &event.ParsedCommand{Simple: make([][]string, 0, len(c.Simple)), Deletes: nonNil(c.PermanentDelete()), Opaque: nonNil(c.Opaque())}
	for _, sc := range c.Simple {
		out.Simple = append(out.Simple, nonNil(sc.Args))
	}
	return out
}

// nonNil makes an empty list [] in JSON, not null.
func nonNil(v []string) []string {
	if v == nil {
		return []string{}
	}
	return v
}

func grantData(g approval.Grant) event.Grant {
	return event.Grant{Kind: string(g.Kind), Tool: g.Tool, Prefix: g.Prefix, Host: g.Host, Folder: g.Folder}
}

// answerData is an answer as the approval.answer payload carries it.
func answerData(a approval.Answer) event.Answer {
	out := event.Answer{Choice: string(a.Choice), Message: a.Message}
	if a.Scope != nil {
		g := grantData(*a.Scope)
		out.Scope = &g
	}
	return out
}
