package engine

import (
	"fmt"
	"strings"

	"foya/backend/llm"
	"foya/backend/tools"
)

// ContextConfig tunes the context compiler. Zero fields take defaults.
type ContextConfig struct {
	// Budget is the most estimated tokens a request's history may take
	// before older tool results are projected (default 96,000).
	Budget int
	// Target is what a projection brings the history down to, as a share
	// of Budget (default 0.5). The gap between Budget and Target is what
	// makes projections rare: after one, the history must grow by half the
	// budget before the next.
	Target float64
	// KeepRecent is how many of the newest messages are never projected
	// (default 12), so the latest tool output is always verbatim.
	KeepRecent int
	// MinBytes is the smallest tool result that is ever projected (default
	// 2 KiB); smaller ones save too little to be worth a reference.
	MinBytes int
	// Quantum is the step, in messages, by which the projection's
	// watermark moves (default 32), so it moves rarely and in jumps.
	Quantum int
	// MaxArgs is the largest call arguments, in bytes, sent back to the
	// model verbatim (default 256 KiB, about 64,000 tokens). Larger ones,
	// such as a big file's content in a write, are sent with each large
	// string value replaced by a note; the history keeps them whole.
	MaxArgs int
}

func (c ContextConfig) withDefaults() ContextConfig {
	if c.Budget <= 0 {
		c.Budget = 96_000
	}
	if c.Target <= 0 || c.Target >= 1 {
		c.Target = 0.5
	}
	if c.KeepRecent <= 0 {
		c.KeepRecent = 12
	}
	if c.MinBytes <= 0 {
		c.MinBytes = 2 << 10
	}
	if c.Quantum <= 0 {
		c.Quantum = 32
	}
	if c.MaxArgs <= 0 {
		c.MaxArgs = 256 << 10
	}
	return c
}

// projection is what the context compiler knows of a run's history: the
// estimated tokens of each message, what projecting it would save, and the
// summaries it has made. It grows with the history; nothing in it is ever
// recomputed, so compiling a step costs O(messages) additions at most.
type projection struct {
	cfg     ContextConfig
	tokens  []int // estimated tokens of each message, verbatim
	savings []int // tokens saved by projecting it (0: not projectable)
	summary map[int]string
	// args holds, by index, the assistant messages whose calls' arguments
	// are too large to send again, as they are sent instead.
	args map[int]llm.Message
}

// estimate is a cheap, deterministic token estimate: four bytes a token,
// plus a little per message and per image.
func estimate(m llm.Message) int {
	n := 4 + (len(m.Content)+len(m.Reasoning))/4
	for _, c := range m.ToolCalls {
		n += 8 + (len(c.Name)+len(c.Arguments))/4
	}
	return n + 800*len(m.Parts)
}

// grow accounts for messages appended to the history since the last call.
func (p *projection) grow(hist []llm.Message) {
	for i := len(p.tokens); i < len(hist); i++ {
		m := hist[i]
		if pm, ok := p.shortArgs(m); ok {
			if p.args == nil {
				p.args = map[int]llm.Message{}
			}
			p.args[i] = pm
			m = pm
		}
		t := estimate(m)
		p.tokens = append(p.tokens, t)
		save := 0
		if m.Role == llm.RoleTool && len(m.Content) >= p.cfg.MinBytes {
			save = t - estimate(llm.Message{Role: m.Role, Content: p.summarize(i, m)})
			if save < 0 {
				save = 0
			}
		}
		p.savings = append(p.savings, save)
	}
}

// watermark returns how many of the oldest messages are projected: 0 while
// the history fits the budget; else the smallest multiple of Quantum that
// brings it under Target × Budget, or as far as KeepRecent allows (rounded
// down to a multiple of Quantum). It
// depends on the history alone and never moves back as the history grows,
// so the same history always gives the same request and prompt caches keep
// hitting between the rare steps where it moves (spec R2, O5).
func (p *projection) watermark(n int) int {
	total := 0
	for _, t := range p.tokens[:n] {
		total += t
	}
	if total <= p.cfg.Budget {
		return 0
	}
	// The limit moves in quanta too, so that a history whose summaries
	// alone exceed the goal does not move the watermark at every step.
	limit := (n - p.cfg.KeepRecent) / p.cfg.Quantum * p.cfg.Quantum
	if limit <= 0 {
		return 0
	}
	goal := int(float64(p.cfg.Budget) * p.cfg.Target)
	saved := 0
	for w := 0; w < limit; {
		next := min(w+p.cfg.Quantum, limit)
		for i := w; i < next; i++ {
			saved += p.savings[i]
		}
		w = next
		if total-saved <= goal {
			return w
		}
	}
	return limit
}

// compile returns the history as the model sees it: messages before the
// watermark that are large tool results are replaced by a head/tail summary
// with a reference the model can read back with history_read_tool_result
// (spec O5, O6). The canonical history is never changed. It also returns how
// many references the projection holds.
func (p *projection) compile(hist []llm.Message) ([]llm.Message, int) {
	p.grow(hist)
	w := p.watermark(len(hist))
	if w == 0 && len(p.args) == 0 {
		return hist, 0
	}
	out := make([]llm.Message, len(hist))
	copy(out, hist)
	for i, m := range p.args {
		out[i] = m
	}
	refs := 0
	for i := range w {
		if p.savings[i] > 0 {
			m := out[i]
			m.Content = p.summarize(i, m)
			out[i] = m
			refs++
		}
	}
	return out, refs
}

// shortArgs returns m as it is sent when one of its calls has arguments
// larger than MaxArgs: their large string values replaced by a note (see
// llm.ArgsRef.Placeholder), so that a step after a huge write neither
// re-encodes nor re-sends it. Only arguments stored by reference can be
// that large.
func (p *projection) shortArgs(m llm.Message) (llm.Message, bool) {
	found := false
	for _, c := range m.ToolCalls {
		found = found || (c.ArgsRef != nil && len(c.Arguments) > p.cfg.MaxArgs)
	}
	if !found {
		return m, false
	}
	calls := make([]llm.ToolCall, len(m.ToolCalls))
	for i, c := range m.ToolCalls {
		if c.ArgsRef != nil && len(c.Arguments) > p.cfg.MaxArgs {
			c.Arguments, c.ArgsRef = c.ArgsRef.Placeholder(), nil
		}
		calls[i] = c
	}
	m.ToolCalls = calls
	return m, true
}

// Ref is the reference of the history message at index i (0-based): the
// message's position in the session's canonical history, 1-based.
func Ref(i int) string { return fmt.Sprintf("r%d", i+1) }

// summarize makes (once) the projected form of tool result i: its first and
// last lines, exact counts, and how to read the rest.
func (p *projection) summarize(i int, m llm.Message) string {
	if s, ok := p.summary[i]; ok {
		return s
	}
	head, hc := tools.Head(m.Content, tools.Limits{Lines: 8, Bytes: 600})
	tail, _ := tools.Tail(m.Content[len(head):], tools.Limits{Lines: 8, Bytes: 600})
	var b strings.Builder
	fmt.Fprintf(&b, "[Result of %s projected to save context: %s lines, %s bytes. Full text: history_read_tool_result with ref %q (inspect, read, search).]\n",
		m.ToolName, tools.Count(hc.TotalLines), tools.Count(hc.TotalBytes), Ref(i))
	b.WriteString(head)
	if !strings.HasSuffix(head, "\n") {
		b.WriteString("\n")
	}
	omitted := len(m.Content) - len(head) - len(tail)
	fmt.Fprintf(&b, "[… %s bytes omitted …]\n", tools.Count(int64(omitted)))
	b.WriteString(tail)
	s := b.String()
	if p.summary == nil {
		p.summary = map[int]string{}
	}
	p.summary[i] = s
	return s
}
