package tools

import (
	"context"
	"fmt"

	"foya/backend/approval"
	"foya/backend/event"
)

func sprintf(format string, args ...any) string {
	if len(args) == 0 {
		return format
	}
	return fmt.Sprintf(format, args...)
}

// RunContext is what the engine tells a tool about the call's surroundings
// (spec C1). It is built per step and passed explicitly: there is no global
// "current session", so sessions run concurrently (spec C2). Tools must not
// keep it beyond the call.
type RunContext struct {
	SessionID string
	RunID     string
	ProjectID string
	Workdir   string
	// ApprovalMode is the session's mode when this call started. The
	// approval decisions of this call are made with the same mode, so a
	// tool may plan with it (a switch mid-call applies from the next call).
	ApprovalMode string
	Provider     string
	Model        string
	// Exposed is the snapshot of tool names visible to the model in this
	// step, sorted.
	Exposed []string
	// Activator turns deferred tools on for the rest of the turn, from the
	// next step on (spec E2).
	Activator Activator
	// Update reports progress of a running call to clients as a tool.update
	// event. It may be nil.
	Update func(p event.Progress)
	// ParentCallID is set when the call belongs to a sub-agent's run: the
	// task call that started that run (RunID), whose history is its own.
	ParentCallID string
	// Agents starts sub-agents (the task tool); nil where none may start.
	Agents Agents
	// Approval asks the approval gateway whether an action may happen; it
	// blocks while a person decides. Nil allows everything (unit tests of a
	// tool alone); the engine always sets it.
	Approval func(ctx context.Context, req approval.Request) (approval.Outcome, error)
	// ChangeLock takes the session's change lock for this call, for a
	// change of paths (none for a look); see LockChanges. Nil (a tool's
	// unit tests) locks nothing.
	ChangeLock func(ctx context.Context, paths []string) (release func(), err error)
}

// LockChanges takes the session's change lock for this call: while it is
// held, no other call, background command's capture
// or revert of the session looks at the workspace to record what changed,
// nor changes it for Foya. A tool takes it before it changes the
// workspace (write, edit, delete) or looks at it (bash's captures), and
// keeps it until its File Changes are stored: what it still holds when it
// returns, the engine releases once the call's result is stored. release
// lets go of it earlier (bash, before its command runs); a second
// LockChanges takes it again. It waits while another holds it, until ctx
// ends. paths are the absolute paths the tool is about to change: what a
// live background command of the session changed there and nobody looked
// at yet is recorded as that command's change first, under the lock, so
// the tool's record starts where the command's left off and neither
// change is taken for the other's.
func (rc *RunContext) LockChanges(ctx context.Context, paths ...string) (release func(), err error) {
	if rc == nil || rc.ChangeLock == nil {
		return func() {}, nil
	}
	return rc.ChangeLock(ctx, paths)
}

// Approve asks for an action. An error means the program is broken (or ctx
// ended); a refusal is an Outcome with Allowed false.
func (rc *RunContext) Approve(ctx context.Context, req approval.Request) (approval.Outcome, error) {
	if rc == nil || rc.Approval == nil {
		return approval.Outcome{Allowed: true}, nil
	}
	return rc.Approval(ctx, req)
}

// Activator activates deferred tools for the current turn.
type Activator interface {
	Activate(names ...string)
}

// Report sends a progress update if the context has a sink.
func (rc *RunContext) Report(p event.Progress) {
	if rc != nil && rc.Update != nil {
		rc.Update(p)
	}
}

// Agents starts sub-agents: child runs of the calling run, each with its own
// history, that share its session, approval mode and gateway, so a child
// can do nothing its parent could not. The engine gives each call its own.
type Agents interface {
	// Start runs a child to its end and returns how it ended. A request
	// the engine refuses (an unknown tool, nesting too deep) is an
	// AgentResult with Refused set; an error means the program is broken.
	Start(ctx context.Context, req AgentRequest) (AgentResult, error)
}

// AgentRequest asks for one sub-agent.
type AgentRequest struct {
	Description string
	Prompt      string
	// Tools is the child's allowlist; nil means every tool the calling run
	// may use except task.
	Tools    []string
	MaxSteps int
}

// AgentResult is how a sub-agent ended.
type AgentResult struct {
	// Refused says why the child was not started; the rest is then empty.
	Refused string
	RunID   string
	// Status is the child run's status: completed, failed or cancelled.
	Status string
	// Answer is the child's last answer (its text when it ended).
	Answer string
	Error  string
	Steps  int
}
