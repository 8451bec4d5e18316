package engine

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"foya/backend/event"
	"foya/backend/llm"
	"foya/backend/tools"
)

// Compaction (issue 28): when the next request would pass CompactAt of
// the model's known context window, the oldest messages of the history
// are replaced, in the requests, by one note: the model's summary of them
// (a separate request without tools, llm.CompactPrompt), then the
// session's file changes and task list rendered from Foya's records. The
// newest messages stay verbatim. The note is stored whole in a
// context.compacted event, and every later request sends its very bytes
// (spec R2: prompt caches). The canonical history is never changed: its
// tool results stay readable with history_read_tool_result. A person may
// compact (Engine.Compact) and undo the compaction in force
// (Engine.Uncompact: the next request is compiled without it).

// DefaultCompactAt is the share of the context window a request may take
// before the history is compacted, when the run is given none.
const DefaultCompactAt = 0.8

// MinCompactAt and MaxCompactAt bound the context.compactAt setting.
const (
	MinCompactAt = 0.2
	MaxCompactAt = 0.95
)

// Shares of the room a compaction works in (CompactAt of the window, less
// the system prompt and the tools).
const (
	keepShare    = 0.4  // the newest messages kept verbatim
	summaryShare = 0.15 // the most the model's summary may take of the window
	chunkShare   = 0.5  // the most one summary request's transcript takes of the window
)

// compaction is the one in force for a session: the note that stands for
// its first upto history messages.
type compaction struct {
	id   string
	upto int
	note string
	sum  string // the model's summary in it, merged by the next compaction
}

// activeCompaction returns the session's compaction in force: the last
// context.compacted not undone by a context.uncompacted, if it still fits
// the history of n messages. A sub-agent's compactions (their events name
// the task call) are of the sub-agent's own history, never the session's.
func activeCompaction(ctx context.Context, st Store, sessionID string, hist []llm.Message) (*compaction, error) {
	done, err := st.EventsOfType(ctx, sessionID, event.TypeContextCompacted)
	if err != nil || len(done) == 0 {
		return nil, err
	}
	undone, err := st.EventsOfType(ctx, sessionID, event.TypeContextUncompacted)
	if err != nil {
		return nil, err
	}
	off := map[string]bool{}
	for _, ev := range undone {
		var d event.ContextUncompactedData
		if json.Unmarshal(ev.Data, &d) == nil {
			off[d.ID] = true
		}
	}
	for i := len(done) - 1; i >= 0; i-- {
		var d event.ContextCompactedData
		if done[i].ParentCallID != "" || json.Unmarshal(done[i].Data, &d) != nil || off[d.ID] {
			continue
		}
		if d.Upto <= 0 || d.Upto > len(hist) || (d.Upto < len(hist) && hist[d.Upto].Role == llm.RoleTool) {
			continue // not of this history: never sent
		}
		return &compaction{id: d.ID, upto: d.Upto, note: d.Note, sum: d.Summary}, nil
	}
	return nil, nil
}

// compactAt is the run's share of the window at which it compacts.
func (r *runner) compactAt() float64 {
	if a := r.req.CompactAt; a >= MinCompactAt && a <= MaxCompactAt {
		return a
	}
	return DefaultCompactAt
}

// toolTokens estimates a request's tool schemas.
func toolTokens(req llm.Request) int {
	n := 0
	for _, t := range req.Tools {
		n += 8 + (len(t.Name)+len(t.Description)+len(t.Parameters))/4
	}
	return n
}

// requestTokens estimates a whole request: messages and tools.
func requestTokens(req llm.Request) int { return messageTokens(req) + toolTokens(req) }

// compactDue reports whether req passes the run's share of a known
// window. A sub-agent's run is compacted the same way, on its own history:
// its compaction is stored (context.compacted with the task call's ID on
// the envelope) and lives only for that run, which is never resumed.
func (r *runner) compactDue(req llm.Request) bool {
	w := r.req.Window
	if !w.Known || w.Tokens <= 0 {
		return false
	}
	return float64(requestTokens(req)) > r.compactAt()*float64(w.Tokens)
}

// autoCompact compacts the history because req is due (compactDue). On
// success the projection is rebuilt on the new note. When the summary
// fails, the run goes on uncompacted if req still fits the window, else
// it stops with an error that says so; nothing of the history is lost
// either way, and either way a context.compact_failed event tells it.
func (r *runner) autoCompact(ctx context.Context, req llm.Request) error {
	w := r.req.Window
	total := requestTokens(req)
	fits := total < w.Tokens
	if (r.compactErr != "" || r.compactShort) && fits {
		// Failed once in this run, or the last compaction could not bring
		// the request under the share: not asked again while it fits.
		return nil
	}
	if err := r.rec.storeHeld(ctx); err != nil {
		return err
	}
	plan := compactPlan{
		by: event.CompactAuto, fixed: fixedTokens(req), window: w, at: r.compactAt(), before: total,
	}
	d, c, usage, err := r.e.compactHistory(ctx, r.sess, r.req.Model, r.hist, r.compact, plan)
	r.run.Usage = r.run.Usage.Add(usage)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		failed := event.ContextCompactFailed(event.ContextCompactFailedData{By: event.CompactAuto, Error: err.Error(), Stopped: !fits})
		if cerr := r.rec.commit(ctx, llm.Commit{Events: []llm.Event{failed}}); cerr != nil {
			return cerr
		}
		if !fits {
			return &runError{msg: fmt.Sprintf("the conversation (about %d tokens) no longer fits the model's context window (%d tokens, %s), and compacting it failed: %s. "+
				"Nothing of the history was lost: send another message to try again, compact it from the context meter, or use a model with a larger context window",
				total, w.Tokens, w.About, err)}
		}
		r.compactErr = err.Error()
		return nil
	}
	if err := r.rec.commit(ctx, llm.Commit{Events: []llm.Event{event.ContextCompacted(d)}}); err != nil {
		return err
	}
	r.compact = c
	r.resetProjection()
	return nil
}

// resetProjection starts the projection anew on the compaction in force:
// the system prompt and the compaction's note lead, then the history after
// it. The provider's kept encodings are of the old view: they go too.
func (r *runner) resetProjection() {
	p := &projection{cfg: r.ctxCfg, shape: r.proj.shape}
	lead := []llm.Message{{Role: llm.RoleSystem, Content: r.system}}
	if c := r.compact; c != nil {
		lead = append(lead, llm.Message{Role: llm.RoleUser, Content: c.note})
		p.base = c.upto
	}
	p.setLead(lead...)
	r.proj = p
	r.enc = &llm.Encodings{}
}

// compactPlan says how to size a compaction.
type compactPlan struct {
	by     string
	fixed  int // estimated tokens of the system prompt and the tools
	window Window
	at     float64
	before int // estimated tokens of the request without the new compaction
}

// keepTokens is how much of the newest history stays verbatim.
func (p compactPlan) keepTokens(histTokens int) int {
	if p.window.Tokens > 0 {
		room := int(p.at*float64(p.window.Tokens)) - p.fixed
		keep := int(keepShare * float64(room))
		if p.by == event.CompactUser {
			keep = min(keep, histTokens/4)
		}
		return max(keep, 0)
	}
	return histTokens / 4
}

// cut returns where the verbatim part of hist starts: the first message,
// after from, such that the messages from it on take at most keep tokens,
// and that is not a tool result (a result stays with the call that made
// it). If even the newest step takes more, the cut keeps the newest step
// alone. 0 when there is nothing after from to compact.
func cut(hist []llm.Message, from, keep int) int {
	at, acc := 0, 0
	for i := len(hist) - 1; i > from; i-- {
		acc += estimate(hist[i])
		if hist[i].Role == llm.RoleTool {
			continue
		}
		if acc > keep && at > 0 {
			break
		}
		at = i
		if acc > keep {
			break
		}
	}
	return at
}

// compactHistory makes a compaction of hist (not yet stored): the new
// compaction covers what prev covered and the messages after it, up to the
// cut, summarised with the model in as many requests as the window needs
// (each merges the summary so far with the next messages). It returns the
// event's payload and the compaction, and the tokens the summary requests
// used.
func (e *Engine) compactHistory(ctx context.Context, sess llm.Session, model Model, hist []llm.Message, prev *compaction, plan compactPlan) (event.ContextCompactedData, *compaction, llm.Usage, error) {
	var usage llm.Usage
	from, sum := 0, ""
	if prev != nil {
		from, sum = prev.upto, prev.sum
	}
	histTokens := 0
	for _, m := range hist[from:] {
		histTokens += estimate(m)
	}
	upto := cut(hist, from, plan.keepTokens(histTokens))
	if upto <= from {
		return event.ContextCompactedData{}, nil, usage, errors.New("there is nothing old enough to compact: the newest step alone takes the room kept for recent messages")
	}
	budget := 24_000
	maxSummary := 4_000
	if w := plan.window.Tokens; w > 0 {
		budget = int(chunkShare * float64(w))
		maxSummary = max(int(summaryShare*float64(w)), 200)
	}
	for start := from; start < upto; {
		room := budget - estimate(llm.Message{Content: llm.CompactPrompt}) - estimate(llm.Message{Content: sum}) - 64
		if room < 500 {
			return event.ContextCompactedData{}, nil, usage, fmt.Errorf("the context window (%d tokens) is too small to summarise the conversation in", plan.window.Tokens)
		}
		var b strings.Builder
		end := start
		for end < upto {
			piece := transcriptLine(hist, end, sess.Workdir)
			if end > start && (b.Len()+len(piece))/4 > room {
				break
			}
			b.WriteString(piece)
			end++
		}
		next, u, err := summarise(ctx, model, sess.Model, sum, b.String(), start, end, maxSummary)
		usage = usage.Add(u)
		if err != nil {
			return event.ContextCompactedData{}, nil, usage, err
		}
		sum, start = next, end
	}
	changes, err := e.cfg.Store.FileChanges(ctx, sess.ID)
	if err != nil {
		return event.ContextCompactedData{}, nil, usage, fmt.Errorf("read the session's file changes: %w", err)
	}
	todos, err := e.tasks(ctx, sess.ID)
	if err != nil {
		return event.ContextCompactedData{}, nil, usage, err
	}
	turns := 0
	for _, m := range hist[:upto] {
		if m.Role == llm.RoleUser {
			turns++
		}
	}
	note, files := renderNote(upto, turns, sum, sess.Workdir, changes, todos)
	after := plan.fixed + estimate(llm.Message{Content: note})
	for _, m := range hist[upto:] {
		after += estimate(m)
	}
	d := event.ContextCompactedData{
		ID: NewID("cmp"), By: plan.by, Upto: upto, Turns: turns, Summary: sum, Note: note,
		Files: files, Tasks: len(todos), TokensBefore: plan.before, TokensAfter: after, Window: plan.window.Tokens,
	}
	return d, &compaction{id: d.ID, upto: upto, note: note, sum: sum}, usage, nil
}

// tasks returns the session's task list: the latest todo.updated's.
func (e *Engine) tasks(ctx context.Context, sessionID string) ([]event.Todo, error) {
	evs, err := e.cfg.Store.EventsOfType(ctx, sessionID, event.TypeTodoUpdated)
	if err != nil {
		return nil, fmt.Errorf("read the session's task list: %w", err)
	}
	if len(evs) == 0 {
		return nil, nil
	}
	var d event.TodoUpdatedData
	if err := json.Unmarshal(evs[len(evs)-1].Data, &d); err != nil {
		return nil, fmt.Errorf("read the session's task list: %w", err)
	}
	return d.Todos, nil
}

// Caps of one message in a summary request's transcript, in bytes.
const (
	lineText   = 4000 // a user's or the assistant's text
	lineArgs   = 400  // a call's arguments
	lineResult = 1500 // a tool result, head and tail
)

// transcriptLine renders history message i for a summary request, with
// its reference, each part bounded so that one message never takes more
// than a few thousand bytes.
func transcriptLine(hist []llm.Message, i int, workdir string) string {
	m := hist[i]
	var b strings.Builder
	switch m.Role {
	case llm.RoleTool:
		status := ""
		if m.IsError {
			status = " (error)"
		}
		fmt.Fprintf(&b, "[%s result of %s%s]\n", Ref(i), m.ToolName, status)
		b.WriteString(headTail(m.Content, lineResult))
	default:
		fmt.Fprintf(&b, "[%s %s]\n", Ref(i), m.Role)
		t, _ := tools.Head(m.Content, tools.Limits{Bytes: lineText})
		b.WriteString(t)
		if len(t) < len(m.Content) {
			fmt.Fprintf(&b, "\n[… %d bytes more]", len(m.Content)-len(t))
		}
		for _, c := range m.ToolCalls {
			a, _ := tools.Head(c.Arguments, tools.Limits{Bytes: lineArgs})
			if len(a) < len(c.Arguments) {
				a += fmt.Sprintf(" [… %d bytes more]", len(c.Arguments)-len(a))
			}
			fmt.Fprintf(&b, "\ncall %s %s", c.Name, a)
		}
	}
	b.WriteString("\n\n")
	return strings.ReplaceAll(b.String(), workdir+string(filepath.Separator), "")
}

// headTail is s, or its start and end with what was left out in between
// named, within about n bytes.
func headTail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	head, _ := tools.Head(s, tools.Limits{Bytes: n * 2 / 3})
	tail, _ := tools.Tail(s[len(head):], tools.Limits{Bytes: n / 3})
	return fmt.Sprintf("%s\n[… %d bytes left out …]\n%s", head, len(s)-len(head)-len(tail), tail)
}

// summarise asks the model to merge the summary so far with the messages
// of transcript (history messages start to end, 0-based, end excluded).
// A failed request, a refusal, an empty answer or one without the summary's
// sections is an error; a summary longer than maxTokens is cut.
func summarise(ctx context.Context, model Model, name, sum, transcript string, start, end, maxTokens int) (string, llm.Usage, error) {
	var u strings.Builder
	if sum != "" {
		u.WriteString("The summary so far, of the messages before r" + fmt.Sprint(start+1) + ":\n\n" + sum + "\n\n")
	}
	fmt.Fprintf(&u, "The messages to summarise, %s to %s:\n\n%s", Ref(start), Ref(end-1), transcript)
	req := llm.Request{Model: name, Messages: []llm.Message{
		{Role: llm.RoleSystem, Content: llm.CompactPrompt},
		{Role: llm.RoleUser, Content: u.String()},
	}}
	var text strings.Builder
	var usage llm.Usage
	finish := ""
	for d, err := range model.Stream(ctx, req) {
		if err != nil {
			return "", usage, fmt.Errorf("the model's summary request failed: %w", err)
		}
		switch d.Kind {
		case llm.DeltaText:
			text.WriteString(d.Text)
		case llm.DeltaUsage:
			usage = d.Usage
		case llm.DeltaDone:
			finish = cmp.Or(d.FinishReason, "stop")
		}
	}
	out := strings.TrimSpace(text.String())
	switch {
	case finish == "":
		return "", usage, errors.New("the model's summary stream ended before it was complete")
	case finish == "content_filter":
		return "", usage, errors.New("the model refused to summarise (its server's content filter stopped the answer)")
	case out == "":
		return "", usage, errors.New("the model's summary was empty")
	case !strings.Contains(strings.ToLower(out), "## goal"):
		return "", usage, fmt.Errorf("the model did not write a summary (no Goal section); it answered: %q", prefix(out, 200))
	}
	if limit := maxTokens * 4; len(out) > limit {
		out = prefix(out, limit) + fmt.Sprintf("\n[summary cut to %d bytes]", limit)
	}
	return out, usage, nil
}

// renderNote is the text sent in place of messages r1 to r{upto}: what
// they are, the model's summary, then the session's file changes and task
// list as Foya's records hold them. It returns how many paths it lists.
func renderNote(upto, turns int, sum, workdir string, changes []llm.FileChange, todos []event.Todo) (string, int) {
	var b strings.Builder
	fmt.Fprintf(&b, "[Foya compacted the earlier conversation to save context: messages r1 to r%d (%d user turns) are summarised here. "+
		"They stay stored: read any earlier tool result in full with history_read_tool_result and its reference (r1 to r%d).]\n\n", upto, turns, upto)
	b.WriteString(sum)
	b.WriteString("\n\n## File changes (exact, from Foya's records)\n")
	type file struct {
		path           string
		changes        int
		first, last    llm.FileChange
		added, removed int
	}
	var files []*file
	byPath := map[string]*file{}
	for _, c := range changes {
		f := byPath[c.Path]
		if f == nil {
			f = &file{path: c.Path, first: c}
			byPath[c.Path] = f
			files = append(files, f)
		}
		f.changes++
		f.last = c
		f.added += c.Added
		f.removed += c.Removed
	}
	if len(files) == 0 {
		b.WriteString("None.\n")
	}
	for _, f := range files {
		rel := f.path
		if r, err := filepath.Rel(workdir, f.path); err == nil && !strings.HasPrefix(r, "..") {
			rel = filepath.ToSlash(r)
		}
		state := "changed"
		switch {
		case !f.last.ExistsAfter:
			state = "deleted"
		case !f.first.ExistedBefore:
			state = "created"
		}
		times := "1 change"
		if f.changes > 1 {
			times = fmt.Sprintf("%d changes", f.changes)
		}
		fmt.Fprintf(&b, "- %s: %s (%s, +%d -%d lines)", rel, state, times, f.added, f.removed)
		if f.last.ExistsAfter && len(f.last.SHAAfter) >= 12 {
			fmt.Fprintf(&b, ", now sha256 %s", f.last.SHAAfter[:12])
		}
		b.WriteString("\n")
	}
	b.WriteString("\n## Task list (exact, from Foya's records)\n")
	if len(todos) == 0 {
		b.WriteString("None.\n")
	}
	for _, t := range todos {
		mark := "[ ]"
		switch t.Status {
		case event.TodoCompleted:
			mark = "[x]"
		case event.TodoInProgress:
			mark = "[~]"
		}
		fmt.Fprintf(&b, "- %s %s\n", mark, t.Content)
	}
	return b.String(), len(files)
}

// CompactRequest asks for a compaction a person wants now (Compact).
type CompactRequest struct {
	Session llm.Session
	Model   Model
	// Window sizes what stays verbatim; unknown, a quarter of the
	// history stays.
	Window Window
	// CompactAt is the share of the window compaction works towards; 0
	// means DefaultCompactAt.
	CompactAt float64
}

// Compact compacts a session's history now, outside a run: the session
// must have no run going (it is held meanwhile). The compaction is stored
// and published (context.compacted), and the session's next request is
// compiled with it. A summary that fails is recorded
// (context.compact_failed) and returned; nothing else changes.
func (e *Engine) Compact(ctx context.Context, req CompactRequest) (event.ContextCompactedData, error) {
	if req.Model == nil {
		return event.ContextCompactedData{}, errors.New("no model given")
	}
	release, err := e.Hold(req.Session.ID, "its context is being compacted")
	if err != nil {
		return event.ContextCompactedData{}, err
	}
	defer release()
	stored, err := e.cfg.Store.Messages(ctx, req.Session.ID)
	if err != nil {
		return event.ContextCompactedData{}, fmt.Errorf("load history: %w", err)
	}
	hist := make([]llm.Message, 0, len(stored))
	for _, m := range stored {
		hist = append(hist, m.Message)
	}
	prev, err := activeCompaction(ctx, e.cfg.Store, req.Session.ID, hist)
	if err != nil {
		return event.ContextCompactedData{}, err
	}
	from := 0
	if prev != nil {
		from = prev.upto
	}
	if len(hist)-from < 2 {
		return event.ContextCompactedData{}, errors.New("there is nothing to compact yet: the conversation since the last compaction is too short")
	}
	instructions, info := loadInstructions(req.Session.Workdir)
	system := systemText(req.Session.Workdir, instructions, info.File)
	at := req.CompactAt
	if at < MinCompactAt || at > MaxCompactAt {
		at = DefaultCompactAt
	}
	fixed := estimate(llm.Message{Role: llm.RoleSystem, Content: system})
	before := fixed
	if prev != nil {
		before += estimate(llm.Message{Content: prev.note})
	}
	for _, m := range hist[from:] {
		before += estimate(m)
	}
	plan := compactPlan{by: event.CompactUser, fixed: fixed, window: req.Window, at: at, before: before}
	d, _, _, err := e.compactHistory(ctx, req.Session, req.Model, hist, prev, plan)
	if err != nil {
		if ctx.Err() != nil {
			return d, ctx.Err()
		}
		failed := event.ContextCompactFailed(event.ContextCompactFailedData{By: event.CompactUser, Error: err.Error()})
		if _, cerr := e.Commit(ctx, req.Session.ID, llm.Commit{Events: []llm.Event{failed}}); cerr != nil {
			return d, cerr
		}
		return d, fmt.Errorf("compacting failed, nothing changed: %w", err)
	}
	_, err = e.Commit(ctx, req.Session.ID, llm.Commit{Events: []llm.Event{event.ContextCompacted(d)}})
	return d, err
}

// ErrNotCompacted is returned by Uncompact for a compaction that is not
// the one in force.
var ErrNotCompacted = errors.New("not the compaction in force")

// Uncompact undoes the session's compaction in force, id: the next
// request is compiled without it (with the one before it, if any). The
// session must have no run going.
func (e *Engine) Uncompact(ctx context.Context, sessionID, id string) error {
	release, err := e.Hold(sessionID, "a compaction is being undone")
	if err != nil {
		return err
	}
	defer release()
	stored, err := e.cfg.Store.Messages(ctx, sessionID)
	if err != nil {
		return fmt.Errorf("load history: %w", err)
	}
	hist := make([]llm.Message, 0, len(stored))
	for _, m := range stored {
		hist = append(hist, m.Message)
	}
	c, err := activeCompaction(ctx, e.cfg.Store, sessionID, hist)
	if err != nil {
		return err
	}
	if c == nil || c.id != id {
		return fmt.Errorf("compaction %q: %w (only the latest compaction not undone can be undone)", id, ErrNotCompacted)
	}
	_, err = e.Commit(ctx, sessionID, llm.Commit{Events: []llm.Event{event.ContextUncompacted(event.ContextUncompactedData{ID: id})}})
	return err
}

// sizeBudget sizes the projection's budget (spec O5) to a known window:
// large tool results are projected well before the history would reach
// the share at which it is compacted, so that compaction, which costs a
// model request and loses detail, comes only when projecting is not
// enough.
func (r *runner) sizeBudget() {
	cfg := r.e.cfg.Context.withDefaults()
	if w := r.req.Window; w.Known && w.Tokens > 0 {
		cfg.Budget = max(min(cfg.Budget, int(0.6*r.compactAt()*float64(w.Tokens))), 1)
	}
	r.ctxCfg = cfg
}
