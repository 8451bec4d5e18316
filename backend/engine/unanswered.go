package engine

import (
	"fmt"
	"strings"
	"time"

	"foya/backend/approval"
)

// unanswered words the refusal of an action that needs a person's answer
// where no one can answer (foya exec without a terminal): why it was
// asked, and what would allow it. The policy itself is asked what would
// (approval.Decide with another mode, with an allow rule of the user's,
// with an approved project rule), so the advice never points to what can
// never allow the action: a project's .foya/permissions.json never allows
// an MCP tool, a stay outside the workspace or the sandbox, and Auto asks
// before an MCP tool its server does not annotate read-only.
func unanswered(mode approval.Mode, a approval.Action, reason string) string {
	var ways []string
	var modes []string
	for _, m := range []approval.Mode{approval.Auto, approval.FullAccess} {
		if m != mode && approval.Decide(m, a, nil).Verdict == approval.Allow {
			modes = append(modes, strings.ReplaceAll(string(m), "_", "-"))
		}
	}
	if len(modes) > 0 {
		ways = append(ways, "run with --approval "+strings.Join(modes, " (or ")+strings.Repeat(")", len(modes)-1))
	}
	ways = append(ways, "run where someone can answer (foya exec in a terminal, the desktop app or foya serve)")
	rule := approval.Rule{Tool: a.Tool, Host: a.Host}
	user := &approval.Rules{Allow: []approval.Rule{rule}, User: true, File: approval.UserRulesFile}
	if approval.Decide(mode, a, nil, user).Verdict == approval.Allow {
		ways = append(ways, fmt.Sprintf("allow it in your own rules: %s in the allow list of the %s in Foya's data folder (foya rules says where)",
			rule, approval.UserRulesFile))
	}
	project := &approval.Rules{Allow: []approval.Rule{rule}, Approved: time.Now()}
	projectMay := approval.Decide(mode, a, nil, project).Verdict == approval.Allow
	if projectMay {
		ways = append(ways, "or in an approved "+approval.RulesFile+" (see foya rules)")
	}
	msg := fmt.Sprintf("not allowed without approval (%s), and no one can answer here: %s", reason, strings.Join(ways, "; "))
	if !projectMay {
		what := "this"
		if a.Kind == approval.MCP {
			what = "an MCP tool"
		}
		msg += fmt.Sprintf("; a project's %s never allows %s", approval.RulesFile, what)
	}
	return msg
}
