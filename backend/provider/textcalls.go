package provider

import (
	"encoding/json"
	"regexp"
	"strings"
	"unsafe"

	"foya/backend/llm"
)

// Tool-call modes of a profile (Config.ToolCalls).
const (
	// ToolCallsAuto reads tool calls written as text only when the server
	// sent no native call in that answer and the request offered tools.
	ToolCallsAuto = "auto"
	// ToolCallsNative takes the server's tool_calls only; text stays text.
	ToolCallsNative = "native"
	// ToolCallsText reads tool calls written as text whenever the request
	// offered tools (native calls are taken too).
	ToolCallsText = "text"
)

// ValidToolCallsMode reports whether m is a tool-call mode ("" is auto).
func ValidToolCallsMode(m string) bool {
	switch m {
	case "", ToolCallsAuto, ToolCallsNative, ToolCallsText:
		return true
	}
	return false
}

// The openings of the tool-call forms that local servers leave in the
// text when they do not parse a model's calls. Each counts only at the
// start of a line, outside code fences of prose.
const (
	tagHermes  = "<tool_call>"    // Hermes, Qwen 2.5/3 (JSON) and Qwen3-Coder (XML)
	tagMistral = "[TOOL_CALLS]"   // Mistral: a JSON array, or name[ARGS]{...}
	tagPython  = "<|python_tag|>" // Llama 3.x
	tagFence   = "```"            // a fenced JSON call object
	endHermes  = "</tool_call>"
)

// A model's thinking that a server left in the text (Qwen3, DeepSeek R1
// without a reasoning parser) is prose too: a call it drafts is not run.
const (
	thinkOpen  = "<think>"
	thinkClose = "</think>"
)

var triggers = []string{tagHermes, tagMistral, tagPython, tagFence, thinkOpen}

// Forms of a call being read.
type textForm int

const (
	formTag textForm = iota + 1
	formPython
	formMistralArray
	formMistralArgs
	formFence
)

// States of the text-call reader.
type textState int

const (
	stText textState = iota
	stTagBody
	stFence
	stObject
	stAfter
	stXML
	stMistral
	stMistralName
	stPython
)

var (
	nameAtStart    = regexp.MustCompile(`^\{\s*"name"\s*:\s*"((?:[^"\\]|\\.)+)"`)
	nameAnywhere   = regexp.MustCompile(`"name"\s*:\s*"((?:[^"\\]|\\.)*)"`)
	firstKey       = regexp.MustCompile(`^\{\s*"((?:[^"\\]|\\.)*)"\s*:`)
	secondKey      = regexp.MustCompile(`^\{\s*"name"\s*:\s*"(?:[^"\\]|\\.)*"\s*,\s*"((?:[^"\\]|\\.)*)"\s*:`)
	argsKey        = regexp.MustCompile(`"(?:arguments|parameters)"\s*:\s*`)
	mistralNameEnd = regexp.MustCompile(`^[A-Za-z0-9_.:-]*`)
)

// maxProbe bounds how much of a call is searched for its name before the
// whole object arrived, so that a long object is not searched again at
// every delta.
const maxProbe = 4 << 10

// jsonScan finds the end of a JSON object or array that arrives in pieces:
// it follows strings and brackets only, from where it stopped.
type jsonScan struct {
	n     int
	depth int
	inStr bool
	esc   bool
}

// run scans s, which starts with the value and only grows between calls,
// and returns the end of the value once its outermost bracket closed.
func (j *jsonScan) run(s string) (int, bool) {
	for ; j.n < len(s); j.n++ {
		c := s[j.n]
		if j.inStr {
			switch {
			case j.esc:
				j.esc = false
			case c == '\\':
				j.esc = true
			case c == '"':
				j.inStr = false
			}
			continue
		}
		switch c {
		case '"':
			j.inStr = true
		case '{', '[':
			j.depth++
		case '}', ']':
			j.depth--
			if j.depth <= 0 {
				j.n++
				return j.n, true
			}
		}
	}
	return 0, false
}

// textCalls reads tool calls that a model wrote into its text, as the text
// streams (see the forms above). Text before and after a call goes on as
// text; the call's own text does not. A call opens (its first delta, which
// the engine turns into tool.begin) as soon as its name is known; its
// arguments follow once they are complete. A call the stream ended in
// gets arguments that are not valid JSON (what arrived), so it never runs
// and the model is told it was cut off (spec L2).
type textCalls struct {
	a     *assembler
	tools map[string]map[string]string // offered tool -> property -> schema type

	raw       []byte
	buf       string // text not yet handed on or dropped (a view of raw)
	st        textState
	final     bool
	lineStart bool
	inFence   bool // inside a code fence of prose
	inThink   bool // inside <think>...</think>
	afterCall bool // whitespace after a call is dropped

	form  textForm
	objAt int // where the object being read starts in buf
	scan  jsonScan
	call  *callState
	xml   xmlCall
}

type xmlCall struct {
	at     int // where the next element starts in buf
	from   int // how much of the value at at was searched for its end
	params []xmlParam
}

type xmlParam struct{ key, value string }

func newTextCalls(a *assembler, tools []llm.ToolSchema) *textCalls {
	p := &textCalls{a: a, tools: map[string]map[string]string{}, lineStart: true}
	for _, t := range tools {
		props := map[string]string{}
		var schema struct {
			Properties map[string]struct {
				Type any `json:"type"`
			} `json:"properties"`
		}
		if json.Unmarshal(t.Parameters, &schema) == nil {
			for k, v := range schema.Properties {
				if s, ok := v.Type.(string); ok {
					props[k] = s
				}
			}
		}
		p.tools[t.Name] = props
	}
	return p
}

func (p *textCalls) write(s string) {
	if s == "" {
		return
	}
	// buf views raw, which only grows at its end and is cut at its
	// start: bytes once written never change, so the views stay true,
	// and a long call costs no copy per delta.
	p.raw = append(p.raw, s...)
	p.buf = unsafe.String(unsafe.SliceData(p.raw), len(p.raw))
	p.run()
}

func (p *textCalls) clear() { p.raw, p.buf = nil, "" }

// finish reads what is left at the end of a complete stream.
func (p *textCalls) finish() {
	p.final = true
	p.run()
	if p.buf != "" {
		p.text(p.buf)
		p.clear()
	}
}

// native tells that the server sent a native call: in auto mode text is
// then text, and the reader stops. What it holds goes on as text, unless
// it is the rest of a call already announced (which the assembler
// withdraws).
func (p *textCalls) native() {
	if p.call == nil {
		p.text(p.buf)
	}
	p.clear()
}

func (p *textCalls) run() {
	for {
		var more bool
		switch p.st {
		case stText:
			more = p.stepText()
		case stTagBody:
			more = p.stepTagBody()
		case stFence:
			more = p.stepFence()
		case stObject:
			more = p.stepObject()
		case stAfter:
			more = p.stepAfter()
		case stXML:
			more = p.stepXML()
		case stMistral:
			more = p.stepMistral()
		case stMistralName:
			more = p.stepMistralName()
		case stPython:
			more = p.stepPython()
		}
		if !more {
			return
		}
	}
}

func (p *textCalls) text(s string) {
	if s == "" {
		return
	}
	p.a.answered = true
	p.a.out = append(p.a.out, llm.Delta{Kind: llm.DeltaText, Text: strings.Clone(s)})
}

// emit hands on buf[:n] as text.
func (p *textCalls) emit(n int) {
	p.text(p.buf[:n])
	p.drop(n)
}

func (p *textCalls) drop(n int) {
	p.raw, p.buf = p.raw[n:], p.buf[n:]
}

func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

func (p *textCalls) stepText() bool {
	if p.buf == "" {
		return false
	}
	if p.inThink {
		if k := strings.Index(p.buf, thinkClose); k >= 0 {
			p.emit(k + len(thinkClose))
			p.inThink, p.lineStart = false, true
			return true
		}
		n := len(p.buf)
		if !p.final {
			n = max(0, n-len(thinkClose)+1) // the rest may start the close
		}
		p.emit(n)
		return false
	}
	if p.afterCall {
		i := skipSpace(p.buf, 0)
		p.drop(i)
		if p.buf == "" {
			return false
		}
		p.afterCall = false
	}
	if !p.lineStart {
		return p.emitLine()
	}
	j := 0
	for j < len(p.buf) && (p.buf[j] == ' ' || p.buf[j] == '\t') {
		j++
	}
	if j == len(p.buf) {
		if p.final {
			p.emit(j)
		}
		return false
	}
	rest := p.buf[j:]
	if p.inFence {
		if strings.HasPrefix(rest, tagFence) {
			p.inFence = false
			p.emit(j + len(tagFence))
			p.lineStart = false
			return true
		}
		if !p.final && strings.HasPrefix(tagFence, rest) {
			return false
		}
		return p.emitLine()
	}
	for _, t := range triggers {
		if strings.HasPrefix(rest, t) {
			return p.open(j, t)
		}
		if !p.final && strings.HasPrefix(t, rest) {
			return false // may still become t
		}
	}
	return p.emitLine()
}

// emitLine hands on text up to and including the next newline.
func (p *textCalls) emitLine() bool {
	if i := strings.IndexByte(p.buf, '\n'); i >= 0 {
		p.emit(i + 1)
		p.lineStart = true
		return true
	}
	p.emit(len(p.buf))
	p.lineStart = false
	return false
}

// open starts reading the form whose opening t is at buf[j:] (the indent
// before it is dropped).
func (p *textCalls) open(j int, t string) bool {
	if len(p.tools) == 0 {
		return p.emitLine()
	}
	switch t {
	case thinkOpen:
		p.inThink = true
		p.emit(j + len(thinkOpen))
		return true
	case tagFence:
		rest := p.buf[j:]
		nl := strings.IndexByte(rest, '\n')
		if nl < 0 {
			if !p.final && len(rest) < 64 {
				return false
			}
			p.inFence = true
			return p.emitLine()
		}
		switch strings.ToLower(strings.TrimSpace(rest[len(tagFence):nl])) {
		case "", "json", "tool_call", "tool_code":
		default:
			p.inFence = true // a fence of prose: nothing in it is a call
			return p.emitLine()
		}
		// The fence's line is kept in buf until the block turns out to be
		// a call or not.
		p.objAt = j + nl + 1
		p.st = stFence
		return true
	case tagHermes:
		p.drop(j + len(t))
		p.st = stTagBody
	case tagMistral:
		p.drop(j + len(t))
		p.st = stMistral
	case tagPython:
		p.drop(j + len(t))
		p.st = stPython
	}
	return true
}

func (p *textCalls) startObject(f textForm, at int) {
	p.form, p.objAt, p.scan, p.st = f, at, jsonScan{}, stObject
}

// toText gives up on a form: buf[:n] goes on as text, reading goes on.
func (p *textCalls) toText(n int) bool {
	p.emit(n)
	p.st, p.lineStart = stText, false
	return true
}

func (p *textCalls) stepTagBody() bool {
	i := skipSpace(p.buf, 0)
	rest := p.buf[i:]
	switch {
	case strings.HasPrefix(rest, "<function="):
		p.drop(i)
		p.xml = xmlCall{}
		p.st = stXML
		return true
	case strings.HasPrefix(rest, "{"):
		p.drop(i)
		p.startObject(formTag, 0)
		return true
	case !p.final && strings.HasPrefix("<function=", rest):
		return false
	}
	p.text(tagHermes)
	return p.toText(i)
}

// stepPython reads what follows <|python_tag|>: a call object, or code
// for Llama's code interpreter, which is text here.
func (p *textCalls) stepPython() bool {
	i := skipSpace(p.buf, 0)
	if i == len(p.buf) && !p.final {
		return false
	}
	if i < len(p.buf) && p.buf[i] == '{' {
		p.drop(i)
		p.startObject(formPython, 0)
		return true
	}
	p.text(tagPython)
	return p.toText(i)
}

func (p *textCalls) stepFence() bool {
	i := skipSpace(p.buf, p.objAt)
	if i == len(p.buf) && !p.final {
		return false
	}
	if i < len(p.buf) && p.buf[i] == '{' {
		p.startObject(formFence, i) // the fence's line stays, for abandonFence
		return true
	}
	return p.abandonFence()
}

// abandonFence hands on a fenced block that is not a call as the prose
// fence it is.
func (p *textCalls) abandonFence() bool {
	p.emit(strings.IndexByte(p.buf, '\n') + 1)
	p.inFence, p.lineStart, p.st = true, true, stText
	return true
}

func (p *textCalls) offered(name string) bool {
	_, ok := p.tools[name]
	return ok
}

func (p *textCalls) openCall(name string) {
	p.call = p.a.openTextCall(strings.Clone(name))
}

func (p *textCalls) args(s string) {
	p.a.textArgs(p.call, strings.Clone(s))
	p.call = nil
}

func (p *textCalls) stepObject() bool {
	obj := p.buf[p.objAt:]
	if p.form == formMistralArgs && p.scan.n == 0 {
		if i := skipSpace(obj, 0); i > 0 {
			p.drop(i)
			obj = p.buf[p.objAt:]
		}
		if obj == "" {
			if p.final {
				p.cut("")
			}
			return p.final
		}
		if obj[0] != '{' && obj[0] != '[' {
			// Not an object: what there is up to the line's end is the
			// arguments, and they are refused as not JSON.
			end := strings.IndexByte(obj, '\n')
			if end < 0 {
				if !p.final {
					return false
				}
				end = len(obj)
			}
			p.args(obj[:end])
			p.drop(end)
			p.st, p.lineStart = stText, true
			return true
		}
	}
	if p.call == nil && p.form != formMistralArgs && len(obj) <= maxProbe {
		if p.form == formFence {
			if m := firstKey.FindStringSubmatch(obj); m != nil && m[1] != "name" {
				return p.abandonFence()
			}
			nm := nameAtStart.FindStringSubmatch(obj)
			if nm != nil && !p.offered(unquote(nm[1])) {
				return p.abandonFence()
			}
			if m := secondKey.FindStringSubmatch(obj); m != nil {
				if nm == nil || (m[1] != "arguments" && m[1] != "parameters") {
					return p.abandonFence()
				}
				p.openCall(unquote(nm[1]))
			}
		} else if m := nameAtStart.FindStringSubmatch(obj); m != nil {
			p.openCall(unquote(m[1]))
		}
	}
	end, done := p.scan.run(obj)
	if !done {
		if !p.final {
			if p.form == formFence && p.call == nil && len(obj) > maxProbe {
				return p.abandonFence()
			}
			return false
		}
		if p.call == nil {
			if p.form == formFence {
				return p.abandonFence()
			}
			return p.toText(len(p.buf))
		}
		p.cut(obj)
		return true
	}
	obj = obj[:end]
	if p.form == formMistralArgs {
		p.args(obj)
		p.drop(p.objAt + end)
		p.st, p.lineStart, p.afterCall = stText, true, true
		return true
	}
	name, args := envelope(obj)
	if p.call == nil {
		if name == "" || (p.form == formFence && (!p.offered(name) || !callObject(obj))) {
			if p.form == formFence {
				return p.abandonFence()
			}
			return p.toText(p.objAt + end)
		}
		p.openCall(name)
	}
	p.args(args)
	p.drop(p.objAt + end)
	p.st = stAfter
	return true
}

// cut ends a call the stream ended in with what arrived of it, which is
// not valid JSON, so it does not run: the model learns it was cut off.
func (p *textCalls) cut(partial string) {
	args := partial
	if p.form != formMistralArgs {
		if loc := argsKey.FindStringIndex(partial); loc != nil && !json.Valid([]byte(partial[loc[1]:])) {
			args = partial[loc[1]:]
		}
	}
	if strings.TrimSpace(args) == "" || json.Valid([]byte(args)) {
		args = "{" // cannot happen for a partial object; never run it
	}
	p.args(args)
	p.clear()
	p.st = stText
}

// envelope reads a call object {"name": ..., "arguments"|"parameters": ...}.
// Arguments sent as a JSON string are unwrapped. An object that is not valid
// JSON gives the text of its arguments when they can be found, else the
// whole object: not valid either, so the call is refused with a message
// that says where the JSON went wrong, never guessed into one that runs.
func envelope(obj string) (name, args string) {
	var m map[string]json.RawMessage
	if json.Unmarshal([]byte(obj), &m) == nil {
		json.Unmarshal(m["name"], &name)
		raw := m["arguments"]
		if raw == nil {
			raw = m["parameters"]
		}
		switch {
		case len(raw) == 0 || string(raw) == "null":
			return name, "{}"
		case raw[0] == '"':
			var s string
			json.Unmarshal(raw, &s)
			if strings.TrimSpace(s) == "" {
				s = "{}"
			}
			return name, s
		}
		return name, string(raw)
	}
	if mm := nameAnywhere.FindStringSubmatch(obj); mm != nil {
		name = unquote(mm[1])
	}
	if loc := argsKey.FindStringIndex(obj); loc != nil {
		rest := obj[loc[1]:]
		var s jsonScan
		if end, ok := s.run(rest); ok && !json.Valid([]byte(rest[:end])) {
			return name, rest[:end]
		}
	}
	return name, obj
}

// callObject reports whether a fenced object is a call and nothing else:
// valid JSON with a name and arguments (or parameters), and no other keys
// than those, an id and a type.
func callObject(obj string) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal([]byte(obj), &m) != nil || m["name"] == nil || (m["arguments"] == nil && m["parameters"] == nil) {
		return false
	}
	for k := range m {
		switch k {
		case "name", "arguments", "parameters", "id", "type":
		default:
			return false
		}
	}
	return true
}

func unquote(s string) string {
	var out string
	if json.Unmarshal([]byte(`"`+s+`"`), &out) != nil {
		return s
	}
	return out
}

// stepAfter reads what follows a call object in its form.
func (p *textCalls) stepAfter() bool {
	i := skipSpace(p.buf, 0)
	rest := p.buf[i:]
	if rest == "" && !p.final {
		return false
	}
	switch p.form {
	case formTag:
		if strings.HasPrefix(rest, endHermes) {
			p.drop(i + len(endHermes))
		} else if !p.final && strings.HasPrefix(endHermes, rest) {
			return false
		}
	case formPython:
		for _, end := range []string{"<|eom_id|>", "<|eot_id|>"} {
			if strings.HasPrefix(rest, end) {
				p.drop(i + len(end))
				p.st, p.lineStart, p.afterCall = stText, true, true
				return true
			}
			if !p.final && strings.HasPrefix(end, rest) {
				return false
			}
		}
		if strings.HasPrefix(rest, ";") {
			j := skipSpace(p.buf, i+1)
			if j == len(p.buf) && !p.final {
				return false
			}
			if j < len(p.buf) && p.buf[j] == '{' {
				p.drop(j)
				p.startObject(formPython, 0)
				return true
			}
		}
	case formMistralArray:
		switch {
		case strings.HasPrefix(rest, ","):
			p.drop(i + 1)
			return true
		case strings.HasPrefix(rest, "{"):
			p.drop(i)
			p.startObject(formMistralArray, 0)
			return true
		case strings.HasPrefix(rest, "]"):
			p.drop(i + 1)
		}
	case formFence:
		if strings.HasPrefix(rest, tagFence) {
			p.drop(i + len(tagFence))
		} else if !p.final && strings.HasPrefix(tagFence, rest) {
			return false
		} else {
			// More in the block than the call: it goes on as text.
			p.inFence = true
		}
	}
	p.st, p.lineStart, p.afterCall = stText, true, true
	return true
}

func (p *textCalls) stepMistral() bool {
	i := skipSpace(p.buf, 0)
	if i == len(p.buf) {
		if p.final {
			p.clear()
			p.st = stText
		}
		return p.final
	}
	if p.buf[i] == '[' {
		p.drop(i + 1)
		p.form, p.st = formMistralArray, stAfter
		return true
	}
	p.drop(i)
	p.st = stMistralName
	return true
}

// stepMistralName reads name[ARGS] or name[CALL_ID]id[ARGS].
func (p *textCalls) stepMistralName() bool {
	n := len(mistralNameEnd.FindString(p.buf))
	rest := p.buf[n:]
	const args, callID = "[ARGS]", "[CALL_ID]"
	switch {
	case n > 0 && n <= 128 && strings.HasPrefix(rest, args):
		p.openCall(p.buf[:n])
		p.drop(n + len(args))
	case n > 0 && n <= 128 && strings.HasPrefix(rest, callID):
		k := strings.Index(rest, args)
		if k < 0 {
			if !p.final && len(rest) < 256 {
				return false
			}
			p.text(tagMistral)
			return p.toText(len(p.buf))
		}
		p.openCall(p.buf[:n])
		p.drop(n + k + len(args))
	case !p.final && n <= 128 && (strings.HasPrefix(args, rest) || strings.HasPrefix(callID, rest)):
		return false
	default:
		p.text(tagMistral)
		return p.toText(n)
	}
	p.startObject(formMistralArgs, 0)
	return true
}

// stepXML reads Qwen3-Coder's form:
// <function=NAME><parameter=KEY>value</parameter>...</function>.
func (p *textCalls) stepXML() bool {
	const fn, par, endPar, endFn = "<function=", "<parameter=", "</parameter>", "</function>"
	if p.call == nil {
		gt := strings.IndexByte(p.buf, '>')
		if gt < 0 {
			if !p.final && len(p.buf) < 256 {
				return false
			}
			p.text(tagHermes)
			return p.toText(len(p.buf))
		}
		name := strings.TrimSpace(p.buf[len(fn):gt])
		if name == "" || strings.ContainsAny(name, "<\n") {
			p.text(tagHermes)
			return p.toText(gt + 1)
		}
		p.openCall(name)
		p.xml = xmlCall{at: gt + 1}
		return true
	}
	i := skipSpace(p.buf, p.xml.at)
	rest := p.buf[i:]
	switch {
	case strings.HasPrefix(rest, endFn):
		p.args(p.xmlArgs(true))
		p.drop(i + len(endFn))
		p.form, p.st = formTag, stAfter
		return true
	case strings.HasPrefix(rest, par):
		gt := strings.IndexByte(rest, '>')
		if gt < 0 {
			break
		}
		key := strings.TrimSpace(rest[len(par):gt])
		body := rest[gt+1:]
		end, next := -1, 0
		for _, t := range []string{endPar, endFn, "\n" + par} {
			if k := strings.Index(body[p.xml.from:], t); k >= 0 && (end < 0 || p.xml.from+k < end) {
				k += p.xml.from
				end, next = k, 0
				if t == endPar {
					next = len(endPar)
				}
			}
		}
		if end < 0 {
			p.xml.from = max(0, len(body)-len(par)-1)
			break
		}
		p.xml.from = 0
		v := strings.TrimPrefix(body[:end], "\n")
		v = strings.TrimSuffix(v, "\n")
		p.xml.params = append(p.xml.params, xmlParam{strings.Clone(key), strings.Clone(v)})
		p.xml.at = i + gt + 1 + end + next
		return true
	case !p.final && (strings.HasPrefix(endFn, rest) || strings.HasPrefix(par, rest)):
		return false
	default:
		// Not the form: the call is refused as incomplete.
		p.args(p.xmlArgs(false))
		p.drop(i)
		p.st, p.lineStart = stText, false
		return true
	}
	if !p.final {
		return false
	}
	p.args(p.xmlArgs(false))
	p.clear()
	p.st = stText
	return true
}

// xmlArgs turns the parameters read into a JSON object. A value is a JSON
// value when the tool's schema says the parameter is not a string and the
// value is valid JSON, else a string. Without complete, the object is left
// open: not valid JSON, the call does not run.
func (p *textCalls) xmlArgs(complete bool) string {
	types := p.tools[p.call.name]
	var b strings.Builder
	b.WriteByte('{')
	for i, kv := range p.xml.params {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(kv.key)
		b.Write(k)
		b.WriteByte(':')
		v := strings.TrimSpace(kv.value)
		if t := types[kv.key]; t != "string" && v != "" && json.Valid([]byte(v)) {
			b.WriteString(v)
			continue
		}
		s, _ := json.Marshal(kv.value)
		b.Write(s)
	}
	if complete {
		b.WriteByte('}')
	}
	return b.String()
}
