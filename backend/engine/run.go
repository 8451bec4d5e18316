package engine

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
	"unsafe"

	"foya/backend/event"
	"foya/backend/hooks"
	"foya/backend/llm"
	"foya/backend/tools"
)

// runner drives one run. Its fields are touched by the run's goroutine
// only, except where noted.
type runner struct {
	e      *Engine
	req    RunRequest
	sess   llm.Session
	run    llm.Run
	cancel context.CancelFunc
	rec    *recorder
	hist   []llm.Message
	images map[string][]byte // artifact bytes read back for requests (spec I3)
	proj   *projection
	enc    *llm.Encodings // the provider's encodings of proj's messages, kept across steps
	system string         // the turn's system prompt, the same bytes at every step

	mu     sync.Mutex      // guards active, images and inbox
	active map[string]bool // deferred tools activated in this turn (spec E2, K3)
	inbox  inbox           // messages sent to the run while it goes (Steer)

	hooks hooks.Set // the turn's hooks (loadHooks)

	child  *child // set for a sub-agent's run
	answer string // the text of the run's last model answer

	mistakes map[string]int // kinds of invalid arguments seen in this run (argsError)
	fails    map[string]int // failing calls by tool and arguments, while they keep failing
	failStep map[string]int // the step that last counted each of fails
	looping  string         // why the run stops: the model repeats a failing call

	ctxCfg     ContextConfig // the projection's, sized to the window (sizeBudget)
	compact    *compaction   // the compaction in force, if any
	compactErr string        // why a compaction in this run failed, if one did
	// compactShort: the last compaction left the request past
	// context.compactAt (a large note, system prompt or tools): the run
	// compacts again only once a request no longer fits the window, not
	// at every step (each compaction is a request to the model).
	compactShort bool
}

// stepOutcome says how a step ended.
type stepOutcome int

const (
	stepContinue stepOutcome = iota // tool results were fed back: step again
	stepDone                        // the model answered without calls
)

// runError ends a run as failed with a message for the user.
type runError struct {
	msg     string
	storage bool // the run stopped because it could not be stored (unstored)
}

func (e *runError) Error() string { return e.msg }

// unstored is the error that ends a run when something it did could not be
// stored: nothing more runs, so no call's effect goes unrecorded, and what
// was stored before stays (each commit is stored whole or not at all).
func unstored(err error) error {
	return &runError{msg: fmt.Sprintf("Foya could not store the run's progress, so the run stopped: %v. "+
		"What was stored before is kept; check the free disk space and the database (foya doctor)", err), storage: true}
}

// stopIfUnstored returns the error that ends the run when a commit that
// had no caller to return its error to (a progress event, an activation,
// coalesced text) could not be stored.
func (r *runner) stopIfUnstored() error {
	if err := r.rec.failed(); err != nil {
		return unstored(err)
	}
	return nil
}

func (r *runner) loop(ctx context.Context) (llm.Run, error) {
	if r.child == nil {
		// A sub-agent starts with a history of its own, empty.
		stored, err := r.e.cfg.Store.Messages(ctx, r.sess.ID)
		if err != nil {
			return llm.Run{}, fmt.Errorf("load history: %w", err)
		}
		for _, m := range stored {
			r.hist = append(r.hist, m.Message)
		}
	}
	// Project instructions are read at each turn's start, once: the
	// system prompt stays byte-stable for the whole turn (spec R2's
	// reason: prompt caches), whatever the turn does to the file.
	instructions, instrInfo := loadInstructions(r.sess.Workdir)
	r.system = systemText(r.sess.Workdir, instructions, instrInfo.File)
	if r.child == nil {
		c, err := activeCompaction(ctx, r.e.cfg.Store, r.sess.ID, r.hist)
		if err != nil {
			return llm.Run{}, fmt.Errorf("load the session's compaction: %w", err)
		}
		r.compact = c
	}
	r.sizeBudget()
	r.resetProjection()
	user, artifacts := r.userMessage()
	r.hist = append(r.hist, user)
	start := event.RunStartData{
		Prompt: r.req.Prompt, Workdir: r.sess.Workdir, Model: r.sess.Model,
		Provider: r.sess.Provider, ApprovalMode: r.sess.ApprovalMode, Instructions: instrInfo,
		Resources: r.req.Resources, Images: r.req.Pasted,
	}
	if r.child != nil {
		start.Description, start.ParentRunID = r.child.description, r.run.ParentRunID
	} else if !r.sess.TitleByUser {
		start.Title = r.req.Title
	}
	err := r.rec.commit(ctx, llm.Commit{
		Run:       &r.run,
		Title:     start.Title,
		Artifacts: artifacts,
		Messages:  []llm.StoredMessage{{SessionID: r.sess.ID, RunID: r.run.ID, Message: user}},
		Events:    []llm.Event{event.RunStart(start)},
	})
	if err != nil {
		return llm.Run{}, fmt.Errorf("start run: %w", err)
	}
	if r.req.Started != nil {
		r.req.Started(r.run.ID)
	}

	var end error
	if err := r.loadHooks(ctx); err != nil {
		end = cmp.Or(ctx.Err(), unstored(err))
	}
	for end == nil {
		if ctx.Err() != nil {
			end = ctx.Err()
			break
		}
		if r.run.Steps >= r.req.MaxSteps && r.child != nil {
			end = &runError{msg: fmt.Sprintf("stopped after %d model steps, the limit of this sub-agent (the task call's max_steps)", r.req.MaxSteps)}
			break
		}
		if r.run.Steps >= r.req.MaxSteps {
			end = &runError{msg: fmt.Sprintf("stopped after %d model steps, the limit for one turn: send another message to continue, "+
				"or raise the limit (the run.max_steps setting)", r.req.MaxSteps)}
			break
		}
		if err := r.stopIfUnstored(); err != nil {
			end = err
			break
		}
		if err := r.takeSteers(ctx, r.run.Steps+1); err != nil {
			end = cmp.Or(ctx.Err(), unstored(err))
			break
		}
		r.run.Steps++
		out, err := r.step(ctx, r.run.Steps)
		if err != nil {
			end = err
			break
		}
		if r.looping != "" {
			end = &runError{msg: r.looping}
			break
		}
		// A message sent while the model answered gets one more step,
		// within the turn's limit; past it, it goes back to its sender.
		if out == stepDone && (r.run.Steps >= r.req.MaxSteps || !r.steerWaiting()) {
			break
		}
	}
	r.closeInbox()
	return r.finish(ctx, end)
}

// userMessage is the turn's user message: the prompt, the attached text,
// and the attached images as parts, with the artifacts that keep them. An
// image that cannot be decoded or is too large is named in the text.
func (r *runner) userMessage() (llm.Message, []llm.Artifact) {
	user := llm.Message{Role: llm.RoleUser, Content: r.req.Prompt}
	if r.req.Attached != "" {
		user.Content += "\n\n" + r.e.cfg.Mask(r.req.Attached)
	}
	for _, img := range r.req.Pasted {
		user.Parts = append(user.Parts, llm.Part{Type: llm.PartImage, ArtifactID: img.ArtifactID, MIME: img.MIME})
	}
	var arts []llm.Artifact
	for _, img := range r.req.AttachedImages {
		w, h, err := checkImage(img.Data)
		if err != nil {
			user.Content += "\n[an attached image (" + img.MIME + ") was left out: " + err.Error() + "]"
			continue
		}
		a := llm.Artifact{ID: NewID("art"), SessionID: r.sess.ID, MIME: img.MIME, Width: w, Height: h, Data: img.Data}
		arts = append(arts, a)
		user.Parts = append(user.Parts, llm.Part{Type: llm.PartImage, ArtifactID: a.ID, MIME: img.MIME})
	}
	return user, arts
}

// finish records the run's end.
func (r *runner) finish(ctx context.Context, end error) (llm.Run, error) {
	r.rec.close(ctx)
	r.run.EndedAt = time.Now()
	switch {
	case end == nil:
		r.run.Status = llm.RunCompleted
	case errors.Is(end, context.Canceled) || errors.Is(end, context.DeadlineExceeded):
		r.run.Status = llm.RunCancelled
		r.run.Error = "cancelled"
		if errors.Is(end, context.DeadlineExceeded) {
			r.run.Error = "cancelled: the run's deadline passed"
		}
	default:
		r.run.Status = llm.RunFailed
		r.run.Error = end.Error()
	}
	var re *runError
	if err := r.rec.failed(); err != nil && !(errors.As(end, &re) && re.storage) {
		// The first storage error says why the run stopped, whatever
		// else went wrong after it.
		r.run.Status, r.run.Error = llm.RunFailed, unstored(err).Error()
	}
	if r.rec.failed() == nil {
		// The turn's end is the hooks' to see: they run even when the
		// run was cancelled, each within its own timeout. A hook's event
		// that cannot be stored is kept by the recorder, and the run's
		// end says so below.
		if err := r.turnHooks(context.WithoutCancel(ctx)); err != nil && r.rec.failed() == nil {
			r.run.Status, r.run.Error = llm.RunFailed, unstored(err).Error()
		}
		if err := r.rec.failed(); err != nil {
			r.run.Status, r.run.Error = llm.RunFailed, unstored(err).Error()
		}
	}
	err := r.rec.commit(ctx, llm.Commit{
		Run: &r.run,
		Events: []llm.Event{event.RunEnd(event.RunEndData{
			Status: r.run.Status, Error: r.run.Error, Steps: r.run.Steps, Usage: r.run.Usage,
		})},
	})
	if err != nil {
		return r.run, fmt.Errorf("record the end of run %s: %w", r.run.ID, err)
	}
	return r.run, nil
}

// filter is the step's tool filter (spec R3). refs is how many projected
// results the step's request refers to.
func (r *runner) filter(refs int) tools.Filter {
	r.mu.Lock()
	active := make(map[string]bool, len(r.active))
	for k, v := range r.active {
		active[k] = v
	}
	r.mu.Unlock()
	f := tools.Filter{Allow: r.sess.Tools, ReadOnly: r.req.ReadOnly, Active: active}
	if r.child != nil {
		f.Deny = r.child.deny
	}
	f.State.Deferred = len(r.e.cfg.Tools.Candidates(f))
	f.State.Refs = refs
	f.State.Workdir = r.sess.Workdir
	return f
}

// Activate implements tools.Activator. Activation takes effect at the next
// step, because each step snapshots its visible tools when it starts.
func (r *runner) Activate(names ...string) {
	r.mu.Lock()
	var added []string
	for _, n := range names {
		if !r.active[n] {
			r.active[n] = true
			added = append(added, n)
		}
	}
	r.mu.Unlock()
	if len(added) > 0 {
		// An activation that cannot be stored fails the run: the recorder
		// keeps the error, and the run stops before its next call or step.
		_ = r.rec.commit(context.Background(), llm.Commit{Events: []llm.Event{event.ToolsActivated(event.ToolsActivatedData{Names: added})}})
	}
}

// Candidates implements tools.SearchActivator.
func (r *runner) Candidates() []tools.Spec {
	return r.e.cfg.Tools.Candidates(r.filter(0))
}

// request makes the step's provider request of the compiled history (the
// projection's view: the turn's system prompt, then the projected history,
// spec O5) and the visible tools, with images read back from the artifact
// store for models that take them (spec I3); for models that do not, the
// projection's shape (noImages) has put a note in their place (spec I4).
// The projection and the provider's kept encodings (r.enc) make its cost
// that of the new messages, not of the history.
func (r *runner) request(ctx context.Context, msgs []llm.Message, keys []uint64, visible []string) (llm.Request, error) {
	req := llm.Request{Model: r.sess.Model, Messages: msgs, Tools: r.e.cfg.Tools.Schemas(visible), Keys: keys, Encodings: r.enc}
	for _, i := range r.proj.parts {
		for _, p := range msgs[i].Parts {
			if p.Type != llm.PartImage || p.ArtifactID == "" {
				continue
			}
			data, err := r.image(ctx, p.ArtifactID)
			if err != nil {
				return req, err
			}
			if req.Images == nil {
				req.Images = map[string][]byte{}
			}
			req.Images[p.ArtifactID] = data
		}
	}
	return req, nil
}

// noImages is the form of a message with images sent to a model that takes
// no image input: a note for each image (spec I4).
func noImages(m llm.Message) llm.Message {
	if len(m.Parts) == 0 {
		return m
	}
	var notes []string
	for _, p := range m.Parts {
		notes = append(notes, fmt.Sprintf("[image %s (%s) left out: this model takes no image input; the user can see it in Foya]", p.ArtifactID, p.MIME))
	}
	m.Content = strings.TrimSpace(m.Content + "\n" + strings.Join(notes, "\n"))
	m.Parts = nil
	return m
}

// image returns an artifact's bytes as sent to the model (scaled down when
// oversized), reading the store once per run.
func (r *runner) image(ctx context.Context, id string) ([]byte, error) {
	r.mu.Lock()
	data, ok := r.images[id]
	r.mu.Unlock()
	if ok {
		return data, nil
	}
	if err := r.rec.storeHeld(ctx); err != nil {
		return nil, err
	}
	a, err := r.e.cfg.Store.Artifact(ctx, r.sess.ID, id)
	if err != nil {
		return nil, fmt.Errorf("read image %s back: %w", id, err)
	}
	data = fitImage(a.Data)
	r.mu.Lock()
	r.images[id] = data
	r.mu.Unlock()
	return data, nil
}

// ArgsPreview is how much of a call's arguments clients get as text while
// they stream (tool.update argsDelta), in total per call; after that they
// get only the growing byte count (argsBytes). A file's content streamed in
// a write call would otherwise be stored in the event log once more.
const ArgsPreview = 4 << 10

// A byte count is announced when the arguments grew by argsStep since the
// last one, or after argsInterval with anything new, so a long stream gives
// at most one update per MiB or two a second, never one per chunk.
const (
	argsStep     = 1 << 20
	argsInterval = 500 * time.Millisecond
)

// streamedCall is a tool call as it arrives from the stream.
type streamedCall struct {
	rec    llm.CallRecord
	pieces []string // the arguments as they arrived, joined once at the end
	size   int      // their length in bytes
	shown  int      // bytes sent as argsDelta
	told   int      // the argsBytes last sent
	toldAt time.Time
}

// grow appends a piece of the call's arguments and queues the tool.update
// clients get for it, if any (spec L1). Pieces are kept as they came, not
// appended to one growing buffer, so the arguments are copied once, when
// the stream ends.
func (c *streamedCall) grow(ctx context.Context, rec *recorder, step int, piece string) {
	if piece != "" {
		c.pieces = append(c.pieces, piece)
		c.size += len(piece)
	}
	var preview string
	if c.shown < ArgsPreview {
		preview = prefix(piece, ArgsPreview-c.shown)
		c.shown += len(preview)
		if preview == "" && piece != "" {
			c.shown = ArgsPreview // a character longer than what is left
		}
	}
	n := c.size
	if preview == "" && n-c.told < argsStep && (n == c.told || time.Since(c.toldAt) < argsInterval) {
		return
	}
	c.told, c.toldAt = n, time.Now()
	rec.args(ctx, step, c.rec.ID, preview, n)
}

// prefix returns the longest start of s of at most n bytes that ends at a
// character boundary.
func prefix(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// finalArgs returns the closing tool.update of a call whose last byte count
// was not its total, so clients end with the exact size.
func (c *streamedCall) finalArgs() []llm.Event {
	if c.told == c.size {
		return nil
	}
	c.told = c.size
	return []llm.Event{argsEvent(c.rec.Step, c.rec.ID, "", c.told)}
}

// join returns the arguments and lets the pieces go.
func (c *streamedCall) join() string {
	if len(c.pieces) == 1 {
		return c.pieces[0]
	}
	var b strings.Builder
	b.Grow(c.size)
	for _, p := range c.pieces {
		b.WriteString(p)
	}
	c.pieces = nil
	return b.String()
}

// argsEvent is a tool.update while a call's arguments stream.
func argsEvent(step int, id, preview string, total int) llm.Event {
	return event.ToolUpdate(event.ToolUpdateData{Step: step, ID: id, ArgsBytes: total, ArgsDelta: preview})
}

// storeArgs sets the call's arguments, and, for large ones, the reference
// under which the store keeps them once; it returns the blobs to store.
func (c *streamedCall) storeArgs() [][]byte {
	c.rec.Arguments = c.join()
	ref, blobs := llm.SplitArgs(c.rec.Arguments)
	c.rec.ArgsRef = ref
	return blobs
}

// compile makes the step's request: the compiled history and the tools
// visible at this step, with the filter they were chosen by.
func (r *runner) compile(ctx context.Context) (llm.Request, tools.Filter, []string, error) {
	msgs, keys, refs := r.proj.request(r.hist[r.proj.base:])
	if r.proj.base > 0 {
		refs++ // the compacted messages' results are readable too
	}
	f := r.filter(refs)
	visible := r.e.cfg.Tools.Visible(f)
	req, err := r.request(ctx, msgs, keys, visible)
	return req, f, visible, err
}

func (r *runner) step(ctx context.Context, n int) (stepOutcome, error) {
	req, f, visible, err := r.compile(ctx)
	if err != nil {
		return 0, err
	}
	if err := r.tooSmall(req); err != nil {
		return 0, err
	}
	if r.compactDue(req) {
		c := r.compact
		if err := r.autoCompact(ctx, req); err != nil {
			return 0, err
		}
		if r.compact != c {
			if req, f, visible, err = r.compile(ctx); err != nil {
				return 0, err
			}
			r.compactShort = r.compactDue(req)
		}
	}
	if err := r.rec.commit(ctx, llm.Commit{Events: []llm.Event{event.StepStart(event.StepStartData{Step: n, Tools: visible})}}); err != nil {
		return 0, err
	}

	var text, reasoning strings.Builder
	var calls []*streamedCall
	byIndex := map[int]*streamedCall{}
	var usage llm.Usage
	finish := ""
	done := false
	var streamErr error
	for d, err := range r.req.Model.Stream(ctx, req) {
		if err != nil {
			streamErr = err
			break
		}
		switch d.Kind {
		case llm.DeltaText:
			text.WriteString(d.Text)
			r.rec.delta(ctx, event.TypeTextDelta, n, "", d.Text)
		case llm.DeltaReasoning:
			reasoning.WriteString(d.Text)
			r.rec.delta(ctx, event.TypeReasoningDelta, n, "", d.Text)
		case llm.DeltaToolCall:
			c, ok := byIndex[d.Index]
			if !ok {
				id := d.ID
				if id == "" {
					id = NewID("call")
				}
				// The provider's Index orders the calls as the model did
				// (spec P4); they may open in another order.
				c = &streamedCall{rec: llm.CallRecord{
					SessionID: r.sess.ID, RunID: r.run.ID, ID: id, Step: n, Index: d.Index,
					Name: d.Name, State: llm.CallQueued,
				}}
				byIndex[d.Index] = c
				calls = append(calls, c)
				// spec L1: clients learn of the call as soon as its name is known.
				if err := r.rec.commit(ctx, llm.Commit{
					Calls:  []llm.CallRecord{c.rec},
					Events: []llm.Event{event.ToolBegin(event.ToolBeginData{Step: n, Index: c.rec.Index, ID: c.rec.ID, Name: c.rec.Name})},
				}); err != nil {
					return 0, err
				}
			} else if c.rec.Name == "" && d.Name != "" {
				c.rec.Name = d.Name
			}
			c.grow(ctx, r.rec, n, d.Args)
		case llm.DeltaWithdraw:
			// A call read from the text, taken back because the server sent
			// native calls (tool-call mode auto): it ends here, never run.
			c, ok := byIndex[d.Index]
			if !ok {
				continue
			}
			delete(byIndex, d.Index)
			calls = slices.DeleteFunc(calls, func(x *streamedCall) bool { return x == c })
			wc := llm.Commit{Events: c.finalArgs(), Blobs: c.storeArgs()}
			c.rec.State, c.rec.EndedAt = llm.CallCancelled, time.Now()
			c.rec.Result = &llm.ToolResult{Text: withdrawnCall, IsError: true}
			wc.Calls = []llm.CallRecord{c.rec}
			wc.Events = append(wc.Events, endEvent(c.rec, 0))
			if err := r.rec.commit(ctx, wc); err != nil {
				return 0, err
			}
		case llm.DeltaUsage:
			usage = d.Usage
		case llm.DeltaDone:
			finish = d.FinishReason
			done = true
		}
	}
	if streamErr == nil && !done {
		streamErr = errors.New("the model's stream ended before it was complete")
	}
	if streamErr == nil {
		// A server that dropped the start of the conversation answered
		// something else than what was asked: nothing of it runs.
		if cut := r.silentCut(req, usage); cut != "" {
			streamErr = errors.New(cut)
		}
	}
	r.run.Usage = r.run.Usage.Add(usage)

	if streamErr != nil {
		// spec L2: nothing of an incomplete stream runs.
		state, why := llm.CallError, "not run: the model's answer was cut off before this call was complete"
		var end error = &runError{msg: "model: " + streamErr.Error()}
		if ctx.Err() != nil {
			state, why, end = llm.CallCancelled, "not run: the run was cancelled", ctx.Err()
		}
		c := llm.Commit{}
		for _, sc := range calls {
			c.Events = append(c.Events, sc.finalArgs()...)
			c.Blobs = append(c.Blobs, sc.storeArgs()...)
			sc.rec.State, sc.rec.EndedAt = state, time.Now()
			sc.rec.Result = &llm.ToolResult{Text: why, IsError: true}
			c.Calls = append(c.Calls, sc.rec)
			c.Events = append(c.Events, endEvent(sc.rec, 0))
		}
		if ctx.Err() != nil && text.Len() > 0 {
			// Keep what the user saw of a cancelled answer, without its calls.
			m := llm.Message{Role: llm.RoleAssistant, Content: text.String()}
			r.hist = append(r.hist, m)
			c.Messages = append(c.Messages, llm.StoredMessage{SessionID: r.sess.ID, RunID: r.run.ID, Message: m})
		}
		c.Events = append(c.Events, event.StepEnd(event.StepEndData{Step: n, Error: streamErr.Error(), Usage: usage}))
		if err := r.rec.commit(ctx, c); err != nil {
			return 0, err
		}
		return 0, end
	}

	// The stream is complete: store the assistant's message with its calls,
	// in the model's order (spec P4).
	slices.SortStableFunc(calls, func(a, b *streamedCall) int { return cmp.Compare(a.rec.Index, b.rec.Index) })
	asst := llm.Message{Role: llm.RoleAssistant, Content: text.String(), Reasoning: reasoning.String()}
	c := llm.Commit{}
	for _, sc := range calls {
		c.Events = append(c.Events, sc.finalArgs()...)
		// The arguments are stored once: a large call's row and its
		// message refer to the same blobs.
		c.Blobs = append(c.Blobs, sc.storeArgs()...)
		sent, ref := sc.rec.Arguments, sc.rec.ArgsRef
		// A reference means the arguments were split as valid JSON.
		if ref == nil && strings.TrimSpace(sent) != "" && !json.Valid([]byte(sent)) {
			if argsCut(sent) {
				// Servers such as vLLM end with "tool_calls" when the
				// token limit cut a call's arguments off; say what
				// really happened.
				finish = "length"
			}
			// The call record keeps the bytes that arrived; the history
			// the model reads back gets an empty object instead, because
			// servers that parse it (llama.cpp with --jinja) answer 500
			// to arguments that are not JSON. The call's result says
			// what arrived.
			sent = "{}"
		}
		asst.ToolCalls = append(asst.ToolCalls, llm.ToolCall{ID: sc.rec.ID, Name: sc.rec.Name, Arguments: sent, ArgsRef: ref})
		c.Calls = append(c.Calls, sc.rec)
	}
	r.hist = append(r.hist, asst)
	c.Messages = []llm.StoredMessage{{SessionID: r.sess.ID, RunID: r.run.ID, Message: asst}}
	c.Run = &r.run
	r.answer = asst.Content
	if len(calls) == 0 {
		none := 0
		c.Events = []llm.Event{event.StepEnd(event.StepEndData{Step: n, FinishReason: finish, Usage: usage, ToolCalls: &none})}
		if err := r.rec.commit(ctx, c); err != nil {
			return 0, err
		}
		return stepDone, nil
	}
	// Stored with the batch's first commit: only the calls' checks come
	// between, and nothing of them is seen before it.
	if err := r.rec.hold(ctx, c); err != nil {
		return 0, err
	}

	recs := make([]llm.CallRecord, len(calls))
	for i, sc := range calls {
		recs[i] = sc.rec
	}
	results, batchErr := r.batch(ctx, n, f, visible, recs)

	// Feed results back in the model's call order (spec P4), one Tool
	// Message per call, even when the batch ended early, so the history
	// stays a valid conversation.
	c = llm.Commit{}
	for i, rec := range recs {
		res := results[i]
		if res == nil {
			why := "not run: the run was cancelled"
			if batchErr != nil && ctx.Err() == nil {
				why = "not run: the run failed: " + batchErr.Error()
			}
			res = &llm.ToolResult{Text: why, IsError: true}
			rec.State, rec.Result, rec.EndedAt = llm.CallCancelled, res, time.Now()
			c.Calls = append(c.Calls, rec)
			c.Events = append(c.Events, endEvent(rec, 0))
		}
		if batchErr == nil && ctx.Err() == nil {
			r.noteRepeat(rec, res)
		}
		m := toolMessage(rec, res)
		r.hist = append(r.hist, m)
		c.Messages = append(c.Messages, llm.StoredMessage{SessionID: r.sess.ID, RunID: r.run.ID, Message: m})
	}
	made := len(recs)
	c.Events = append(c.Events, event.StepEnd(event.StepEndData{Step: n, FinishReason: finish, Usage: usage, ToolCalls: &made}))
	if batchErr == nil && ctx.Err() == nil {
		// Stored with the next step's start, or the run's end: only the
		// next request's compilation comes between.
		if err := r.rec.hold(ctx, c); err != nil {
			return 0, err
		}
		return stepContinue, nil
	}
	if err := r.rec.commit(ctx, c); err != nil {
		if batchErr != nil {
			return 0, batchErr // why the run stopped; the recorder keeps err
		}
		return 0, err
	}
	if batchErr != nil {
		return 0, batchErr
	}
	if ctx.Err() != nil {
		return 0, ctx.Err()
	}
	return stepContinue, nil
}

// noteRepeat counts a call that failed with the same tool and arguments as
// in an earlier step; at the run's repeat limit the run stops after this
// step, with a note that says so (a model caught in a loop spends the turn
// otherwise). A step counts once for a call, however often its answer
// holds it (one answer of many calls alike is no loop), and a success of
// the same call clears its count.
func (r *runner) noteRepeat(rec llm.CallRecord, res *llm.ToolResult) {
	key := callKey(rec)
	if !res.IsError {
		delete(r.fails, key)
		delete(r.failStep, key)
		return
	}
	if r.fails == nil {
		r.fails, r.failStep = map[string]int{}, map[string]int{}
	}
	if step, seen := r.failStep[key]; seen && step == rec.Step {
		return
	}
	r.failStep[key] = rec.Step
	r.fails[key]++
	limit := r.req.RepeatLimit
	if limit <= 0 {
		limit = DefaultRepeatLimit
	}
	if n := r.fails[key]; n >= limit && r.looping == "" {
		r.looping = fmt.Sprintf("stopped: the model sent the same failing call %d times (%s with the same arguments), and it failed each time: %s. "+
			"Send another message to continue, or change the limit (the run.repeatLimit setting)", n, rec.Name, r.e.cfg.Mask(prefix(res.Text, 300)))
	}
}

// callKey names a call by its tool and a hash of its arguments: the
// arguments may be many megabytes, and a key of them would keep a copy
// for the rest of the run (maphash reads the string in place).
func callKey(rec llm.CallRecord) string {
	return fmt.Sprintf("%s\x00%d\x00%x", rec.Name, len(rec.Arguments), maphash.String(keySeed, rec.Arguments))
}

// keySeed seeds callKey's hashes (one process's runs compare only with
// themselves).
var keySeed = maphash.MakeSeed()

// toolMessage is the Tool Message fed back for a call's result (spec L4).
func toolMessage(rec llm.CallRecord, res *llm.ToolResult) llm.Message {
	text := res.Text
	if text == "" && len(res.Parts) == 0 {
		text = "(no output)"
	}
	return llm.Message{Role: llm.RoleTool, ToolCallID: rec.ID, ToolName: rec.Name, Content: text, IsError: res.IsError, Parts: res.Parts}
}

// endEvent is the tool.end event of a finished call (spec L4): status,
// result text, attachments by reference and file changes with their diffs.
// withdrawnCall is the result of a call withdrawn by the provider
// (llm.DeltaWithdraw).
const withdrawnCall = "not run: this call was read from the model's text, and the server then sent native tool calls in the same answer; " +
	"in the profile's tool-call mode auto, an answer's calls are then the native ones only (set the mode to text to run both)"

func endEvent(rec llm.CallRecord, dur time.Duration) llm.Event {
	d := event.ToolEndData{Step: rec.Step, Index: rec.Index, ID: rec.ID, Name: rec.Name, Status: rec.State}
	if res := rec.Result; res != nil {
		d.IsError, d.Text = res.IsError, res.Text
		d.Artifacts, d.FileChanges, d.DisplayDiff = res.Artifacts, res.FileChanges, res.DisplayDiff
		d.ExitCode, d.Background, d.Denials = res.ExitCode, res.Background, res.Denials
	}
	if dur > 0 {
		ms := dur.Milliseconds()
		d.DurationMs = &ms
	}
	return event.ToolEnd(d)
}

// validArgs returns the call's arguments as JSON, treating empty arguments
// as an empty object, or an error worded for the model that tells arguments
// cut off (by the model's output limit, typically) from malformed ones and
// says how many bytes arrived, so that the model can send the call again.
func validArgs(raw string) (json.RawMessage, error) {
	if strings.TrimSpace(raw) == "" {
		return json.RawMessage(`{}`), nil
	}
	// The tool reads the very bytes of the history's string, not a copy:
	// arguments can be a file's worth of text (tools.Call.Arguments is
	// read-only by contract).
	b := json.RawMessage(unsafe.Slice(unsafe.StringData(raw), len(raw)))
	if json.Valid(b) {
		return b, nil
	}
	return nil, badArgs(raw)
}

// argsCut reports whether raw, which is not valid JSON, is the beginning of
// a JSON document that ends too soon: what a stream cut by the model's token
// limit leaves.
func argsCut(raw string) bool {
	var v any
	return errors.Is(json.NewDecoder(strings.NewReader(raw)).Decode(&v), io.ErrUnexpectedEOF)
}

func contains(sorted []string, s string) bool {
	_, ok := slices.BinarySearch(sorted, s)
	return ok
}
