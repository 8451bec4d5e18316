package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"foya/backend/llm"
)

// Registry maps tool names to tools (spec R1). Built-in tools are added at
// start-up; MCP tools come and go at run time, so it is safe for concurrent
// use.
type Registry struct {
	mu    sync.RWMutex
	tools map[string]*entry
}

type entry struct {
	tool   Tool
	spec   Spec
	schema llm.ToolSchema // compacted once, so requests are byte-stable (spec R2)
	check  *jsonschema.Schema
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{tools: map[string]*entry{}}
}

// Add registers tools. A duplicate name, an empty name or an invalid schema
// is a programmer error and panics; use Put for tools from outside sources.
func (r *Registry) Add(ts ...Tool) {
	for _, t := range ts {
		if err := r.Put(t); err != nil {
			panic("tools: " + err.Error())
		}
	}
}

// Put registers one tool and reports why it cannot be registered.
func (r *Registry) Put(t Tool) error {
	e, err := newEntry(t)
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.tools[e.spec.Name]; dup {
		return fmt.Errorf("tool %q is already registered", e.spec.Name)
	}
	r.tools[e.spec.Name] = e
	return nil
}

// Remove unregisters a tool; it reports whether the tool was there.
func (r *Registry) Remove(name string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, ok := r.tools[name]
	delete(r.tools, name)
	return ok
}

func newEntry(t Tool) (*entry, error) {
	s := t.Spec()
	if s.Name == "" || strings.ContainsFunc(s.Name, func(c rune) bool {
		return !(c == '_' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9')
	}) || len(s.Name) > 64 {
		return nil, fmt.Errorf("tool name %q: want 1 to 64 letters, digits, _ or -", s.Name)
	}
	switch s.Exposure {
	case "":
		s.Exposure = Direct
	case Direct, Deferred, Hidden:
	default:
		return nil, fmt.Errorf("tool %s: unknown exposure %q", s.Name, s.Exposure)
	}
	raw := s.Schema
	if len(raw) == 0 {
		raw = json.RawMessage(`{"type":"object","properties":{}}`)
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return nil, fmt.Errorf("tool %s: schema is not JSON: %w", s.Name, err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(buf.Bytes()))
	if err != nil {
		return nil, fmt.Errorf("tool %s: schema: %w", s.Name, err)
	}
	c := jsonschema.NewCompiler()
	url := "tool:///" + s.Name + ".json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("tool %s: schema: %w", s.Name, err)
	}
	check, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("tool %s: schema: %w", s.Name, err)
	}
	return &entry{
		tool:   t,
		spec:   s,
		schema: llm.ToolSchema{Name: s.Name, Description: s.Description, Parameters: buf.Bytes()},
		check:  check,
	}, nil
}

// Lookup returns a registered tool and its spec.
func (r *Registry) Lookup(name string) (Tool, Spec, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	e, ok := r.tools[name]
	if !ok {
		return nil, Spec{}, false
	}
	return e.tool, e.spec, true
}

// Validate checks raw arguments against the tool's schema and returns an
// error worded for the model. Tools still validate their own input (spec K1).
func (r *Registry) Validate(name string, args json.RawMessage) error {
	r.mu.RLock()
	e, ok := r.tools[name]
	r.mu.RUnlock()
	if !ok {
		return fmt.Errorf("unknown tool %q", name)
	}
	var inst any
	var err error
	if isLarge(args) {
		inst, err = instance(args)
	} else {
		inst, err = jsonschema.UnmarshalJSON(bytes.NewReader(args))
	}
	if err != nil {
		return fmt.Errorf("arguments are not valid JSON: %v", err)
	}
	if err := e.check.Validate(inst); err != nil {
		msg := err.Error()
		if ve, ok := err.(*jsonschema.ValidationError); ok {
			msg = validationText(ve)
		}
		return fmt.Errorf("arguments do not match the schema of %s: %s", name, bounded(msg, maxValidationText))
	}
	return nil
}

// maxValidationText bounds the schema error a model gets back: arguments
// with a million unknown keys made an error naming every one, as large as
// the arguments, stored in the result and sent in every later request
// (a model's argument must not make what is stored unbounded).
const maxValidationText = 2 << 10

// bounded returns s cut to at most limit bytes at a character boundary,
// saying how much was left out.
func bounded(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s ... (%d more bytes of this message left out)", s[:cut], len(s)-cut)
}

// validationText flattens a validation error into one readable line per
// leaf cause.
func validationText(ve *jsonschema.ValidationError) string {
	p := message.NewPrinter(language.English)
	var lines []string
	var walk func(v *jsonschema.ValidationError)
	walk = func(v *jsonschema.ValidationError) {
		if len(v.Causes) == 0 {
			loc := "/" + strings.Join(v.InstanceLocation, "/")
			lines = append(lines, fmt.Sprintf("at %s: %s", loc, v.ErrorKind.LocalizedString(p)))
			return
		}
		for _, c := range v.Causes {
			walk(c)
		}
	}
	walk(ve)
	return strings.Join(lines, "; ")
}

// Filter says which registered tools a step may offer (spec R3).
type Filter struct {
	// Allow is the session's allowlist; nil allows every tool.
	Allow []string
	// Deny names tools never offered, whatever Allow says (a sub-agent's
	// run leaves task out by default).
	Deny []string
	// ReadOnly offers only tools whose Spec says ReadOnly.
	ReadOnly bool
	// Active holds the deferred tools activated in this turn.
	Active map[string]bool
	// State is what gated tools look at.
	State State
}

// State is the part of a step's situation that gated tools depend on.
type State struct {
	// Deferred counts deferred tools that could still be activated.
	Deferred int
	// Refs counts stored results the model can read back by reference.
	Refs int
	// Workdir is the session's working folder (a project's MCP servers
	// offer their tools in its sessions only).
	Workdir string
}

// Gate is the optional capability of tools offered only in some states
// (tool_search only while deferred tools wait; the history reader only
// while references exist).
type Gate interface {
	Offered(s State) bool
}

func (f Filter) allowed(e *entry) bool {
	if f.Allow != nil && !slices.Contains(f.Allow, e.spec.Name) || slices.Contains(f.Deny, e.spec.Name) {
		return false
	}
	return !f.ReadOnly || e.spec.ReadOnly
}

// Visible returns the names of the tools offered to the model under f,
// sorted (spec E1, R3). Hidden tools never are.
func (r *Registry) Visible(f Filter) []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	var names []string
	for name, e := range r.tools {
		if !f.allowed(e) {
			continue
		}
		switch e.spec.Exposure {
		case Hidden:
			continue
		case Deferred:
			if !f.Active[name] {
				continue
			}
		}
		if g, ok := e.tool.(Gate); ok && !g.Offered(f.State) {
			continue
		}
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// Candidates returns the deferred tools that f allows and has not activated
// yet, sorted by name: what tool_search may find.
func (r *Registry) Candidates(f Filter) []Spec {
	r.mu.RLock()
	defer r.mu.RUnlock()
	var out []Spec
	for name, e := range r.tools {
		if e.spec.Exposure == Deferred && !f.Active[name] && f.allowed(e) {
			out = append(out, e.spec)
		}
	}
	slices.SortFunc(out, func(a, b Spec) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Schemas returns the provider function schemas of the named tools in the
// order given (callers pass Visible's sorted names), so the tool section of
// a request is byte-identical from step to step (spec R2).
func (r *Registry) Schemas(names []string) []llm.ToolSchema {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]llm.ToolSchema, 0, len(names))
	for _, n := range names {
		if e, ok := r.tools[n]; ok {
			out = append(out, e.schema)
		}
	}
	return out
}
