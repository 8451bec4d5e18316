package engine

import (
	"encoding/json"
	"fmt"
	"path/filepath"
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
// estimated tokens of each message, what projecting it would save, the
// summaries it has made, and the history as it was last sent (the view),
// with a key per message for the provider's kept encodings (llm.Request.Keys).
// It grows with the history and moves its watermark forward only, so
// compiling a step costs the new messages and, at the rare steps where the
// watermark moves, the messages it passes: never the whole history. The
// history it is given must only grow between calls.
type projection struct {
	cfg ContextConfig
	// base is the position in the canonical history of the first message
	// the projection is given (a compaction's end): references name
	// canonical positions.
	base    int
	tokens  []int // estimated tokens of each message, verbatim
	savings []int // tokens saved by projecting it (0: not projectable)
	summary map[int]string
	total   int // the sum of tokens

	// The watermark: w as last computed, wSaved the savings below it.
	w, wSaved int

	// lead messages (the system prompt) come first in the view, then the
	// history as sent: verbatim, with oversized arguments shortened, and
	// below applied (the watermark the view reflects) projected.
	lead    int
	view    []llm.Message
	keys    []uint64
	parts   []int // view positions of messages with parts (images)
	applied int
	refs    int // projected results in the view
	// shape, if set, gives the form in which a message is sent (the engine
	// replaces images by notes for models that take none). It must be a
	// pure function of the message.
	shape func(llm.Message) llm.Message
	// made counts messages put in the view: each history message once, and
	// once more if projected. Tests pin that a step's work does not grow.
	made int

	// Stale reads (see stale): the file calls of the history by call ID,
	// and the read results of each path not yet made stale.
	fileCalls map[string]fileCall
	reads     map[string][]staleRead
}

// fileCall is a call that reads or changes one file; whole is a read of
// the file from its start with no line limit.
type fileCall struct {
	tool, path string
	whole      bool
	asst       int // the position of the assistant message that made it
}

// staleRead is a read result that may become stale: its position, and
// whether it read the whole file.
type staleRead struct {
	at    int
	whole bool
}

// Tools whose successful result makes earlier reads of their path stale.
var changesFile = map[string]bool{"edit": true, "write": true, "delete": true}

// Keys of view messages: a position's message changes once at most, when
// the watermark passes it.
const (
	keyVerbatim  uint64 = 1
	keyProjected uint64 = 2
)

// estimate is a cheap, deterministic token estimate: four bytes a token,
// plus a little per message and per image.
func estimate(m llm.Message) int {
	n := 4 + (len(m.Content)+len(m.Reasoning))/4
	for _, c := range m.ToolCalls {
		n += 8 + (len(c.Name)+len(c.Arguments))/4
	}
	return n + 800*len(m.Parts)
}

// setLead puts messages before the history in the view (the system
// prompt); it must be called before the first compile.
func (p *projection) setLead(ms ...llm.Message) {
	if len(p.view) > 0 {
		panic("engine: projection lead set after the history")
	}
	for _, m := range ms {
		p.add(m)
	}
	p.lead = len(ms)
}

func (p *projection) add(m llm.Message) {
	if p.shape != nil {
		m = p.shape(m)
	}
	if len(m.Parts) > 0 {
		p.parts = append(p.parts, len(p.view))
	}
	p.view = append(p.view, m)
	p.keys = append(p.keys, keyVerbatim)
	p.made++
}

// grow accounts for messages appended to the history since the last call.
func (p *projection) grow(hist []llm.Message) {
	for i := len(p.tokens); i < len(hist); i++ {
		m := hist[i]
		if pm, ok := p.shortArgs(m); ok {
			m = pm
		}
		t := estimate(m)
		p.tokens = append(p.tokens, t)
		p.total += t
		save := 0
		if m.Role == llm.RoleTool && len(m.Content) >= p.cfg.MinBytes {
			save = t - estimate(llm.Message{Role: m.Role, Content: p.summarize(i, m)})
			if save < 0 {
				save = 0
			}
		}
		p.savings = append(p.savings, save)
		p.add(m)
		p.noteFiles(i, m)
	}
}

// noteFiles follows the reads and changes of files in the history: once a
// file read at i was changed by a later successful edit, write or delete,
// or read whole again, the read's text is no longer the file's, or is
// sent again later, and it is sent as a one-line note (stale) from the
// next request on, if that costs prompt caches less than one request
// saves: the messages between the read and the call that made it stale,
// which are sent again uncached once, take fewer tokens than the read. A read long ago, with much conversation
// after it, stays verbatim until the watermark passes it. It depends on
// the history alone.
func (p *projection) noteFiles(i int, m llm.Message) {
	switch m.Role {
	case llm.RoleAssistant:
		for _, c := range m.ToolCalls {
			if c.Name != "read" && !changesFile[c.Name] {
				continue
			}
			var a struct {
				Path          string `json:"path"`
				Offset, Limit *int
			}
			if json.Unmarshal([]byte(c.Arguments), &a) != nil || a.Path == "" {
				continue
			}
			if p.fileCalls == nil {
				p.fileCalls, p.reads = map[string]fileCall{}, map[string][]staleRead{}
			}
			p.fileCalls[c.ID] = fileCall{tool: c.Name, path: filepath.Clean(a.Path), whole: a.Offset == nil && a.Limit == nil, asst: i}
		}
	case llm.RoleTool:
		fc, ok := p.fileCalls[m.ToolCallID]
		if !ok || m.IsError {
			return
		}
		delete(p.fileCalls, m.ToolCallID)
		if fc.tool != "read" {
			for _, r := range p.reads[fc.path] {
				p.stale(r.at, i, fc)
			}
			delete(p.reads, fc.path)
			return
		}
		if fc.whole {
			// The whole file again: earlier whole reads of it are
			// superseded; reads of parts are not.
			kept := p.reads[fc.path][:0]
			for _, r := range p.reads[fc.path] {
				if r.whole {
					p.stale(r.at, i, fc)
				} else {
					kept = append(kept, r)
				}
			}
			p.reads[fc.path] = kept
		}
		if len(m.Content) >= p.cfg.MinBytes {
			p.reads[fc.path] = append(p.reads[fc.path], staleRead{at: i, whole: fc.whole})
		}
	}
}

// stale sends read result r, made stale by the change (or read) at i, as a note,
// when that is worth it (see noteFiles).
func (p *projection) stale(r, i int, change fileCall) {
	k := p.lead + r
	if p.keys[k] == keyProjected {
		return // the watermark passed it
	}
	m := p.view[k]
	note := fmt.Sprintf("[Stale: %s as read before the %s at %s (%s bytes); read it again for its text now.]",
		change.path, change.tool, Ref(p.base+i), tools.Count(int64(len(m.Content))))
	if change.tool == "read" {
		note = fmt.Sprintf("[Superseded: %s was read again at %s (this read: %s bytes).]", change.path, Ref(p.base+i), tools.Count(int64(len(m.Content))))
	}
	// What the previous request sent after the read: the call that made
	// it stale and its result are new in this request in any case.
	after := 0
	for _, t := range p.tokens[r+1 : max(change.asst, r+1)] {
		after += t
	}
	if after >= p.tokens[r]-estimate(llm.Message{Role: m.Role, Content: note}) {
		return
	}
	m.Content = note
	p.view[k], p.keys[k] = m, keyProjected
	p.made++
}

// watermark returns how many of the oldest of the n messages are projected:
// 0 while the history fits the budget; else the smallest multiple of
// Quantum that brings it under Target × Budget, or as far as KeepRecent
// allows (rounded down to a multiple of Quantum). It depends on the history
// alone and never moves back as the history grows, so the same history
// always gives the same request and prompt caches keep hitting between the
// rare steps where it moves (spec R2, O5).
//
// Because it never moves back, the search starts where the last one ended:
// with the history grown, no smaller multiple can meet the goal (the total
// only grew, the savings below it are fixed), and the limit only grew. So
// the result is that of searching from 0, at a cost that does not grow with
// the history. n must not be less than at the last call.
func (p *projection) watermark(n int) int {
	if p.total <= p.cfg.Budget {
		return 0
	}
	// The limit moves in quanta too, so that a history whose summaries
	// alone exceed the goal does not move the watermark at every step.
	limit := (n - p.cfg.KeepRecent) / p.cfg.Quantum * p.cfg.Quantum
	if limit <= 0 {
		return 0
	}
	goal := int(float64(p.cfg.Budget) * p.cfg.Target)
	w, saved := p.w, p.wSaved
	if w > 0 && p.total-saved <= goal {
		return w
	}
	for w < limit {
		next := min(w+p.cfg.Quantum, limit)
		for i := w; i < next; i++ {
			saved += p.savings[i]
		}
		w = next
		if p.total-saved <= goal {
			break
		}
	}
	p.w, p.wSaved = w, saved
	return w
}

// compile returns the history as the model sees it: messages before the
// watermark that are large tool results are replaced by a head/tail summary
// with a reference the model can read back with history_read_tool_result
// (spec O5, O6). The canonical history is never changed. It also returns how
// many references the projection holds. The slice returned is the
// projection's own: callers must not change it, and it is valid until the
// next compile, which may change it in place.
func (p *projection) compile(hist []llm.Message) ([]llm.Message, int) {
	view, _, refs := p.request(hist)
	return view[p.lead:], refs
}

// request is compile with the lead messages first, and the key of each
// message (llm.Request.Keys).
func (p *projection) request(hist []llm.Message) ([]llm.Message, []uint64, int) {
	p.grow(hist)
	if w := p.watermark(len(hist)); w > p.applied {
		// In place: a request's messages are valid until the model's
		// Stream returns (see Model), so no one holds the previous one.
		for i := p.applied; i < w; i++ {
			if p.savings[i] == 0 || p.keys[p.lead+i] == keyProjected {
				continue
			}
			m := hist[i]
			m.Content = p.summarize(i, m)
			if p.shape != nil {
				m = p.shape(m)
			}
			p.view[p.lead+i], p.keys[p.lead+i] = m, keyProjected
			p.refs++
			p.made++
		}
		p.applied = w
	}
	return p.view, p.keys, p.refs
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
		m.ToolName, tools.Count(hc.TotalLines), tools.Count(hc.TotalBytes), Ref(p.base+i))
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
