package provider

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"foya/backend/llm"
)

// wireChunk is one streamed chat-completions chunk, or a whole non-streamed
// response (choices carry "message" instead of "delta"). It is decoded here
// rather than through go-openai's type because that type drops "reasoning"
// and expects arguments as a string.
type wireChunk struct {
	Choices []wireChoice    `json:"choices"`
	Usage   *wireUsage      `json:"usage"`
	Error   json.RawMessage `json:"error"`
}

type wireChoice struct {
	Index        int        `json:"index"`
	Delta        *wireDelta `json:"delta"`
	Message      *wireDelta `json:"message"`
	FinishReason *string    `json:"finish_reason"`
}

type wireDelta struct {
	Content          flexText       `json:"content"`
	Refusal          flexText       `json:"refusal"`
	ReasoningContent flexText       `json:"reasoning_content"`
	Reasoning        flexText       `json:"reasoning"`
	ToolCalls        []wireToolCall `json:"tool_calls"`
	FunctionCall     *wireFunction  `json:"function_call"` // the legacy single-call form
}

type wireToolCall struct {
	Index    wireIndex    `json:"index"`
	ID       string       `json:"id"`
	Function wireFunction `json:"function"`
}

type wireFunction struct {
	Name      string   `json:"name"`
	Arguments flexArgs `json:"arguments"`
}

type wireUsage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// maxCallIndex is the largest tool-call index taken as a position; a larger
// one is treated as absent, so that every index the assembler keeps, and the
// ones it makes above it, stay far from overflow and exact in JSON numbers.
const maxCallIndex = math.MaxInt32

// wireIndex is a tool call's "index". Servers omit it (Ollama, some
// proxies), send null, or send nonsense (negative, fractional, huge, a
// string); only a whole number from 0 to maxCallIndex names a position,
// anything else counts as absent instead of failing the chunk.
type wireIndex struct {
	n  int
	ok bool
}

func (w *wireIndex) UnmarshalJSON(b []byte) error {
	*w = wireIndex{}
	s := string(b)
	if len(s) > 1 && s[0] == '"' {
		s = s[1 : len(s)-1] // some servers quote numbers
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f != math.Trunc(f) || f < 0 || f > maxCallIndex {
		return nil
	}
	*w = wireIndex{n: int(f), ok: true}
	return nil
}

// flexText accepts a string, null, or an array of content parts (whose text
// parts are joined), since servers differ.
type flexText string

func (f *flexText) UnmarshalJSON(b []byte) error {
	switch {
	case len(b) > 0 && b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*f = flexText(s)
	case len(b) > 0 && b[0] == '[':
		var parts []struct {
			Text string `json:"text"`
		}
		if err := json.Unmarshal(b, &parts); err != nil {
			return err
		}
		var sb strings.Builder
		for _, p := range parts {
			sb.WriteString(p.Text)
		}
		*f = flexText(sb.String())
	default:
		*f = "" // null, or a shape without text
	}
	return nil
}

// unquoteExact decodes a JSON string literal (already checked by the
// decoder) as encoding/json does, except that nothing is replaced: invalid
// UTF-8 stays as its bytes, and a \uXXXX surrogate escape without its pair
// becomes the three bytes of that surrogate (WTF-8), which are not valid
// UTF-8 either. encoding/json would write U+FFFD for both, and the tool
// would then act on content the model never sent (content is never
// changed silently);
// kept, they reach the tools' argument check, which refuses them and says
// where.
func unquoteExact(b []byte) (string, error) {
	if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' {
		return "", fmt.Errorf("not a JSON string: %.40q", b)
	}
	b = b[1 : len(b)-1]
	if bytes.IndexByte(b, '\\') < 0 {
		return string(b), nil
	}
	out := make([]byte, 0, len(b))
	hex4 := func(i int) (rune, bool) {
		if i+6 > len(b) || b[i] != '\\' || b[i+1] != 'u' {
			return 0, false
		}
		v, err := strconv.ParseUint(string(b[i+2:i+6]), 16, 16)
		return rune(v), err == nil
	}
	for i := 0; i < len(b); {
		c := b[i]
		if c != '\\' || i+1 >= len(b) {
			out = append(out, c)
			i++
			continue
		}
		switch e := b[i+1]; e {
		case 'u':
			r, ok := hex4(i)
			if !ok {
				return "", fmt.Errorf("bad \\u escape in JSON string at byte %d", i)
			}
			i += 6
			if utf16.IsSurrogate(r) {
				if r2, ok := hex4(i); ok && r < 0xdc00 && r2 >= 0xdc00 && r2 <= 0xdfff {
					out = utf8.AppendRune(out, utf16.DecodeRune(r, r2))
					i += 6
					continue
				}
				out = append(out, byte(0xe0|r>>12), byte(0x80|(r>>6)&0x3f), byte(0x80|r&0x3f))
				continue
			}
			out = utf8.AppendRune(out, r)
			continue
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		default: // " \\ /
			out = append(out, e)
		}
		i += 2
	}
	return string(out), nil
}

// flexArgs accepts arguments as a JSON string (the standard) or as a JSON
// object that some servers send instead; the object is kept as its raw text.
type flexArgs string

func (f *flexArgs) UnmarshalJSON(b []byte) error {
	switch {
	case len(b) > 0 && b[0] == '"':
		s, err := unquoteExact(b)
		if err != nil {
			return err
		}
		*f = flexArgs(s)
	case string(b) == "null":
		*f = ""
	default:
		*f = flexArgs(b)
	}
	return nil
}

// callState is one tool call being assembled.
type callState struct {
	index    int    // our Index, unique in the stream: see newCall
	serverID string // the id the server sent, if any
	id       string // the ID given to the engine, set when the call opens
	name     string
	open     bool   // the opening delta (ID, Name) was emitted
	text     bool   // read from the model's text (textCalls)
	pending  []byte // arguments received before the name was known
	args     int    // bytes of arguments so far
}

// assembler turns decoded chunks into deltas. It does no I/O; deltas are
// appended to out for the caller to hand on.
type assembler struct {
	calls     []*callState
	byIndex   map[int]*callState    // the server's index -> call
	byID      map[string]*callState // the server's id -> call
	cur       *callState            // the call an unindexed fragment continues
	taken     map[int]bool          // our Indexes given out
	next      int                   // above every Index given out
	used      map[string]bool       // IDs given out in this stream
	answered  bool                  // text (or a refusal) arrived
	finish    string
	sawFinish bool
	usage     *llm.Usage
	chunks    int
	out       []llm.Delta
	// text reads tool calls written as text, nil when they are not read
	// (see Config.ToolCalls); auto drops it at the first native call.
	text *textCalls
	auto bool
}

func newAssembler() *assembler {
	return &assembler{
		byIndex: map[int]*callState{},
		byID:    map[string]*callState{},
		taken:   map[int]bool{},
		used:    map[string]bool{},
	}
}

// readTextCalls makes the assembler read tool calls written as text, as
// mode says, when the request offered tools.
func (a *assembler) readTextCalls(mode string, tools []llm.ToolSchema) {
	if mode == ToolCallsNative || len(tools) == 0 {
		return
	}
	a.text = newTextCalls(a, tools)
	a.auto = mode != ToolCallsText
}

// openTextCall opens a call read from the text, under the next Index.
func (a *assembler) openTextCall(name string) *callState {
	c := a.newCall(-1)
	c.name, c.open, c.text, c.id = name, true, true, a.assignID("")
	a.out = append(a.out, llm.Delta{Kind: llm.DeltaToolCall, Index: c.index, ID: c.id, Name: c.name})
	return c
}

// withdrawTextCalls takes back the calls read from the text: each gets a
// DeltaWithdraw, and they are no calls of the answer.
func (a *assembler) withdrawTextCalls() {
	kept := a.calls[:0]
	for _, c := range a.calls {
		if !c.text {
			kept = append(kept, c)
			continue
		}
		a.out = append(a.out, llm.Delta{Kind: llm.DeltaWithdraw, Index: c.index})
	}
	clear(a.calls[len(kept):])
	a.calls = kept
}

// textArgs gives a call read from the text its whole arguments.
func (a *assembler) textArgs(c *callState, args string) {
	c.args += len(args)
	if args != "" {
		a.out = append(a.out, llm.Delta{Kind: llm.DeltaToolCall, Index: c.index, Args: args})
	}
}

// feed handles one event. done reports the [DONE] sentinel.
func (a *assembler) feed(ev sseEvent) (done bool, err error) {
	data := bytes.TrimSpace(ev.Data)
	if string(data) == "[DONE]" {
		return true, nil
	}
	if len(data) == 0 {
		if ev.Name == "error" {
			return false, &Error{Message: "the server sent an error event without a message"}
		}
		return false, nil
	}
	a.chunks++
	var ch wireChunk
	if err := json.Unmarshal(data, &ch); err != nil {
		if ev.Name == "error" {
			return false, &Error{Message: bodyText(data)}
		}
		return false, fmt.Errorf("provider: malformed stream chunk %q: %w", bodyText(data), err)
	}
	if len(ch.Error) > 0 && string(ch.Error) != "null" {
		return false, streamError(ch.Error)
	}
	if ev.Name == "error" {
		return false, streamError(data)
	}
	for _, c := range ch.Choices {
		if c.Index != 0 {
			continue // only one choice is ever asked for
		}
		d := c.Delta
		if d == nil {
			d = c.Message
		}
		if d != nil {
			a.delta(d)
		}
		if c.FinishReason != nil && *c.FinishReason != "" {
			a.finish, a.sawFinish = *c.FinishReason, true
		}
	}
	if ch.Usage != nil {
		u := llm.Usage{
			PromptTokens:     ch.Usage.PromptTokens,
			CompletionTokens: ch.Usage.CompletionTokens,
			TotalTokens:      ch.Usage.TotalTokens,
		}
		if u.TotalTokens == 0 {
			u.TotalTokens = u.PromptTokens + u.CompletionTokens
		}
		a.usage = &u
	}
	return false, nil
}

func (a *assembler) delta(d *wireDelta) {
	// Servers that send both fields send the same text twice.
	if r := d.ReasoningContent; r != "" {
		a.out = append(a.out, llm.Delta{Kind: llm.DeltaReasoning, Text: string(r)})
	} else if r := d.Reasoning; r != "" {
		a.out = append(a.out, llm.Delta{Kind: llm.DeltaReasoning, Text: string(r)})
	}
	if (len(d.ToolCalls) > 0 || d.FunctionCall != nil) && a.text != nil && a.auto {
		// Auto reads text calls only when no native call came: from the
		// first native call on, text is text, and calls already read
		// from the text are withdrawn (they were announced early, spec
		// L1, but never run).
		a.text.native()
		a.text = nil
		a.withdrawTextCalls()
	}
	if d.Content != "" {
		if a.text != nil {
			a.text.write(string(d.Content))
		} else {
			a.answered = true
			a.out = append(a.out, llm.Delta{Kind: llm.DeltaText, Text: string(d.Content)})
		}
	}
	if d.Refusal != "" {
		a.answered = true
		a.out = append(a.out, llm.Delta{Kind: llm.DeltaText, Text: string(d.Refusal)})
	}
	for i := range d.ToolCalls {
		a.toolCall(&d.ToolCalls[i])
	}
	if f := d.FunctionCall; f != nil && (f.Name != "" || f.Arguments != "") {
		a.toolCall(&wireToolCall{Function: *f})
	}
}

// toolCall routes one tool-call fragment to its call; each entry of a delta
// is routed on its own, so one delta may carry pieces of several calls in any
// order. With an index, the index names the call, unless a different id or
// name under the same index shows that the server reused it for the next
// call. Without a usable index, a known id names the call; a new id, or a
// name when the current call already has one, starts the next call; anything
// else continues the current call.
func (a *assembler) toolCall(tc *wireToolCall) {
	id, name := tc.ID, tc.Function.Name
	var c *callState
	if tc.Index.ok {
		k := tc.Index.n
		c = a.byIndex[k]
		if c != nil && ((id != "" && c.serverID != "" && id != c.serverID) ||
			(name != "" && c.name != "" && name != c.name)) {
			c = nil
		}
		if c == nil {
			c = a.newCall(k)
			a.byIndex[k] = c
		}
	} else {
		switch {
		case id != "" && a.byID[id] != nil:
			c = a.byID[id]
		case id != "":
			c = a.newCall(-1)
		case a.cur == nil || (name != "" && a.cur.name != ""):
			c = a.newCall(-1)
		default:
			c = a.cur
		}
	}
	a.cur = c
	if id != "" && c.serverID == "" && !c.open {
		c.serverID = id
		if a.byID[id] == nil {
			a.byID[id] = c
		}
	}
	if c.name == "" && name != "" {
		c.name = name
	}
	args := string(tc.Function.Arguments)
	c.args += len(args)
	if !c.open {
		c.pending = append(c.pending, args...)
		if c.name == "" {
			return // the opening delta waits for the name
		}
		c.open = true
		c.id = a.assignID(c.serverID)
		a.out = append(a.out, llm.Delta{Kind: llm.DeltaToolCall, Index: c.index, ID: c.id, Name: c.name, Args: string(c.pending)})
		c.pending = nil
		return
	}
	if args != "" {
		a.out = append(a.out, llm.Delta{Kind: llm.DeltaToolCall, Index: c.index, Args: args})
	}
}

// newCall starts a call. Its Index is the server's index want when it has
// one that no other call of this stream holds, so that the model's order is
// ascending Index whatever order the calls open in (spec P4); otherwise (no
// index, or an index reused for the next call) it is the next Index above
// all given out, which keeps the order in which such calls appeared.
func (a *assembler) newCall(want int) *callState {
	k := want
	if k < 0 || a.taken[k] {
		k = a.next
	}
	a.taken[k] = true
	a.next = max(a.next, k+1)
	c := &callState{index: k}
	a.calls = append(a.calls, c)
	return c
}

// assignID keeps the server's id unless it is empty or was already given to
// another call of this stream; then it makes a unique one.
func (a *assembler) assignID(server string) string {
	id := server
	for id == "" || a.used[id] {
		id = "call_" + strconv.FormatUint(rand.Uint64(), 36)
	}
	a.used[id] = true
	return id
}

// end appends the deltas of a complete stream: usage, then DeltaDone. A call
// that never got a name, a finish_reason of "error" (sent by some servers
// that fail mid-answer), or a stream with neither text, nor a call, nor a
// finish reason (a server that failed and still sent [DONE]) makes the
// stream fail instead: an empty answer is never passed off as a success.
func (a *assembler) end() error {
	if a.text != nil {
		a.text.finish()
	}
	if a.finish == "error" {
		return &Error{Message: `the server ended the answer with finish_reason "error"`}
	}
	if !a.sawFinish && !a.answered && len(a.calls) == 0 {
		return &Error{Message: "the model's stream ended without an answer: no text, no tool call, no finish reason"}
	}
	for _, c := range a.calls {
		if !c.open {
			return &Error{Message: fmt.Sprintf("tool call %d arrived without a function name", c.index)}
		}
	}
	if a.usage != nil {
		a.out = append(a.out, llm.Delta{Kind: llm.DeltaUsage, Usage: *a.usage})
	}
	reason := a.finish
	switch {
	case len(a.calls) > 0 && (reason == "" || reason == "stop" || reason == "function_call"):
		reason = "tool_calls" // some servers end tool calls with "stop"
	case reason == "":
		reason = "stop"
	}
	a.out = append(a.out, llm.Delta{Kind: llm.DeltaDone, FinishReason: reason})
	return nil
}

// cutError describes a stream that ended before completion; cause is the
// body's error (io.EOF for a clean end without [DONE]).
func (a *assembler) cutError(cause error) error {
	detail := fmt.Sprintf("no finish_reason and no [DONE] after %d chunks", a.chunks)
	if c := a.cur; c != nil {
		detail += fmt.Sprintf(", during tool call %d (%s) with %d bytes of arguments", c.index, c.name, c.args)
	}
	if cause == nil || cause == io.EOF {
		return fmt.Errorf("provider: %w: %s", ErrStreamCut, detail)
	}
	return fmt.Errorf("provider: %w: %s: %w", ErrStreamCut, detail, cause)
}
