package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"foya/backend/llm"
	"foya/backend/tools"
)

// Sub-agents. A task call starts a child run of the same
// session: a run row linked to the parent run and call, with a history of
// its own (stored apart from the session's), its own tool allowlist and
// step limit, the session's approval mode and gateway, and the parent's
// model. Its events go through the session's one publisher with the parent
// call's ID on the envelope, so they reach clients in seq order among the
// parent's, nested under that call. It runs in the task call's goroutine
// under the call's context: cancelling the parent run cancels the child.

// TaskTool is the name of the tool that starts sub-agents; a child is not
// offered it unless its allowlist names it.
const TaskTool = "task"

// MaxAgentDepth is how deep sub-agents may nest: a child may start a
// grandchild only when its allowlist names task, and no deeper.
const MaxAgentDepth = 2

// Step limits of one sub-agent: the default, and the most a task call may
// ask for.
const (
	DefaultAgentSteps = 50
	MaxAgentSteps     = 200
)

// child is what a sub-agent's runner knows of its origin.
type child struct {
	callID      string
	description string
	depth       int      // 1 for a child of the session's run
	deny        []string // tools never offered to it (task, unless allowed)
}

// agents is the tools.Agents of one call: the sub-agents it starts are
// children of its run, linked to it.
type agents struct {
	r      *runner
	callID string
}

var _ tools.Agents = agents{}

// Start implements tools.Agents.
func (a agents) Start(ctx context.Context, req tools.AgentRequest) (tools.AgentResult, error) {
	return a.r.startChild(ctx, a.callID, req)
}

// childTools returns the allowlist of a child asked for with names (nil:
// the default) and the tools it must never be offered, or why the list is
// refused. A child gets at most what its parent may use: the parent's
// allowlist, and its denials.
func (r *runner) childTools(names []string) (allow, deny []string, refused string) {
	parentMay := func(name string) bool {
		if r.sess.Tools != nil && !slices.Contains(r.sess.Tools, name) {
			return false
		}
		return r.child == nil || !slices.Contains(r.child.deny, name)
	}
	if names == nil {
		// Every tool of the parent but task.
		return r.sess.Tools, []string{TaskTool}, ""
	}
	allow = []string{} // an empty list offers no tool
	var unknown, withheld []string
	for _, n := range names {
		if _, _, ok := r.e.cfg.Tools.Lookup(n); !ok {
			unknown = append(unknown, n)
			continue
		}
		if !parentMay(n) {
			withheld = append(withheld, n)
			continue
		}
		if !slices.Contains(allow, n) {
			allow = append(allow, n)
		}
	}
	switch {
	case len(unknown) > 0:
		return nil, nil, fmt.Sprintf("unknown tool name(s) in tools: %s; name tools this session has, or leave tools out for every tool but task",
			quoteAll(unknown))
	case len(withheld) > 0:
		return nil, nil, fmt.Sprintf("tool(s) %s are not available to this run, so a sub-agent cannot have them either", quoteAll(withheld))
	}
	slices.Sort(allow)
	if r.child != nil {
		deny = r.child.deny
	}
	return allow, deny, ""
}

func quoteAll(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}

// startChild runs one sub-agent to its end, under ctx (the task call's).
func (r *runner) startChild(ctx context.Context, callID string, req tools.AgentRequest) (tools.AgentResult, error) {
	depth := 1
	if r.child != nil {
		depth = r.child.depth + 1
	}
	if depth > MaxAgentDepth {
		return tools.AgentResult{Refused: fmt.Sprintf("sub-agents nest at most %d deep; do this part yourself", MaxAgentDepth)}, nil
	}
	if strings.TrimSpace(req.Prompt) == "" {
		return tools.AgentResult{Refused: "the prompt is empty: say what the sub-agent should do"}, nil
	}
	steps := req.MaxSteps
	if steps == 0 {
		steps = DefaultAgentSteps
	}
	if steps < 1 || steps > MaxAgentSteps {
		return tools.AgentResult{Refused: fmt.Sprintf("max_steps %d: give 1 to %d, or leave it out for %d", req.MaxSteps, MaxAgentSteps, DefaultAgentSteps)}, nil
	}
	allow, deny, refused := r.childTools(req.Tools)
	if refused != "" {
		return tools.AgentResult{Refused: refused}, nil
	}
	sess := r.sess
	sess.Tools = allow
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	c := &runner{
		e:      r.e,
		req:    RunRequest{Session: sess, Prompt: req.Prompt, Model: r.req.Model, MaxSteps: steps, ReadOnly: r.req.ReadOnly, Images: r.req.Images, Window: r.req.Window},
		sess:   sess,
		cancel: cancel,
		active: map[string]bool{},
		images: map[string][]byte{},
		proj:   &projection{cfg: r.e.cfg.Context.withDefaults()},
		enc:    &llm.Encodings{},
		child:  &child{callID: callID, description: req.Description, depth: depth, deny: deny},
		run: llm.Run{
			ID:           NewID("run"),
			SessionID:    sess.ID,
			Status:       llm.RunRunning,
			Prompt:       req.Prompt,
			Owner:        r.e.cfg.Owner,
			StartedAt:    time.Now(),
			ParentRunID:  r.run.ID,
			ParentCallID: callID,
		},
	}
	if !c.req.Images {
		c.proj.shape = noImages
	}
	c.rec = &recorder{pub: r.e.pub, flush: r.e.cfg.TextFlush, sess: sess.ID, run: c.run.ID, parentCall: callID}
	run, err := c.loop(ctx)
	if err != nil {
		return tools.AgentResult{}, fmt.Errorf("sub-agent %q: %w", req.Description, err)
	}
	return tools.AgentResult{RunID: run.ID, Status: string(run.Status), Answer: c.answer, Error: run.Error, Steps: run.Steps}, nil
}
