package engine

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"foya/backend/approval"
	"foya/backend/event"
	"foya/backend/hooks"
	"foya/backend/llm"
	"foya/backend/tools"
)

//go:embed system.md
var systemPrompt string

// Model is what the engine needs from a model provider: one streamed step.
// The request is the engine's and valid until Stream's iteration ends: its
// slices are reused and changed at later steps, so a Model that keeps any
// of it copies it.
type Model interface {
	Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Delta, error]
}

// Store is what the engine needs from persistence.
type Store interface {
	Apply(ctx context.Context, c llm.Commit) ([]llm.Event, error)
	Messages(ctx context.Context, sessionID string) ([]llm.StoredMessage, error)
	Artifact(ctx context.Context, sessionID, id string) (llm.Artifact, error)
	RunningRuns(ctx context.Context) ([]llm.Run, error)
	Calls(ctx context.Context, runID string) ([]llm.CallRecord, error)
	Session(ctx context.Context, id string) (llm.Session, error)
	Grants(ctx context.Context, sessionID string) ([]json.RawMessage, error)
	// FileChanges and Blob tell recovery what a session's files held last.
	FileChanges(ctx context.Context, sessionID string) ([]llm.FileChange, error)
	Blob(ctx context.Context, sha string) ([]byte, error)
	// EventsOfType returns a session's events of one type, in order: the
	// task list and the compactions.
	EventsOfType(ctx context.Context, sessionID, typ string) ([]llm.Event, error)
}

// ModeStore is what a Store may also offer: a session's approval mode
// alone, read at every call (Session also counts the session's runs and
// changes to review, which grow with it).
type ModeStore interface {
	ApprovalMode(ctx context.Context, sessionID string) (string, error)
}

// DefaultMaxSteps bounds the model steps of one run when neither the request
// nor the user's run.max_steps setting says otherwise. Ordinary agent work
// (fifty tool calls and an answer) must fit well inside it.
const DefaultMaxSteps = 500

// MaxStepsLimit is the largest step limit one run may be given: far beyond
// any turn a person would wait for, small enough that a typo does not read
// as "no limit".
const MaxStepsLimit = 100_000

// MaxParallel is the most parallel-safe calls of one batch that run at once
// (spec P3).
const MaxParallel = 5

// Config builds an Engine.
type Config struct {
	Store Store
	Tools *tools.Registry
	// Emit receives every event after it was stored, in seq order per
	// session. It must not block for long.
	Emit func(llm.Event)
	// Owner identifies this process in runs it drives (see Recover).
	Owner string
	// TextFlush is how long text deltas may be coalesced; 0 means 40ms.
	TextFlush time.Duration
	// Context tunes the context compiler.
	Context ContextConfig
	// Gateway holds approval requests until a person answers. Nil means no
	// one can answer (headless): what needs asking is denied with a message
	// saying how to allow it.
	Gateway *approval.Gateway
	// Rules returns the rules that apply in a workspace, read at each
	// decision: the user's own and the project's, the latter marked
	// Approved only if the user approved its exact content. Nil reads the
	// project's rules as not approved.
	Rules func(ctx context.Context, workdir string) []*approval.Rules
	// Mask, if set, replaces known secret values (the provider's key, the
	// environment's credentials) in every tool's output before it is
	// stored, published or sent to the model: result texts, display diffs,
	// file-change diffs and tool.update progress.
	Mask func(string) string
	// LockWait, if set, is called when a taker of a session's change lock
	// (LockChanges) finds it held and is about to wait: tests use it to
	// order a look after a change deterministically.
	LockWait func(sessionID string)
	// Changing, if set, is called when a call's tool takes the session's
	// change lock to change paths (tools.RunContext.LockChanges), once the
	// lock is held and before the tool changes anything: the kernel
	// records there what a live background command changed at those paths,
	// so that they are the command's, not the tool's. An error (that
	// record could not be stored) fails the tool's LockChanges: the tool
	// changes nothing.
	Changing func(ctx context.Context, sessionID, workdir string, paths []string) error
	// Hooks, if set, returns the hooks in effect in a workspace, read at
	// each turn's start (docs/hooks.md): the user's own and the project's
	// approved ones, with the files whose hooks do not run and why.
	Hooks func(ctx context.Context, workdir string) hooks.Set
	// SteerWait, if set, is called when a message sent to a run (Steer)
	// waits in the run's inbox for its next step boundary: tests use it
	// to let the run go on only once the message is there.
	SteerWait func(sessionID, id string)
}

// Engine runs agent loops.
type Engine struct {
	cfg Config

	pub *publisher // the one place events are stored and published

	changes changeLocks // see LockChanges

	mu     sync.Mutex
	active map[string]*runner // by session ID
	held   map[string]string  // sessions held by Hold, with what holds them
}

// New returns an Engine.
func New(cfg Config) *Engine {
	if cfg.Emit == nil {
		cfg.Emit = func(llm.Event) {}
	}
	if cfg.TextFlush <= 0 {
		cfg.TextFlush = 40 * time.Millisecond
	}
	if cfg.Mask == nil {
		cfg.Mask = func(s string) string { return s }
	}
	return &Engine{cfg: cfg, active: map[string]*runner{}, held: map[string]string{}, changes: changeLocks{waiting: cfg.LockWait},
		pub: &publisher{store: cfg.Store, emit: cfg.Emit, locks: map[string]*sessionLock{}, last: map[string]int64{}}}
}

// RunRequest asks for one turn in a stored session.
type RunRequest struct {
	Session llm.Session
	Prompt  string
	Model   Model
	// MaxSteps bounds the model steps of this run; 0 means DefaultMaxSteps.
	MaxSteps int
	// RepeatLimit is how many times the model may send the same failing
	// call (same tool, same arguments, an error result) before the run
	// stops with a note; 0 means DefaultRepeatLimit.
	RepeatLimit int
	// ReadOnly offers only read-only tools.
	ReadOnly bool
	// Images says whether the model takes image input; without it, images
	// stay in the history and the request gets a note instead (spec I4).
	Images bool
	// Started, if set, is called with the run's ID once the run is stored.
	Started func(runID string)
	// Attached is text added to the user message after the prompt (the
	// contents of MCP resources the user attached, spec M3); the run's
	// Prompt stays the user's own words.
	Attached string
	// AttachedImages go with the user message as image parts, kept in the
	// session's artifact store like a tool's images (spec I1).
	AttachedImages []tools.Image
	// Pasted are images the user attached, already stored as artifacts of
	// the session (the caller checked they are its images): they go with
	// the user message as image parts and are named in run.start.
	Pasted []event.ImageRef
	// Resources name what was attached, for the run.start event.
	Resources []event.ResourceRef
	// Title, if set, becomes the session's title with the run's start,
	// unless the user gave the session one (run.start tells it).
	Title string
	// Window is the model's context window, as far as it is known.
	Window Window
	// CompactAt is the share of a known window the next request may take
	// before the history is compacted; 0 means DefaultCompactAt.
	CompactAt float64
}

// ErrBusy is returned when a session already has a run going, or is held
// (see Hold).
var ErrBusy = errors.New("the session already has a run going")

// busyError is an ErrBusy with its own words.
type busyError struct{ msg string }

func (e busyError) Error() string        { return e.msg }
func (e busyError) Is(target error) bool { return target == ErrBusy }

// Run runs one turn to its end and returns the final run. The run's outcome
// (completed, failed, cancelled) is in the returned Run; a non-nil error
// means the run could not be started or its state could not be stored.
// Cancelling ctx cancels the run (spec X1).
func (e *Engine) Run(ctx context.Context, req RunRequest) (llm.Run, error) {
	if strings.TrimSpace(req.Prompt) == "" {
		return llm.Run{}, errors.New("the prompt is empty")
	}
	if req.Model == nil {
		return llm.Run{}, errors.New("no model given")
	}
	if req.MaxSteps < 0 {
		return llm.Run{}, fmt.Errorf("a step limit of %d: a turn needs at least 1 model step", req.MaxSteps)
	}
	if req.MaxSteps == 0 {
		req.MaxSteps = DefaultMaxSteps
	}
	if req.MaxSteps > MaxStepsLimit {
		return llm.Run{}, fmt.Errorf("a step limit of %d is more than the most one run may have (%d)", req.MaxSteps, MaxStepsLimit)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	r := &runner{
		e:      e,
		req:    req,
		sess:   req.Session,
		cancel: cancel,
		active: map[string]bool{},
		images: map[string][]byte{},
		proj:   &projection{cfg: e.cfg.Context.withDefaults()},
		enc:    &llm.Encodings{},
		run: llm.Run{
			ID:        NewID("run"),
			SessionID: req.Session.ID,
			Status:    llm.RunRunning,
			Prompt:    req.Prompt,
			Owner:     e.cfg.Owner,
			StartedAt: time.Now(),
		},
	}
	if !req.Images {
		r.proj.shape = noImages
	}
	r.rec = &recorder{pub: e.pub, flush: e.cfg.TextFlush, sess: r.sess.ID, run: r.run.ID}
	e.mu.Lock()
	if _, busy := e.active[r.sess.ID]; busy {
		e.mu.Unlock()
		return llm.Run{}, fmt.Errorf("session %s: %w", r.sess.ID, ErrBusy)
	}
	if why, busy := e.held[r.sess.ID]; busy {
		e.mu.Unlock()
		return llm.Run{}, busyError{fmt.Sprintf("session %s is busy: %s; try again when it is done", r.sess.ID, why)}
	}
	e.active[r.sess.ID] = r
	e.mu.Unlock()
	defer func() {
		e.mu.Lock()
		delete(e.active, r.sess.ID)
		e.mu.Unlock()
	}()
	return r.loop(ctx)
}

// Cancel cancels the running run of a session; it reports whether there was
// one.
func (e *Engine) Cancel(sessionID string) bool {
	e.mu.Lock()
	r, ok := e.active[sessionID]
	e.mu.Unlock()
	if ok {
		r.cancel()
	}
	return ok
}

// Record stores events of a session that no run produced (an outside
// change, a todo list) and publishes them, like RecordCommit.
func (e *Engine) Record(ctx context.Context, sessionID string, evs ...llm.Event) error {
	return e.RecordCommit(ctx, sessionID, llm.Commit{Events: evs})
}

// RecordCommit stores c, a commit of a session that no run produced, and
// publishes its events: a mode switch with the session's row, so the
// session.mode event and the mode are stored together or not at all. While
// the session has a run going, c goes through the run's recorder, after
// the text it has not stored yet, and its events are the run's; either way
// through the one ordering point, so clients see every event in seq order.
func (e *Engine) RecordCommit(ctx context.Context, sessionID string, c llm.Commit) error {
	for i := range c.Events {
		c.Events[i].SessionID = sessionID
	}
	e.mu.Lock()
	r := e.active[sessionID]
	e.mu.Unlock()
	if r != nil {
		return r.rec.commit(ctx, c)
	}
	_, err := e.pub.commit(ctx, sessionID, c)
	return err
}

// Commit stores a commit that no run produced (a revert's file changes,
// their blobs and events) and publishes its events, through the same
// ordering point as runs. It returns the events as stored, with their seq.
func (e *Engine) Commit(ctx context.Context, sessionID string, c llm.Commit) ([]llm.Event, error) {
	for i := range c.Events {
		c.Events[i].SessionID = sessionID
	}
	return e.pub.commit(ctx, sessionID, c)
}

// KnowStored tells the engine the last seq of each session as stored when
// the process starts (before Recover): it publishes only what is stored
// later, its own events and those of other processes sharing the database.
func (e *Engine) KnowStored(last map[string]int64) { e.pub.Known(last) }

// CatchUp publishes, in seq order, the events another process stored in
// the session since this engine last published one (a foya mode in a
// terminal, a foya exec --session): Emit gets every event of a session,
// whoever stored it.
func (e *Engine) CatchUp(ctx context.Context, sessionID string) { e.pub.CatchUp(ctx, sessionID, -1) }

// Published returns the last seq of the session the engine published.
func (e *Engine) Published(sessionID string) int64 { return e.pub.Published(sessionID) }

// Hold keeps a session from starting a run until release is called (a
// revert changing its files); why says what holds it, for the error Run
// returns meanwhile. It fails with ErrBusy if the session has a run going
// or is held already.
func (e *Engine) Hold(sessionID, why string) (release func(), err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if _, busy := e.active[sessionID]; busy {
		return nil, busyError{"session " + sessionID + " has a run going"}
	}
	if other, busy := e.held[sessionID]; busy {
		return nil, busyError{"session " + sessionID + " is busy: " + other}
	}
	e.held[sessionID] = why
	var once sync.Once
	return func() {
		once.Do(func() {
			e.mu.Lock()
			delete(e.held, sessionID)
			e.mu.Unlock()
		})
	}, nil
}

// Running reports whether a session has a run going.
func (e *Engine) Running(sessionID string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	_, ok := e.active[sessionID]
	return ok
}

// NewID returns a new time-ordered identifier with a prefix, such as
// "run_0190f3…".
func NewID(prefix string) string {
	id, err := uuid.NewV7()
	if err != nil {
		id = uuid.New()
	}
	return prefix + "_" + strings.ReplaceAll(id.String(), "-", "")
}
