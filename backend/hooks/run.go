package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"foya/backend/sandbox"
)

// Input is the JSON object a hook gets on its standard input. Only the
// part of its event is set: Tool for before_tool and after_tool, Result
// for after_tool, Turn for turn_end, Approval for approval.
type Input struct {
	Event        Event          `json:"event"`
	Hook         string         `json:"hook"`
	SessionID    string         `json:"sessionId"`
	RunID        string         `json:"runId"`
	Workdir      string         `json:"workdir"`
	ApprovalMode string         `json:"approvalMode"`
	Tool         *ToolInput     `json:"tool,omitempty"`
	Result       *ResultInput   `json:"result,omitempty"`
	Turn         *TurnInput     `json:"turn,omitempty"`
	Approval     *ApprovalInput `json:"approval,omitempty"`
}

// ToolInput is the call a hook runs for.
type ToolInput struct {
	Name   string `json:"name"`
	CallID string `json:"callId"`
	// Arguments are the call's arguments, a JSON object; null when they
	// are larger than MaxInputArgs (ArgumentsBytes says how large).
	Arguments      json.RawMessage `json:"arguments"`
	ArgumentsBytes int             `json:"argumentsBytes"`
}

// ResultInput is a call's result, for after_tool.
type ResultInput struct {
	// Text is the result the model reads, its first MaxInputText bytes.
	Text    string `json:"text"`
	IsError bool   `json:"isError"`
	// TextBytes is the whole text's length; Truncated says Text is less.
	TextBytes int  `json:"textBytes"`
	Truncated bool `json:"truncated"`
}

// TurnInput is how a turn ended, for turn_end.
type TurnInput struct {
	// Status is completed, failed or cancelled.
	Status string `json:"status"`
	Error  string `json:"error,omitempty"`
	Steps  int    `json:"steps"`
	// Answer is the model's last answer, its first MaxInputText bytes.
	Answer string `json:"answer"`
}

// ApprovalInput is what Foya is about to ask the person, for approval.
type ApprovalInput struct {
	Kind    string   `json:"kind"`
	Tool    string   `json:"tool"`
	Command string   `json:"command,omitempty"`
	Paths   []string `json:"paths,omitempty"`
	Host    string   `json:"host,omitempty"`
	Why     string   `json:"why,omitempty"`
	// Reason is why Foya asks (the mode's rule, a project rule).
	Reason string `json:"reason,omitempty"`
}

// MaxInputArgs and MaxInputText bound what of a call a hook's input
// carries.
const (
	MaxInputArgs = 1 << 20
	MaxInputText = 64 << 10
)

// Cut returns s's first n bytes, ending at a character boundary, and
// whether it left anything out.
func Cut(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n], true
}

// Decision is a hook's answer to a before_tool or approval event.
type Decision string

const (
	Allow Decision = "allow"
	Deny  Decision = "deny"
	Ask   Decision = "ask"
)

// Answer is the JSON object a hook may print as the last line of its
// output.
type Answer struct {
	Decision Decision `json:"decision,omitempty"`
	Reason   string   `json:"reason,omitempty"`
	Note     string   `json:"note,omitempty"`
}

// MaxNote bounds a hook's note (and reason).
const MaxNote = 16 << 10

// ShownOutput bounds the output an Outcome keeps to show the person.
const ShownOutput = 4 << 10

// Outcome is how one run of a hook went.
type Outcome struct {
	Hook Hook
	// Decision, Reason and Note are the hook's answer; all empty when it
	// answered nothing (no objection) or failed.
	Decision Decision
	Reason   string
	Note     string
	// Failed says why the hook failed; empty when it did not.
	Failed string
	// ExitCode is the hook's exit status, -1 when it did not exit by
	// itself (a signal, a timeout) or did not start.
	ExitCode int
	Duration time.Duration
	// Output is the end of what the hook printed besides its answer, at
	// most ShownOutput bytes.
	Output string
	// Sandbox names what confined the hook ("none" outside the sandbox).
	Sandbox string
}

// Runner runs hooks.
type Runner struct {
	// Confine returns the sandbox policy of a sandboxed hook working in
	// workdir: what a sandboxed command of that workspace gets; and, if
	// not nil, sweep, called once the hook ended, which deals with what it
	// must not leave (a git repository made in the sandbox) and says so in
	// sentences. Nil refuses to run sandboxed hooks.
	Confine func(workdir string) (p sandbox.Policy, sweep func() []string)
	// Environ returns the environment hooks start from, already filtered
	// of secrets; nil means an empty one.
	Environ func() []string
	// TempDir, if set, returns the session's temp folder: a sandboxed
	// hook may write it (it is its TMPDIR), as a sandboxed command may.
	TempDir func(sessionID string) (string, error)
	// poll is how often the output is counted; 0 means 20ms.
	poll time.Duration
}

// Run runs h for in, in workdir, and returns how it went; it never
// returns without an Outcome, and a failure is an Outcome with Failed
// set. Cancelling ctx ends the hook's whole process tree.
func (r *Runner) Run(ctx context.Context, h Hook, workdir string, in Input) (out Outcome) {
	in.Hook = h.Name
	out = Outcome{Hook: h, ExitCode: -1}
	data, err := json.Marshal(in)
	if err != nil {
		out.Failed = "its input could not be made: " + err.Error()
		return out
	}
	cmd := sandbox.Command{
		Script:    script(data, h.Command),
		Dir:       workdir,
		Timeout:   h.Timeout,
		TailBytes: MaxOutput,
	}
	if cmd.Timeout <= 0 {
		cmd.Timeout = DefaultTimeout
	}
	var (
		env   []string
		sweep func() []string
	)
	if r.Environ != nil {
		env = r.Environ()
	}
	cmd.Env = append(env, "FOYA_HOOK_EVENT="+string(h.Event), "FOYA_HOOK_NAME="+h.Name, "FOYA_PROJECT_DIR="+workdir)
	if h.Sandbox {
		if r.Confine == nil {
			out.Failed = "it must run in the sandbox, and Foya has no sandbox for hooks here"
			return out
		}
		cmd.Policy, sweep = r.Confine(workdir)
		cmd.Policy.Restricted = true
		if r.TempDir != nil && in.SessionID != "" {
			tmp, err := r.TempDir(in.SessionID)
			if err != nil {
				out.Failed = "its temp folder could not be made: " + err.Error()
				return out
			}
			cmd.Policy.Writable = append(cmd.Policy.Writable, tmp)
			cmd.Env = append(cmd.Env, "TMPDIR="+tmp)
		}
	}
	start := time.Now()
	p, err := sandbox.Start(ctx, cmd)
	if err != nil {
		out.Duration = time.Since(start)
		switch {
		case errors.Is(err, sandbox.ErrUnavailable):
			out.Failed = "it must run in the sandbox, which is unavailable here: " + err.Error()
		case ctx.Err() != nil:
			out.Failed = "not run: the run was cancelled"
		default:
			out.Failed = "it could not start: " + err.Error()
		}
		return out
	}
	overflow := r.watch(p)
	res, _ := p.Result()
	if sweep != nil {
		defer func() {
			// Said with what it printed, which the person sees.
			for _, note := range sweep() {
				out.Output = strings.TrimPrefix(out.Output+"\n[Foya: "+note+"]", "\n")
			}
		}()
	}
	out.Duration, out.Sandbox = res.Duration, res.Sandbox
	if res.Signal == "" && !res.TimedOut && !res.Cancelled {
		out.ExitCode = res.ExitCode
	}
	output := res.Output
	switch {
	case overflow || res.TotalBytes > MaxOutput:
		out.Output = tail(output)
		out.Failed = fmt.Sprintf("it printed more than %s (at least %s), so Foya stopped it and dropped the rest; "+
			"print at most %s, the answer last", size(MaxOutput), size(res.TotalBytes), size(MaxOutput))
	case res.TimedOut:
		out.Output = tail(output)
		out.Failed = fmt.Sprintf("it did not end within %s (its timeout), so Foya stopped it", cmd.Timeout)
	case res.Cancelled || ctx.Err() != nil:
		out.Output = tail(output)
		out.Failed = "stopped: the run was cancelled"
	case res.Signal != "":
		out.Output = tail(output)
		out.Failed = "it was killed by " + res.Signal
	case res.ExitCode != 0:
		out.Output = tail(output)
		out.Failed = fmt.Sprintf("it exited with status %d", res.ExitCode)
		if res.Denied {
			out.Failed += " (the sandbox refused something it tried)"
		}
	default:
		log, ans, err := answer(output, h.Event, h.Source)
		out.Output = tail(log)
		if err != nil {
			out.Failed = err.Error()
			return out
		}
		out.Decision, out.Reason, out.Note = ans.Decision, ans.Reason, ans.Note
	}
	return out
}

// watch waits for p to end, stopping it when it printed more than
// MaxOutput; it reports whether it did.
func (r *Runner) watch(p *sandbox.Process) bool {
	poll := r.poll
	if poll <= 0 {
		poll = 20 * time.Millisecond
	}
	t := time.NewTicker(poll)
	defer t.Stop()
	var next int64
	for {
		select {
		case <-p.Done():
			return false
		case <-t.C:
			_, next, _ = p.Read(next)
			if next > MaxOutput {
				_ = p.Kill()
				<-p.Done()
				return true
			}
		}
	}
}

// script is the shell script that runs command with data on its
// standard input: printf is a shell builtin, so data may be of any size.
func script(data []byte, command string) string {
	quoted := "'" + strings.ReplaceAll(string(data), "'", `'\''`) + "'"
	return "printf '%s' " + quoted + " | (\n" + command + "\n)\n"
}

// answer splits a hook's output into its log and its answer, the last
// non-empty line, and checks the answer against the event.
func answer(output []byte, ev Event, src Source) (log []byte, a Answer, err error) {
	text := bytes.TrimRight(output, " \t\r\n")
	if len(text) == 0 {
		return nil, Answer{}, nil
	}
	last := text
	if i := bytes.LastIndexByte(text, '\n'); i >= 0 {
		log, last = text[:i+1], text[i+1:]
	}
	last = bytes.TrimSpace(last)
	if len(last) == 0 || last[0] != '{' {
		if ev == TurnEnd || ev == AfterTool {
			// A hook that only prints a log answers nothing.
			return text, Answer{}, nil
		}
		return text, Answer{}, fmt.Errorf("its last line is not a JSON object: %q; print {\"decision\": \"allow\"} (or deny, ask), "+
			"or nothing at all, as the last line", clip(string(last)))
	}
	dec := json.NewDecoder(bytes.NewReader(last))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		return log, Answer{}, fmt.Errorf("its answer is not valid: %s in %q; want {\"decision\": \"allow|deny|ask\", \"reason\": \"...\", \"note\": \"...\"}",
			strings.TrimPrefix(err.Error(), "json: "), clip(string(last)))
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return log, Answer{}, fmt.Errorf("its last line holds more than one JSON value: %q", clip(string(last)))
	}
	switch a.Decision {
	case "":
	case Allow, Deny, Ask:
		if ev != BeforeTool && ev != Approval {
			return log, Answer{}, fmt.Errorf("it answered %q, but a %s hook decides nothing: it may only add a note", a.Decision, ev)
		}
		if ev == Approval && a.Decision == Allow && src == Project {
			return log, Answer{}, errors.New(`a project's hook cannot allow what Foya asks you: it answered "allow" to an approval; only your own hooks may`)
		}
	default:
		return log, Answer{}, fmt.Errorf("its decision %q is none of allow, deny, ask", a.Decision)
	}
	if a.Note != "" && ev == Approval {
		return log, Answer{}, errors.New("an approval hook has no note to add: answer a decision (or nothing)")
	}
	if len(a.Note) > MaxNote || len(a.Reason) > MaxNote {
		return log, Answer{}, fmt.Errorf("its note or reason is longer than %s", size(MaxNote))
	}
	return log, a, nil
}

// tail is the end of b, at most ShownOutput bytes, as valid text.
func tail(b []byte) string {
	if len(b) > ShownOutput {
		b = b[len(b)-ShownOutput:]
		for len(b) > 0 && !utf8.RuneStart(b[0]) {
			b = b[1:]
		}
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}

func clip(s string) string {
	c, cut := Cut(s, 200)
	if cut {
		c += "…"
	}
	return c
}

func size(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
