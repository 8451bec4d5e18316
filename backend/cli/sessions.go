package cli

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"foya/backend/kernel"
	"foya/backend/llm"
)

func sessionsCmd(ctx context.Context, args []string, env Env) int {
	fs, db := newFlags("foya sessions", env)
	asJSON := fs.Bool("json", false, "print a JSON array")
	pos, code, ok := parseFlags(fs, args)
	if !ok {
		return code
	}
	if len(pos) > 0 {
		fmt.Fprintf(env.Stderr, "foya sessions: unexpected argument %q\n", pos[0])
		return ExitUsage
	}
	k, err := openKernel(ctx, *db, env)
	if err != nil {
		return fail(env, err)
	}
	defer k.Close()
	list, err := k.Sessions(ctx)
	if err != nil {
		return fail(env, err)
	}
	if *asJSON {
		printJSON(env.Stdout, list)
		return ExitOK
	}
	if len(list) == 0 {
		fmt.Fprintln(env.Stdout, "No sessions yet. Start one with: foya exec \"PROMPT\"")
		return ExitOK
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tUPDATED\tRUNS\tMODE\tMODEL\tTITLE\tWORKDIR")
	for _, s := range list {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t%s\n", s.ID, s.UpdatedAt.Local().Format(time.DateTime), s.Runs,
			s.ApprovalMode, s.Model, firstLine(s.Title, 50), whereLine(s))
	}
	tw.Flush()
	return ExitOK
}

// Transcript is what `foya show --json` prints.
type Transcript struct {
	Session  kernel.Session   `json:"session"`
	Runs     []kernel.Run     `json:"runs"`
	Calls    []kernel.Call    `json:"calls"`
	Messages []kernel.Message `json:"messages"`
	Events   []llm.Event      `json:"events,omitempty"`
	// Instructions says, by run ID, which project instructions file each
	// run read into its system prompt, or why none.
	Instructions map[string]llm.Instructions `json:"instructions,omitempty"`
}

func showCmd(ctx context.Context, args []string, env Env) int {
	fs, db := newFlags("foya show", env)
	asJSON := fs.Bool("json", false, "print the session, runs, calls and messages as JSON")
	events := fs.Bool("events", false, "with --json, include the event log")
	pos, code, ok := parseFlags(fs, args)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		fmt.Fprintln(env.Stderr, "foya show: give one SESSION id (see foya sessions)")
		return ExitUsage
	}
	k, err := openKernel(ctx, *db, env)
	if err != nil {
		return fail(env, err)
	}
	defer k.Close()
	t := Transcript{}
	if t.Session, err = k.Session(ctx, pos[0]); err != nil {
		if kernel.IsNotFound(err) {
			fmt.Fprintf(env.Stderr, "foya show: no session %s (see foya sessions)\n", pos[0])
			return ExitUsage
		}
		return fail(env, err)
	}
	if t.Runs, err = k.Runs(ctx, t.Session.ID); err != nil {
		return fail(env, err)
	}
	for _, r := range t.Runs {
		calls, err := k.Calls(ctx, r.ID)
		if err != nil {
			return fail(env, err)
		}
		t.Calls = append(t.Calls, calls...)
	}
	if t.Messages, err = k.Messages(ctx, t.Session.ID); err != nil {
		return fail(env, err)
	}
	if t.Instructions, err = k.RunInstructions(ctx, t.Session.ID); err != nil {
		return fail(env, err)
	}
	if *asJSON {
		if *events {
			if t.Events, err = k.Events(ctx, t.Session.ID, 0); err != nil {
				return fail(env, err)
			}
		}
		printJSON(env.Stdout, t)
		return ExitOK
	}
	w := env.Stdout
	s := t.Session
	fmt.Fprintf(w, "Session %s: %s\n  workdir %s · model %s · approval %s · created %s\n", s.ID, s.Title, s.Workdir, s.Model,
		s.ApprovalMode, s.CreatedAt.Local().Format(time.DateTime))
	switch {
	case s.ForkedFrom != "" && s.ForkedAt > 0:
		fmt.Fprintf(w, "  forked from %s before its prompt %d\n", s.ForkedFrom, s.ForkedAt)
	case s.ForkedFrom != "":
		fmt.Fprintf(w, "  forked from %s (its whole history)\n", s.ForkedFrom)
	}
	if s.Isolation != nil {
		fmt.Fprintf(w, "  isolated copy of %s\n", whereLine(s))
	}
	runs := map[string]kernel.Run{}
	for _, r := range t.Runs {
		runs[r.ID] = r
	}
	last := ""
	for _, m := range t.Messages {
		if m.RunID != last {
			last = m.RunID
			r := runs[m.RunID]
			line := fmt.Sprintf("\n── run %s · %s · %d steps", r.ID, r.Status, r.Steps)
			if r.Error != "" {
				line += " · " + r.Error
			}
			fmt.Fprintln(w, line)
			if in, ok := t.Instructions[m.RunID]; ok {
				fmt.Fprintln(w, "   instructions: "+instructionsLine(in))
			}
		}
		msg := m.Message
		switch msg.Role {
		case kernel.RoleUser:
			fmt.Fprintf(w, "user: %s\n", msg.Content)
		case kernel.RoleAssistant:
			if msg.Content != "" {
				fmt.Fprintf(w, "assistant: %s\n", msg.Content)
			}
			for _, c := range msg.ToolCalls {
				fmt.Fprintf(w, "  → %s %s\n", c.Name, firstLine(c.Arguments, 160))
			}
		case kernel.RoleTool:
			mark := "←"
			if msg.IsError {
				mark = "✗"
			}
			fmt.Fprintf(w, "  %s %s: %s\n", mark, msg.ToolName, strings.ReplaceAll(firstLine(msg.Content, 300), "\n", " "))
		}
	}
	return ExitOK
}

// instructionsLine says in a few words which instructions file a run used.
func instructionsLine(in llm.Instructions) string {
	switch in.Status {
	case llm.InstructionsUsed:
		line := fmt.Sprintf("%s (%d bytes", in.File, in.Bytes)
		if in.Truncated {
			line += fmt.Sprintf(" of %d: cut at the limit", in.Size)
		}
		if in.InvalidUTF8 {
			line += "; bytes that are not UTF-8 were replaced"
		}
		return line + ")"
	case llm.InstructionsSkipped:
		return "none used: " + in.Skipped
	}
	return "none (the working directory has no AGENTS.md or CLAUDE.md)"
}

// whereLine is where a session works: its folder, or for an isolated
// session the folder it was made from and its copy ("/p [worktree
// foya/ses_1]", "[copy, discarded]").
func whereLine(s kernel.Session) string {
	i := s.Isolation
	if i == nil {
		return s.Workdir
	}
	what := i.Kind
	if i.Branch != "" {
		what += " " + i.Branch
	}
	if !i.DiscardedAt.IsZero() {
		what += ", discarded"
	}
	return s.ProjectID + " [" + what + "]"
}
