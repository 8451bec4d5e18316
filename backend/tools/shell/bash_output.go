package shell

import (
	"context"
	_ "embed"
	"strings"

	"foya/backend/tools"
)

//go:embed tool_bash_output.md
var outputDescription string

type outputTool struct{ s *Shell }

type idArgs struct {
	ID string `json:"id" jsonschema:"required,minLength=1" jsonschema_description:"As bash returned it: bg1, bg2 ..."`
}

var idSchema = tools.SchemaOf[idArgs]()

// Spec implements tools.Tool.
func (outputTool) Spec() tools.Spec {
	return tools.Spec{
		Name:        OutputName,
		Description: strings.TrimSpace(outputDescription),
		Exposure:    tools.Direct,
		Schema:      idSchema,
	}
}

// Run implements tools.Tool: the output printed since the last read and
// the status (spec B1).
func (t outputTool) Run(ctx context.Context, rc *tools.RunContext, call tools.Call) (tools.Result, error) {
	j, res := t.s.lookup(rc, call, OutputName)
	if j == nil {
		return res, nil
	}
	text, denials := j.read(t.s)
	res = tools.Text(text)
	res.Denials = denials
	return res, nil
}

// lookup finds the call's background command in the call's session, or
// returns the is_error result that says why it cannot.
func (s *Shell) lookup(rc *tools.RunContext, call tools.Call, name string) (*job, tools.Result) {
	var a idArgs
	if err := tools.Decode(call, &a); err != nil {
		return nil, tools.Errorf("%s: %v", name, err)
	}
	a.ID = strings.TrimSpace(a.ID)
	if a.ID == "" {
		return nil, tools.Errorf("%s: id is empty: give the ID bash returned when it started the command (bg1, bg2 ...)", name)
	}
	sessionID := ""
	if rc != nil {
		sessionID = rc.SessionID
	}
	j, ids := s.job(sessionID, a.ID)
	if j == nil {
		if len(ids) == 0 {
			return nil, tools.Errorf("%s: no background command %q: this session has none (they end when Foya exits)", name, a.ID)
		}
		return nil, tools.Errorf("%s: no background command %q in this session; its commands are %s", name, a.ID, strings.Join(ids, ", "))
	}
	return j, tools.Result{}
}

var _ tools.Tool = outputTool{}
