// Package task holds task, the built-in tool that starts a sub-agent: a
// child run with its own history, tool allowlist and step limit, under the
// session's approval mode and gateway, whose final answer is the call's
// result.
//
// The tool validates its arguments and bounds the answer; the engine runs
// the child (tools.RunContext.Agents), because a run is the engine's. It
// asks no approval itself: the mode table allows sub-agents in every mode,
// and each of the child's calls asks the gateway as any call does. It is
// parallel-safe, so several sub-agents of one answer work at once within
// the engine's cap of five.
//
// It imports tools and the standard library.
package task

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/invopop/jsonschema"

	"foya/backend/tools"
)

//go:embed tool_task.md
var description string

// Name is the tool's name.
const Name = "task"

// Limits of one call's arguments.
const (
	MaxDescription = 200       // characters
	MaxPrompt      = 100 << 10 // bytes: a job description, not a document
	MaxTools       = 100
)

// Tool is the task tool.
type Tool struct{}

// New returns the tool.
func New() *Tool { return &Tool{} }

// Spec implements tools.Tool.
func (*Tool) Spec() tools.Spec {
	return tools.Spec{
		Name:        Name,
		Description: strings.TrimSpace(description),
		Exposure:    tools.Direct,
		Schema:      schema,
	}
}

// ParallelSafe implements tools.Parallel: sub-agents share nothing but the
// session, whose every write goes through the engine's one publisher, and
// their own calls are scheduled by their own runs.
func (*Tool) ParallelSafe(tools.Call) bool { return true }

type args struct {
	Description string    `json:"description" jsonschema:"required,minLength=1" jsonschema_description:"3-8 words, shown to the user."`
	Prompt      string    `json:"prompt" jsonschema:"required,minLength=1"`
	Tools       *[]string `json:"tools" jsonschema_description:"Tools it may use (default: all but task)."`
	MaxSteps    int       `json:"max_steps" jsonschema:"minimum=1,maximum=200" jsonschema_description:"Default 50."`
}

// JSONSchemaExtend bounds the description and the tool list by
// MaxDescription and MaxTools, which a tag cannot name.
func (args) JSONSchemaExtend(s *jsonschema.Schema) {
	if p, ok := s.Properties.Get("description"); ok {
		p.MaxLength = ptr(uint64(MaxDescription))
	}
	if p, ok := s.Properties.Get("tools"); ok {
		p.MaxItems = ptr(uint64(MaxTools))
	}
}

func ptr[T any](v T) *T { return &v }

var schema = tools.SchemaOf[args]()

// Run implements tools.Tool.
func (*Tool) Run(ctx context.Context, rc *tools.RunContext, call tools.Call) (tools.Result, error) {
	var a args
	if err := json.Unmarshal(call.Arguments, &a); err != nil {
		return tools.Errorf("%s: arguments: %v", Name, err), nil
	}
	a.Description = strings.TrimSpace(a.Description)
	switch {
	case a.Description == "":
		return tools.Errorf("%s: description is empty: name the job in a few words", Name), nil
	case utf8.RuneCountInString(a.Description) > MaxDescription:
		return tools.Errorf("%s: description has %d characters; at most %d", Name, utf8.RuneCountInString(a.Description), MaxDescription), nil
	case strings.TrimSpace(a.Prompt) == "":
		return tools.Errorf("%s: prompt is empty: say what the sub-agent should do", Name), nil
	case len(a.Prompt) > MaxPrompt:
		return tools.Errorf("%s: prompt has %d bytes; at most %d. Give the sub-agent file paths to read instead of their contents", Name, len(a.Prompt), MaxPrompt), nil
	}
	if rc == nil || rc.Agents == nil {
		return tools.Errorf("%s: sub-agents cannot start here", Name), nil
	}
	req := tools.AgentRequest{Description: a.Description, Prompt: a.Prompt, MaxSteps: a.MaxSteps}
	if a.Tools != nil {
		req.Tools = *a.Tools
		if req.Tools == nil {
			req.Tools = []string{}
		}
	}
	res, err := rc.Agents.Start(ctx, req)
	if err != nil {
		return tools.Result{}, err
	}
	if res.Refused != "" {
		return tools.Errorf("%s: %s", Name, res.Refused), nil
	}
	return result(res), nil
}

// result is what the parent's model reads: the child's answer, bounded like
// a document (its head kept), and how the child ended when it did not
// complete.
func result(res tools.AgentResult) tools.Result {
	answer, cut := tools.Head(res.Answer, tools.DocumentLimits)
	if n := cut.Notice("the sub-agent's answer was longer; ask for a shorter report next time"); n != "" {
		answer = strings.TrimRight(answer, "\n") + "\n" + n
	}
	switch res.Status {
	case "completed":
		if strings.TrimSpace(answer) == "" {
			answer = "(the sub-agent ended without an answer)"
		}
		return tools.Result{Text: answer}
	case "cancelled":
		return tools.Result{Text: "cancelled: the sub-agent was cancelled with the run", IsError: true}
	}
	text := fmt.Sprintf("the sub-agent %s after %d step(s): %s", res.Status, res.Steps, res.Error)
	if strings.TrimSpace(answer) != "" {
		text += "\nIts last answer:\n" + answer
	}
	return tools.Result{Text: text, IsError: true}
}

var _ tools.Parallel = (*Tool)(nil)
