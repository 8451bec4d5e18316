package mcp

import (
	"context"
	"fmt"
	"math"
	"net/mail"
	"net/url"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"foya/backend/event"
	"foya/backend/tools"
)

// Elicitation: Foya declares the elicitation capability (form and URL
// modes) to every server. A server's elicitation/create is the question
// of the tool call of that server that is running (the latest, when
// several are): Options.Elicit is asked with that call's RunContext, and
// its answer goes back to the server. The wait ends, cancelled, when the
// call ends (the run was cancelled, the server stopped, the call failed);
// while the user answers, the call's silence timeout is held, so a person
// who takes a minute does not get the server restarted as hung.
//
// A form's requestedSchema must be a flat object of primitives (strings,
// with a format, an enum or lengths; numbers and integers, with bounds;
// booleans; enums, with titles through oneOf or enumNames): anything
// else (a nested object, an array, a multi-select) is declined with a note
// in the result's _meta (NoteKey), and Options.Elicit is told why
// (Elicitation.Unshowable) so the user sees it happened. Fields come in
// the order of the schema's required list, then by name: the order of a
// JSON object does not survive its decoding.

// NoteKey is the _meta key of the note Foya adds to an answer it gave
// for the user (a form it cannot show, no one to ask).
const NoteKey = "foya/note"

// Elicitation is what a server asks the user.
type Elicitation struct {
	// Server is the server's name; Workdir the project of a project's
	// server.
	Server, Workdir string
	// Mode is event.ElicitForm or event.ElicitURL.
	Mode    string
	Message string
	// Fields are the form's fields (form mode).
	Fields []event.ElicitField
	// URL is what to open, and ElicitationID the server's name for the
	// request (URL mode).
	URL, ElicitationID string
	// Unshowable says why Foya cannot show it (its schema is not a flat
	// object of primitives): it is declined whatever Elicit answers.
	Unshowable string
}

// Elicitation answers (ElicitAnswer.Action).
const (
	Accept  = "accept"
	Decline = "decline"
	Cancel  = "cancel"
)

// ElicitAnswer is the answer to an elicitation.
type ElicitAnswer struct {
	// Action is Accept, Decline or Cancel.
	Action string
	// Content are the form's values, with Accept in form mode.
	Content map[string]any
	// Note, if set, says why Foya answered for the user; it reaches the
	// server in the result's _meta (NoteKey).
	Note string
}

// ElicitFunc asks the user what e asks, during the tool call callID of
// rc's run (rc is nil and callID empty for a call with no run: foya mcp
// call, or a question outside any call). It returns when the user
// answered or ctx ended (then with ctx's error: the server is told
// cancel).
type ElicitFunc func(ctx context.Context, rc *tools.RunContext, callID string, e Elicitation) (ElicitAnswer, error)

// SetElicit replaces Options.Elicit (foya mcp call's terminal questions).
func (m *Manager) SetElicit(fn ElicitFunc) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.opts.Elicit = fn
}

func (m *Manager) elicitFunc() ElicitFunc {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.opts.Elicit
}

// activeCall is a tool call of a server that is running: the one its
// elicitations belong to.
type activeCall struct {
	ctx    context.Context
	rc     *tools.RunContext
	callID string
	// hold stops the call's silence timeout until the returned release.
	hold func() (release func())
}

type rcKey struct{}

// withRunContext is ctx carrying the call's RunContext, for the
// elicitations of the call.
func withRunContext(ctx context.Context, rc *tools.RunContext) context.Context {
	if rc == nil {
		return ctx
	}
	return context.WithValue(ctx, rcKey{}, rc)
}

func runContextOf(ctx context.Context) *tools.RunContext {
	rc, _ := ctx.Value(rcKey{}).(*tools.RunContext)
	return rc
}

// begin records a call as running until the returned end.
func (s *server) begin(a *activeCall) (end func()) {
	s.mu.Lock()
	s.calls = append(s.calls, a)
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.calls = slices.DeleteFunc(s.calls, func(c *activeCall) bool { return c == a })
	}
}

// latestCall is the call an elicitation belongs to: the last one started
// that is still running; nil for none.
func (s *server) latestCall() *activeCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := len(s.calls) - 1; i >= 0; i-- {
		if s.calls[i].ctx.Err() == nil {
			return s.calls[i]
		}
	}
	return nil
}

// silence is a call's silence timeout, which progress starts again and an
// elicitation holds.
type silence struct {
	mu      sync.Mutex
	timer   *time.Timer
	timeout time.Duration
	held    int
	fired   bool
}

// reset starts the timeout again, unless it is held or has fired.
func (t *silence) reset() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.held == 0 && !t.fired {
		t.timer.Reset(t.timeout)
	}
}

func (t *silence) hold() (release func()) {
	t.mu.Lock()
	t.held++
	t.timer.Stop()
	t.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			t.mu.Lock()
			t.held--
			t.mu.Unlock()
			t.reset()
		})
	}
}

// elicitHandler answers a server's elicitation/create.
type elicitHandler struct{ s *server }

// Elicit implements client.ElicitationHandler.
func (h elicitHandler) Elicit(ctx context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	a := h.s.elicit(ctx, req.Params)
	res := &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseAction(a.Action)}}
	if a.Action == Accept && a.Content != nil {
		res.Content = a.Content
	}
	if a.Note != "" {
		res.Meta = &mcp.Meta{AdditionalFields: map[string]any{NoteKey: a.Note}}
	}
	return res, nil
}

// elicit asks the user through Options.Elicit, within the running call.
func (s *server) elicit(ctx context.Context, p mcp.ElicitationParams) ElicitAnswer {
	e := Elicitation{Server: s.entry.Name, Workdir: s.workdir, Mode: event.ElicitForm, Message: bounded(p.Message, 4096)}
	if p.Mode == mcp.ElicitationModeURL {
		e.Mode, e.URL, e.ElicitationID = event.ElicitURL, p.URL, p.ElicitationID
		if u, err := url.Parse(p.URL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			e.Unshowable = fmt.Sprintf("the URL %q is not an http:// or https:// address, so Foya does not offer to open it", bounded(p.URL, 256))
		}
	} else if fields, err := FormFields(p.RequestedSchema); err != nil {
		e.Unshowable = "Foya cannot show this form: " + err.Error()
	} else {
		e.Fields = fields
	}
	fn := s.m.elicitFunc()
	call := s.latestCall()
	var rc *tools.RunContext
	callID := ""
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if call != nil {
		rc, callID = call.rc, call.callID
		defer context.AfterFunc(call.ctx, cancel)()
		defer call.hold()()
	}
	if fn == nil {
		return ElicitAnswer{Action: Decline, Note: "Foya has no one to ask here"}
	}
	a, err := fn(wctx, rc, callID, e)
	switch {
	case e.Unshowable != "":
		return ElicitAnswer{Action: Decline, Note: e.Unshowable}
	case err != nil:
		return ElicitAnswer{Action: Cancel, Note: "the question ended unanswered: " + err.Error()}
	}
	switch a.Action {
	case Accept:
		if e.Mode == event.ElicitURL {
			a.Content = nil
			break
		}
		if a.Content == nil {
			a.Content = map[string]any{}
		}
		if errs := Validate(e.Fields, a.Content); len(errs) > 0 {
			// A front end validates first; this is a guard.
			return ElicitAnswer{Action: Decline, Note: "the values given do not fit the form: " + JoinErrors(errs)}
		}
	case Decline, Cancel:
		a.Content = nil
	default:
		return ElicitAnswer{Action: Decline, Note: fmt.Sprintf("unknown answer %q", a.Action)}
	}
	return a
}

// elicitOptions are the client options that declare elicitation.
func (s *server) elicitOptions() []client.ClientOption {
	return []client.ClientOption{
		client.WithElicitationHandler(elicitHandler{s}),
		client.WithClientCapabilities(mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapability{Form: &struct{}{}, URL: &struct{}{}}}),
	}
}

// Formats of a string field Foya checks.
var formats = []string{"email", "uri", "date", "date-time"}

// FormFields reads a requestedSchema into a form's fields: it must be a
// flat object of primitives, else the error says what Foya cannot show.
func FormFields(schema any) ([]event.ElicitField, error) {
	obj, ok := schema.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("its schema is not a JSON object")
	}
	if t, ok := obj["type"]; ok && t != "object" {
		return nil, fmt.Errorf("its schema is of type %v, not an object", t)
	}
	props, ok := obj["properties"].(map[string]any)
	if !ok && obj["properties"] != nil {
		return nil, fmt.Errorf("its schema's properties are not an object")
	}
	if len(props) > 100 {
		return nil, fmt.Errorf("it has %d fields; Foya shows at most 100", len(props))
	}
	required := map[string]int{}
	if r, ok := obj["required"].([]any); ok {
		for i, v := range r {
			if name, ok := v.(string); ok {
				if _, dup := required[name]; !dup {
					required[name] = i
				}
			}
		}
	} else if obj["required"] != nil {
		return nil, fmt.Errorf("its schema's required is not a list")
	}
	for name := range required {
		if _, ok := props[name]; !ok {
			return nil, fmt.Errorf("the field %q is required but not described", name)
		}
	}
	fields := make([]event.ElicitField, 0, len(props))
	for name, v := range props {
		p, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("the field %q is not described by an object", name)
		}
		f, err := field(name, p)
		if err != nil {
			return nil, err
		}
		_, f.Required = required[name]
		fields = append(fields, f)
	}
	sort.Slice(fields, func(i, j int) bool {
		ri, iok := required[fields[i].Name]
		rj, jok := required[fields[j].Name]
		switch {
		case iok && jok:
			return ri < rj
		case iok != jok:
			return iok
		}
		return fields[i].Name < fields[j].Name
	})
	return fields, nil
}

func field(name string, p map[string]any) (event.ElicitField, error) {
	f := event.ElicitField{Name: name}
	f.Title, _ = p["title"].(string)
	f.Description, _ = p["description"].(string)
	t, _ := p["type"].(string)
	bad := func(format string, args ...any) (event.ElicitField, error) {
		return event.ElicitField{}, fmt.Errorf("the field %q %s", name, fmt.Sprintf(format, args...))
	}
	if _, ok := p["enum"]; ok && t == "" {
		t = "string"
	}
	if _, ok := p["oneOf"]; ok && t == "" {
		t = "string"
	}
	switch t {
	case "string":
		f.Type = event.FieldString
		var err error
		if f.MinLength, err = intOf(p, "minLength"); err != nil {
			return bad("%v", err)
		}
		if f.MaxLength, err = intOf(p, "maxLength"); err != nil {
			return bad("%v", err)
		}
		if v, ok := p["format"]; ok {
			s, _ := v.(string)
			if !slices.Contains(formats, s) {
				return bad("has the format %v, which Foya does not know (it knows %s)", v, strings.Join(formats, ", "))
			}
			f.Format = s
		}
		opts, err := options(p)
		if err != nil {
			return bad("%v", err)
		}
		f.Options = opts
		if d, ok := p["default"]; ok {
			s, isStr := d.(string)
			if !isStr {
				return bad("has a default that is not a string")
			}
			f.Default = s
		}
	case "number", "integer":
		f.Type = t
		var err error
		if f.Minimum, err = numOf(p, "minimum"); err != nil {
			return bad("%v", err)
		}
		if f.Maximum, err = numOf(p, "maximum"); err != nil {
			return bad("%v", err)
		}
		if d, ok := p["default"]; ok {
			n, isNum := d.(float64)
			if !isNum || (t == "integer" && n != math.Trunc(n)) {
				return bad("has a default that is not a%s", map[bool]string{true: "n integer", false: " number"}[t == "integer"])
			}
			f.Default = n
		}
	case "boolean":
		f.Type = event.FieldBoolean
		if d, ok := p["default"]; ok {
			b, isBool := d.(bool)
			if !isBool {
				return bad("has a default that is not true or false")
			}
			f.Default = b
		}
	case "object":
		return bad("is an object: Foya shows flat forms only")
	case "array":
		return bad("is a list: Foya shows single values only (strings, numbers, booleans, one choice)")
	case "":
		return bad("has no type")
	default:
		return bad("is of type %q, which a form cannot show", t)
	}
	return f, nil
}

// options reads a string's enum (with enumNames as titles) or oneOf of
// const and title.
func options(p map[string]any) ([]event.ElicitOption, error) {
	var out []event.ElicitOption
	if e, ok := p["enum"]; ok {
		list, ok := e.([]any)
		if !ok || len(list) == 0 {
			return nil, fmt.Errorf("has an enum that is not a list of strings")
		}
		names, _ := p["enumNames"].([]any)
		for i, v := range list {
			s, ok := v.(string)
			if !ok {
				return nil, fmt.Errorf("has an enum that is not a list of strings")
			}
			o := event.ElicitOption{Value: s}
			if i < len(names) {
				o.Title, _ = names[i].(string)
			}
			out = append(out, o)
		}
		return out, nil
	}
	if e, ok := p["oneOf"]; ok {
		list, ok := e.([]any)
		if !ok || len(list) == 0 {
			return nil, fmt.Errorf("has a oneOf that is not a list of choices")
		}
		for _, v := range list {
			c, _ := v.(map[string]any)
			s, ok := c["const"].(string)
			if !ok {
				return nil, fmt.Errorf("has a choice with no string const")
			}
			o := event.ElicitOption{Value: s}
			o.Title, _ = c["title"].(string)
			out = append(out, o)
		}
	}
	return out, nil
}

func intOf(p map[string]any, key string) (*int, error) {
	v, ok := p[key]
	if !ok {
		return nil, nil
	}
	n, isNum := v.(float64)
	if !isNum || n < 0 || n != math.Trunc(n) || n > 1<<30 {
		return nil, fmt.Errorf("has a %s that is not a whole number", key)
	}
	i := int(n)
	return &i, nil
}

func numOf(p map[string]any, key string) (*float64, error) {
	v, ok := p[key]
	if !ok {
		return nil, nil
	}
	n, isNum := v.(float64)
	if !isNum {
		return nil, fmt.Errorf("has a %s that is not a number", key)
	}
	return &n, nil
}

// Defaults are the schema's defaults of fields, by name.
func Defaults(fields []event.ElicitField) map[string]any {
	out := map[string]any{}
	for _, f := range fields {
		if f.Default != nil {
			out[f.Name] = f.Default
		}
	}
	return out
}

// Validate checks values against the form's fields and returns what is
// wrong with each field, by name ("" for values no field has); nil when
// they fit.
func Validate(fields []event.ElicitField, values map[string]any) map[string]string {
	errs := map[string]string{}
	for _, f := range fields {
		v, ok := values[f.Name]
		if !ok || v == nil {
			if f.Required {
				errs[f.Name] = "required"
			}
			continue
		}
		if msg := check(f, v); msg != "" {
			errs[f.Name] = msg
		}
	}
	var unknown []string
	for k := range values {
		if !slices.ContainsFunc(fields, func(f event.ElicitField) bool { return f.Name == k }) {
			unknown = append(unknown, fmt.Sprintf("%q", k))
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		errs[""] = "the form has no field " + strings.Join(unknown, ", ")
	}
	if len(errs) == 0 {
		return nil
	}
	return errs
}

func check(f event.ElicitField, v any) string {
	switch f.Type {
	case event.FieldString:
		s, ok := v.(string)
		if !ok {
			return "must be text"
		}
		n := utf8.RuneCountInString(s)
		if f.MinLength != nil && n < *f.MinLength {
			return fmt.Sprintf("must be at least %d characters", *f.MinLength)
		}
		if f.MaxLength != nil && n > *f.MaxLength {
			return fmt.Sprintf("must be at most %d characters", *f.MaxLength)
		}
		if len(f.Options) > 0 && !slices.ContainsFunc(f.Options, func(o event.ElicitOption) bool { return o.Value == s }) {
			return "must be one of the choices"
		}
		switch f.Format {
		case "email":
			if a, err := mail.ParseAddress(s); err != nil || a.Address != s {
				return "must be an email address"
			}
		case "uri":
			if u, err := url.Parse(s); err != nil || u.Scheme == "" {
				return "must be a URI, such as https://example.com"
			}
		case "date":
			if _, err := time.Parse(time.DateOnly, s); err != nil {
				return "must be a date, such as 2026-12-31"
			}
		case "date-time":
			if _, err := time.Parse(time.RFC3339, s); err != nil {
				return "must be a date and time, such as 2026-12-31T09:30:00Z"
			}
		}
	case event.FieldNumber, event.FieldInteger:
		n, ok := v.(float64)
		if !ok {
			if i, isInt := v.(int); isInt {
				n, ok = float64(i), true
			}
		}
		if !ok || math.IsNaN(n) || math.IsInf(n, 0) {
			return "must be a number"
		}
		if f.Type == event.FieldInteger && n != math.Trunc(n) {
			return "must be a whole number"
		}
		if f.Minimum != nil && n < *f.Minimum {
			return fmt.Sprintf("must be at least %v", *f.Minimum)
		}
		if f.Maximum != nil && n > *f.Maximum {
			return fmt.Sprintf("must be at most %v", *f.Maximum)
		}
	case event.FieldBoolean:
		if _, ok := v.(bool); !ok {
			return "must be true or false"
		}
	}
	return ""
}

// JoinErrors is Validate's errors as one sentence, fields by name.
func JoinErrors(errs map[string]string) string {
	keys := make([]string, 0, len(errs))
	for k := range errs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		if k == "" {
			parts = append(parts, errs[k])
			continue
		}
		parts = append(parts, k+" "+errs[k])
	}
	return strings.Join(parts, "; ")
}

var _ client.ElicitationHandler = elicitHandler{}
