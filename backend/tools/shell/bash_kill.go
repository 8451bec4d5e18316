package shell

import (
	"context"
	_ "embed"
	"fmt"
	"strings"

	"foya/backend/tools"
)

//go:embed tool_bash_kill.md
var killDescription string

type killTool struct{ s *Shell }

// Spec implements tools.Tool.
func (killTool) Spec() tools.Spec {
	return tools.Spec{
		Name:        KillName,
		Description: strings.TrimSpace(killDescription),
		Exposure:    tools.Direct,
		Schema:      idSchema,
	}
}

// Run implements tools.Tool: it ends the command's whole process tree and
// returns its last output and status (spec B1).
func (t killTool) Run(ctx context.Context, rc *tools.RunContext, call tools.Call) (tools.Result, error) {
	j, res := t.s.lookup(rc, call, KillName)
	if j == nil {
		return res, nil
	}
	if _, done := j.proc.Result(); done {
		text, denials := j.read(t.s)
		res = tools.Text("It had already ended; nothing to kill.\n" + text)
		res.Denials = denials
		return res, nil
	}
	err := j.kill()
	text, denials := j.read(t.s)
	if err != nil {
		// Kill waited for the tree to end all the same; say what went
		// wrong on the way.
		text = fmt.Sprintf("%s\n(signalling the process tree reported: %v)", text, err)
	}
	res = tools.Text(text)
	res.Denials = denials
	return res, nil
}

var _ tools.Tool = killTool{}
