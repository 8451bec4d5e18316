// Package history holds history_read_tool_result, the built-in tool that
// reads back tool results the context compiler projected (spec O6).
//
// It imports tools, llm and the standard library; the kernel gives it a
// store.
package history

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"foya/backend/llm"
	"foya/backend/tools"
)

//go:embed history_read_tool_result.md
var description string

// Name is the tool's name.
const Name = "history_read_tool_result"

// Limits of one answer.
const (
	defaultReadLines = 200
	maxMatches       = 50
	maxContext       = 10
)

// Store is what the tool reads: a range of a session's canonical history,
// or of a sub-agent's own history (whose positions its references name).
type Store interface {
	MessagesBetween(ctx context.Context, sessionID string, first, last int) ([]llm.StoredMessage, error)
	ChildMessages(ctx context.Context, runID string, first, last int) ([]llm.StoredMessage, error)
}

// Reader is the history_read_tool_result tool.
type Reader struct{ store Store }

// New returns the tool.
func New(s Store) *Reader { return &Reader{store: s} }

// Spec implements tools.Tool.
func (*Reader) Spec() tools.Spec {
	return tools.Spec{
		Name:        Name,
		Description: strings.TrimSpace(description),
		Exposure:    tools.Direct,
		ReadOnly:    true,
		Schema:      schema,
	}
}

// Offered implements tools.Gate: only while projected results exist.
func (*Reader) Offered(s tools.State) bool { return s.Refs > 0 }

// ParallelSafe implements tools.Parallel: it only reads.
func (*Reader) ParallelSafe(tools.Call) bool { return true }

type args struct {
	Ref     string `json:"ref" jsonschema:"required" jsonschema_description:"The reference from the summary, such as r12."`
	Mode    string `json:"mode" jsonschema:"required,enum=inspect,enum=read,enum=search"`
	Offset  int    `json:"offset" jsonschema:"minimum=1" jsonschema_description:"read: first line (or byte, with unit bytes), 1-based."`
	Limit   int    `json:"limit" jsonschema:"minimum=1" jsonschema_description:"read: how many lines (or bytes); search: most matches."`
	Unit    string `json:"unit" jsonschema:"enum=lines,enum=bytes" jsonschema_description:"read: page by lines (default) or bytes."`
	Pattern string `json:"pattern" jsonschema_description:"search: a regular expression (RE2)."`
	Context *int   `json:"context" jsonschema:"minimum=0,maximum=10" jsonschema_description:"search: lines of context around each match (default 2)."`
}

var schema = tools.SchemaOf[args]()

// Run implements tools.Tool.
func (rd *Reader) Run(ctx context.Context, rc *tools.RunContext, call tools.Call) (tools.Result, error) {
	var a args
	if err := json.Unmarshal(call.Arguments, &a); err != nil {
		return tools.Errorf("%s: arguments: %v", Name, err), nil
	}
	n, err := strconv.Atoi(strings.TrimPrefix(a.Ref, "r"))
	if !strings.HasPrefix(a.Ref, "r") || err != nil || n < 1 {
		return tools.Errorf("%s: ref %q is not a reference: use the one from the summary, such as r12", Name, a.Ref), nil
	}
	// The result and, before it, the assistant message that made the call.
	var msgs []llm.StoredMessage
	if rc != nil && rc.ParentCallID != "" {
		msgs, err = rd.store.ChildMessages(ctx, rc.RunID, max(1, n-64), n)
	} else {
		msgs, err = rd.store.MessagesBetween(ctx, rc.SessionID, max(1, n-64), n)
	}
	if err != nil {
		return tools.Result{}, err
	}
	if len(msgs) == 0 || msgs[len(msgs)-1].Message.Role != llm.RoleTool {
		return tools.Errorf("%s: there is no tool result %s in this session", Name, a.Ref), nil
	}
	res := msgs[len(msgs)-1].Message
	switch a.Mode {
	case "inspect":
		return tools.Text(inspect(a.Ref, res, msgs)), nil
	case "read":
		return read(a, res.Content)
	case "search":
		return search(a, res.Content)
	}
	return tools.Errorf("%s: mode %q: want inspect, read or search", Name, a.Mode), nil
}

func inspect(ref string, res llm.Message, msgs []llm.StoredMessage) string {
	argsText := "(not found)"
	for i := len(msgs) - 1; i >= 0; i-- {
		for _, c := range msgs[i].Message.ToolCalls {
			if c.ID == res.ToolCallID {
				argsText = c.Arguments
			}
		}
	}
	if a, cut := tools.Head(argsText, tools.Limits{Bytes: 2000}); cut.Truncated() {
		argsText = a + " " + cut.Notice("")
	}
	lines := strings.Count(res.Content, "\n")
	if len(res.Content) > 0 && !strings.HasSuffix(res.Content, "\n") {
		lines++
	}
	return fmt.Sprintf("%s: result of %s (call %s)\narguments: %s\nsize: %s lines, %s bytes\nerror result: %t\nimages: %d",
		ref, res.ToolName, res.ToolCallID, argsText, tools.Count(int64(lines)), tools.Count(int64(len(res.Content))), res.IsError, len(res.Parts))
}

func read(a args, text string) (tools.Result, error) {
	if a.Offset <= 0 {
		a.Offset = 1
	}
	if a.Unit == "bytes" {
		if a.Offset > len(text) {
			return tools.Errorf("%s: offset %d is past the end (%s bytes)", Name, a.Offset, tools.Count(int64(len(text)))), nil
		}
		limit := a.Limit
		if limit <= 0 || limit > tools.DocumentLimits.Bytes {
			limit = tools.DocumentLimits.Bytes
		}
		end := min(len(text), a.Offset-1+limit)
		chunk := strings.ToValidUTF8(text[a.Offset-1:end], "\uFFFD")
		out := fmt.Sprintf("bytes %d to %d of %s:\n%s", a.Offset, end, tools.Count(int64(len(text))), chunk)
		if end < len(text) {
			out += fmt.Sprintf("\n[%s bytes after this: read on with offset=%d unit=bytes]", tools.Count(int64(len(text)-end)), end+1)
		}
		return tools.Text(out), nil
	}
	lines := strings.SplitAfter(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	if a.Offset > len(lines) {
		return tools.Errorf("%s: offset %d is past the end (%d lines)", Name, a.Offset, len(lines)), nil
	}
	limit := a.Limit
	if limit <= 0 {
		limit = defaultReadLines
	}
	limit = min(limit, tools.DocumentLimits.Lines)
	end := min(len(lines), a.Offset-1+limit)
	var b strings.Builder
	for i := a.Offset - 1; i < end; i++ {
		fmt.Fprintf(&b, "%d:%s", i+1, strings.TrimSuffix(lines[i], "\n"))
		b.WriteByte('\n')
	}
	body, cut := tools.Head(b.String(), tools.Limits{Bytes: tools.DocumentLimits.Bytes})
	shown := end
	if cut.Truncated() {
		shown = a.Offset - 1 + strings.Count(body, "\n")
	}
	out := body
	if shown < len(lines) {
		out += fmt.Sprintf("[%d of %d lines shown; read on with offset=%d]", shown-a.Offset+1, len(lines), shown+1)
	}
	return tools.Text(out), nil
}

func search(a args, text string) (tools.Result, error) {
	if a.Pattern == "" {
		return tools.Errorf("%s: search needs a pattern", Name), nil
	}
	re, err := regexp.Compile(a.Pattern)
	if err != nil {
		return tools.Errorf("%s: the pattern does not compile: %v", Name, err), nil
	}
	ctxLines := 2
	if a.Context != nil {
		ctxLines = min(max(*a.Context, 0), maxContext)
	}
	limit := maxMatches
	if a.Limit > 0 && a.Limit < limit {
		limit = a.Limit
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	var b strings.Builder
	matches, shown, lastPrinted := 0, 0, -1
	for i, l := range lines {
		if !re.MatchString(l) {
			continue
		}
		matches++
		if shown >= limit {
			continue
		}
		shown++
		from, to := max(0, i-ctxLines), min(len(lines)-1, i+ctxLines)
		if lastPrinted >= 0 && from > lastPrinted+1 {
			b.WriteString("--\n")
		}
		for j := max(from, lastPrinted+1); j <= to; j++ {
			mark := "-"
			if j == i || re.MatchString(lines[j]) {
				mark = ":"
			}
			fmt.Fprintf(&b, "%d%s%s\n", j+1, mark, lines[j])
		}
		lastPrinted = to
	}
	if matches == 0 {
		return tools.Text(fmt.Sprintf("no line matches %q (%d lines searched)", a.Pattern, len(lines))), nil
	}
	body, cut := tools.Head(b.String(), tools.DocumentLimits)
	out := fmt.Sprintf("%d matching lines", matches)
	if shown < matches {
		out += fmt.Sprintf(", the first %d shown (narrow the pattern to see the others)", shown)
	}
	out += ":\n" + body
	if cut.Truncated() {
		out += cut.Notice("")
	}
	return tools.Text(out), nil
}

var (
	_ tools.Tool     = (*Reader)(nil)
	_ tools.Gate     = (*Reader)(nil)
	_ tools.Parallel = (*Reader)(nil)
)
