package task

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"foya/backend/tools"
)

// agents is a tools.Agents that answers with a fixed result and records
// the request.
type agents struct {
	res tools.AgentResult
	got *tools.AgentRequest
}

func (a agents) Start(_ context.Context, req tools.AgentRequest) (tools.AgentResult, error) {
	*a.got = req
	return a.res, nil
}

func run(t *testing.T, args string, res tools.AgentResult) (tools.Result, tools.AgentRequest) {
	t.Helper()
	var got tools.AgentRequest
	rc := &tools.RunContext{Agents: agents{res: res, got: &got}}
	out, err := New().Run(context.Background(), rc, tools.Call{ID: "c", Name: Name, Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatal(err)
	}
	return out, got
}

// TestResults: the child's answer is the result,
// bounded like a document with a notice of what was left out; a failed or
// cancelled child is an is_error result saying so, with its last answer; a
// refusal is an is_error result; tools: [] is an empty allowlist, not the
// default.
func TestResults(t *testing.T) {
	out, req := run(t, `{"description":" find it ","prompt":"look","tools":[],"max_steps":3}`, tools.AgentResult{Status: "completed", Answer: "found"})
	if out.IsError || out.Text != "found" {
		t.Errorf("completed: %+v", out)
	}
	if req.Description != "find it" || req.Prompt != "look" || req.Tools == nil || len(req.Tools) != 0 || req.MaxSteps != 3 {
		t.Errorf("the request is %+v", req)
	}
	if _, req := run(t, `{"description":"d","prompt":"p"}`, tools.AgentResult{Status: "completed"}); req.Tools != nil {
		t.Errorf("without tools the allowlist is %v; want nil (the default)", req.Tools)
	}

	big := strings.Repeat("line of the answer\n", 10_000)
	out, _ = run(t, `{"description":"d","prompt":"p"}`, tools.AgentResult{Status: "completed", Answer: big})
	if len(out.Text) > tools.DocumentLimits.Bytes+500 || !strings.Contains(out.Text, "left out after this") {
		t.Errorf("a %d-byte answer gave %d bytes, ending %q", len(big), len(out.Text), out.Text[len(out.Text)-200:])
	}

	out, _ = run(t, `{"description":"d","prompt":"p"}`, tools.AgentResult{Status: "failed", Steps: 2, Error: "stopped after 2 model steps", Answer: "half"})
	if !out.IsError || !strings.Contains(out.Text, "the sub-agent failed after 2 step(s): stopped after 2 model steps") || !strings.Contains(out.Text, "half") {
		t.Errorf("failed: %+v", out)
	}
	out, _ = run(t, `{"description":"d","prompt":"p"}`, tools.AgentResult{Status: "cancelled"})
	if !out.IsError || !strings.Contains(out.Text, "cancelled") {
		t.Errorf("cancelled: %+v", out)
	}
	out, _ = run(t, `{"description":"d","prompt":"p"}`, tools.AgentResult{Refused: "nope, because"})
	if !out.IsError || out.Text != "task: nope, because" {
		t.Errorf("refused: %+v", out)
	}
	out, _ = run(t, `{"description":"d","prompt":"p"}`, tools.AgentResult{Status: "completed", Answer: "  \n"})
	if out.IsError || out.Text != "(the sub-agent ended without an answer)" {
		t.Errorf("no answer: %+v", out)
	}
}

// TestNoAgents: a task call where no sub-agent can start (a RunContext
// without Agents) is an is_error result, not a crash.
func TestNoAgents(t *testing.T) {
	out, err := New().Run(context.Background(), &tools.RunContext{}, tools.Call{Arguments: json.RawMessage(`{"description":"d","prompt":"p"}`)})
	if err != nil || !out.IsError || !strings.Contains(out.Text, "cannot start here") {
		t.Errorf("got %+v, %v", out, err)
	}
}
