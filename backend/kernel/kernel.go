package kernel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"foya/backend/approval"
	"foya/backend/capture"
	"foya/backend/engine"
	"foya/backend/event"
	"foya/backend/hooks"
	"foya/backend/isolate"
	"foya/backend/llm"
	"foya/backend/mcp/mcpconfig"
	"foya/backend/profiles"
	"foya/backend/sandbox"
	"foya/backend/store"
	"foya/backend/tools"
	"foya/backend/tools/history"
	"foya/backend/tools/shell"
	"foya/backend/tools/task"
	"foya/backend/tools/todo"
	"foya/backend/tools/web"
	"foya/backend/trust"
	"foya/backend/workspace"
)

// Version is the kernel's version, set at build time with
// -ldflags "-X foya/backend/kernel.Version=...".
var Version = "0.1.0-dev"

// Options configure Open.
type Options struct {
	// DBPath is the SQLite file; empty means $FOYA_DB, then foya.db in the
	// data folder.
	DBPath string
	// Tools are registered besides the built-in ones (tests, adapters).
	Tools []tools.Tool
	// TextFlush overrides how long text deltas are coalesced.
	TextFlush time.Duration
	// Context tunes the context compiler (tests use small budgets).
	Context engine.ContextConfig
	// Headless means no one can answer approval requests (foya exec
	// without a terminal): what needs asking is denied with a message
	// saying how to allow it.
	Headless bool
	// Probe, if set, replaces sandbox.Probe for the shell tools (tests of
	// a machine with another sandbox mechanism).
	Probe func() sandbox.Capability
	// UserRules is the user's own rules file; empty means
	// approval.UserRulesFile in the data folder (DataDir, never the folder
	// of DBPath: a database kept in a workspace must not make a workspace
	// file the user's rules).
	UserRules string
	// UserHooks is the user's own hooks file (docs/hooks.md); empty means
	// hooks.UserFile beside the user's rules file.
	UserHooks string
	// Secrets are values, by the name a mask shows, that no command's
	// environment holds whatever the variable is called, and that are
	// masked in every tool result before it is stored or sent: the
	// provider's API key.
	Secrets map[string]string
	// ChangeLockWait, if set, is called when something about to look at a
	// session's workspace or change it waits for the session's change lock
	// (engine.Config.LockWait; tests).
	ChangeLockWait func(sessionID string)
	// SteerWait, if set, is called when a message sent to a running run
	// (Steer) waits for the run's next step boundary
	// (engine.Config.SteerWait; tests).
	SteerWait func(sessionID, id string)
	// TitleTimeout bounds the request that asks a session's model for a
	// title after its first run; DefaultTitleTimeout when 0.
	TitleTimeout time.Duration
	// TitleDone, if set, is called when such a request has ended: with
	// the title stored, or "" and why none (nil when the setting is off or
	// the model proposed the title the session has). Tests.
	TitleDone func(sessionID, title string, err error)
	// Copies is the folder isolated sessions' copies are kept in;
	// CopiesDir of the data folder when empty.
	Copies string
	// FreeSpace, if set, replaces statfs when a plain copy checks that it
	// fits on the disk (tests of a full disk).
	FreeSpace func(path string) (uint64, error)
	// Log receives what goes wrong in the background that no caller waits
	// for (a title request); slog.Default() when nil.
	Log *slog.Logger
}

// Kernel is the facade every front end uses.
type Kernel struct {
	info    Info
	store   *store.Store
	reg     *tools.Registry
	eng     *engine.Engine
	gateway *approval.Gateway
	shell   *shell.Shell
	ws      *workspace.Manager
	capture *capture.Capture // shell commands' changes, the watcher
	// skipped are Foya's own files, which the workspace indexes and the
	// watcher pass over (foyaFiles), as given and resolved.
	skipped []string
	// userRules is the user's own rules file ("" if there is none).
	userRules string
	// userHooks is the user's own hooks file ("" if there is none), and
	// hookRunner runs hooks (hooks.go).
	userHooks  string
	hookRunner *hooks.Runner
	owner      *owner
	secrets    *secrets
	profiles   *profiles.Service
	mcp        *mcpconfig.Servers
	trust      *trust.Ledger     // what the user approved in workspaces
	iso        *isolate.Isolator // isolated sessions' copies (isolate.go)
	setups     *setups           // their setup commands running
	applyMu    sync.Mutex        // one ApplySession at a time

	notices notices // published, never stored: SubscribeNotices
	elicits elicits // MCP servers' questions waiting (elicit.go)

	mu   sync.Mutex
	subs map[int]func(llm.Event)
	next int

	follow *follower // publishes what other processes store

	// Title requests after first runs (proposeTitle): titleCtx ends when
	// the kernel closes, which then waits for titles; none starts once
	// titlesClosed is set (under mu).
	titleCtx     context.Context
	titleStop    context.CancelFunc
	titles       sync.WaitGroup
	titlesClosed bool
	titleTimeout time.Duration
	titleDone    func(sessionID, title string, err error)
	log          *slog.Logger
}

// DataDir returns the folder where Foya keeps its data: $XDG_DATA_HOME/foya
// (or ~/.local/share/foya) on Linux and BSD, ~/Library/Application
// Support/Foya on macOS, %AppData%\Foya on Windows.
func DataDir() (string, error) {
	switch runtime.GOOS {
	case "darwin", "windows":
		dir, err := os.UserConfigDir()
		if err != nil {
			return "", fmt.Errorf("find the data folder: %w", err)
		}
		return filepath.Join(dir, "Foya"), nil
	}
	if x := os.Getenv("XDG_DATA_HOME"); filepath.IsAbs(x) {
		return filepath.Join(x, "foya"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("find the data folder: %w", err)
	}
	return filepath.Join(home, ".local", "share", "foya"), nil
}

// ResolvePaths returns the database file (opts.DBPath, else $FOYA_DB, else
// foya.db in DataDir), the folder of Foya's other files (the database's
// folder when the database was named, else DataDir) and the user's rules
// file (opts.UserRules, else in DataDir; "" when there is no DataDir).
func ResolvePaths(opts Options) (path, dataDir, userRules string, err error) {
	path = opts.DBPath
	if path == "" {
		path = os.Getenv("FOYA_DB")
	}
	dataDir, err = DataDir()
	userRules = opts.UserRules
	if userRules == "" && err == nil {
		userRules = filepath.Join(dataDir, approval.UserRulesFile)
	}
	if path == "" {
		if err != nil {
			return "", "", "", err
		}
		path = filepath.Join(dataDir, "foya.db")
	}
	if err != nil || opts.DBPath != "" || os.Getenv("FOYA_DB") != "" {
		dataDir = filepath.Dir(path)
	}
	return path, dataDir, userRules, nil
}

// userHooksFile is the user's hooks file: given, else hooks.UserFile
// beside the user's rules ("" when there are none).
func userHooksFile(given, userRules string) string {
	if given != "" || userRules == "" {
		return given
	}
	return filepath.Join(filepath.Dir(userRules), hooks.UserFile)
}

// Open opens the store, builds the registry and engine, marks runs left
// running by a process that is gone as interrupted (spec X2), and removes
// session temp folders that no live kernel uses (a crash leaves them).
func Open(ctx context.Context, opts Options) (*Kernel, error) {
	path, dataDir, userRules, err := ResolvePaths(opts)
	if err != nil {
		return nil, err
	}
	st, err := store.Open(ctx, path)
	if err != nil {
		return nil, err
	}
	own := &owner{id: engine.NewID(strings.TrimSuffix(ownerPrefix, "_"))} // read-only: nothing to own
	if st.ReadOnly() == "" {
		if own, err = claimOwner(st.Path()); err != nil {
			st.Close()
			return nil, err
		}
	}
	info := BuildInfo()
	info.DataDir, info.DBPath, info.ReadOnly = dataDir, st.Path(), st.ReadOnly()
	k := &Kernel{
		info:  info,
		store: st,
		owner: own,
		reg:   tools.NewRegistry(),
		subs:  map[int]func(llm.Event){},

		trust:     trust.New(st),
		userRules: userRules,
		userHooks: userHooksFile(opts.UserHooks, userRules),
		secrets:   newSecrets(opts.Secrets),

		titleTimeout: opts.TitleTimeout,
		titleDone:    opts.TitleDone,
		log:          opts.Log,
		setups:       newSetups(),
	}
	copies := opts.Copies
	if copies == "" {
		copies = CopiesDir(dataDir)
	}
	k.iso = &isolate.Isolator{Dir: absPath(copies), FreeSpace: opts.FreeSpace}
	k.trust.MapDir(k.approvalsDir) // a copy shares its folder's approvals
	k.titleCtx, k.titleStop = context.WithCancel(context.Background())
	if k.titleTimeout <= 0 {
		k.titleTimeout = DefaultTitleTimeout
	}
	if k.log == nil {
		k.log = slog.Default()
	}
	k.profiles = profiles.New(profiles.Config{Settings: st, DataDir: dataDir, Secrets: profileSecrets{k}, IdleTimeout: k.IdleTimeout})
	k.reg.Add(tools.Search{}, history.New(st))
	k.reg.Add(todo.New(func(ctx context.Context, sid string, ev event.Event) error { return k.eng.Record(ctx, sid, ev) }))
	k.reg.Add(fileTools(k)...)
	k.ws = k.newWorkspace(dataDir)
	// The engine and the shell are made after the capture: it reaches them
	// through the kernel once commands run.
	k.capture = capture.New(capture.Deps{Workspace: k.ws, Records: st, Reads: readLog{st}, Timeline: engineOf{k},
		Commands: shellOf{k}, Running: func(sid string) bool { return k.eng.Running(sid) }, Mask: k.mask,
		NewID: engine.NewID, Skip: k.skipped, Jobs: jobStore{st}, Owner: own.id, Gone: own.gone,
		RecoverJob: func(ctx context.Context, sid, runID, callID string) error {
			_, err := k.eng.RecoverJob(ctx, sid, runID, callID)
			return err
		}})
	k.reg.Add(shellTools(k, opts.Probe)...)
	k.hookRunner = newHookRunner(k)
	k.reg.Add(web.New())
	k.reg.Add(task.New())
	k.mcp = newMCP(k, dataDir, opts.Context.Budget)
	for _, t := range opts.Tools {
		if err := k.reg.Put(t); err != nil {
			return nil, errors.Join(err, k.Close())
		}
	}
	if !opts.Headless {
		k.gateway = approval.NewGateway()
	}
	k.eng = engine.New(engine.Config{Store: st, Tools: k.reg, Emit: k.publish, Owner: own.id,
		TextFlush: opts.TextFlush, Gateway: k.gateway, Context: opts.Context, Rules: k.rulesFor, Mask: k.mask,
		LockWait: opts.ChangeLockWait, Changing: k.capture.Changing, SteerWait: opts.SteerWait, Hooks: k.hooksFor})
	// What is stored now is history; what other processes store from now
	// on is published as this kernel's own events are (follower).
	seqs, err := st.SessionSeqs(ctx)
	if err != nil {
		return nil, errors.Join(err, k.Close())
	}
	k.eng.KnowStored(seqs)
	if st.ReadOnly() == "" {
		if _, err := k.eng.Recover(ctx, own.claim); err != nil {
			return nil, errors.Join(err, k.Close())
		}
		if err := k.capture.RecoverJobs(ctx); err != nil {
			return nil, errors.Join(err, k.Close())
		}
		// Leftovers of owners that are gone. Neither a lock file, a temp
		// folder nor an isolated copy that cannot be removed now stops
		// Foya from starting: the next start tries again. Copies first:
		// their owners' lock files tell which are being made.
		if _, err := k.sweepCopies(ctx); err != nil {
			k.log.Warn("isolated copies of sessions that are gone not all removed", "err", err)
		}
		_ = own.sweep(ctx, st)
	}
	_ = k.shell.Sweep()
	k.follow = newFollower(k)
	return k, nil
}

// Close releases the kernel's resources. Background commands end first, as
// whole process trees, so none outlives the kernel.
func (k *Kernel) Close() error {
	// Title requests stop first: they store what they get.
	k.mu.Lock()
	k.titlesClosed = true
	k.mu.Unlock()
	k.titleStop()
	k.titles.Wait()
	k.follow.stop()
	k.setups.close() // before the shell: a setup command records its end
	if k.capture != nil {
		k.capture.Close()
	}
	k.mcp.Close()
	shellErr := k.shell.Close()
	// After the shell: an ending background command records its changes.
	shellErr = errors.Join(shellErr, k.ws.Close())
	// The owner's lock goes after the commands, and before the store, which
	// it asks whether a run of this kernel is still marked running.
	return errors.Join(shellErr, k.owner.release(context.Background(), k.store), k.store.Close())
}

// Info returns the kernel's version, commit and where it keeps its data.
func (k *Kernel) Info() Info { return k.info }

// Profiles returns the provider profiles and their keys.
func (k *Kernel) Profiles() *profiles.Service { return k.profiles }

// Registry returns the tool registry, for front ends that add tools.
func (k *Kernel) Registry() *tools.Registry { return k.reg }

// Subscribe calls fn with every event after it is stored, each session's in
// seq order with no gap and no repeat, until the returned function is
// called. fn is called while the session's next event waits, so it must not
// block for long, nor record an event of the session itself (answer an
// approval, switch a mode) before it returns: it may start a goroutine that
// does.
func (k *Kernel) Subscribe(fn func(llm.Event)) (unsubscribe func()) {
	k.mu.Lock()
	defer k.mu.Unlock()
	id := k.next
	k.next++
	k.subs[id] = fn
	return func() {
		k.mu.Lock()
		defer k.mu.Unlock()
		delete(k.subs, id)
	}
}

func (k *Kernel) publish(ev llm.Event) {
	k.mu.Lock()
	fns := make([]func(llm.Event), 0, len(k.subs))
	for _, fn := range k.subs {
		fns = append(fns, fn)
	}
	k.mu.Unlock()
	for _, fn := range fns {
		fn(ev)
	}
}

// CreateSession stores a new session for a working directory that exists.
// With ns.Isolation, the session works in an isolated copy of it (a git
// worktree or a copy, made first; see ApplySession and DiscardSession),
// and the folder's setup command, if it has one, starts in the copy in
// the background: the session's runs are refused (busy) until it ends
// (WaitSetup).
func (k *Kernel) CreateSession(ctx context.Context, ns NewSession) (Session, error) {
	if ns.Workdir == "" || strings.ContainsRune(ns.Workdir, 0) {
		return Session{}, kindf(ErrInvalid, "working directory %q: give the folder to work in", ns.Workdir)
	}
	dir, err := filepath.Abs(ns.Workdir)
	if err != nil {
		return Session{}, kindf(ErrInvalid, "working directory %s: %w", ns.Workdir, err)
	}
	if fi, err := os.Stat(dir); err != nil {
		return Session{}, kindf(ErrInvalid, "working directory %s: %w", dir, err)
	} else if !fi.IsDir() {
		return Session{}, kindf(ErrInvalid, "working directory %s is not a directory", dir)
	}
	mode, err := approval.ParseMode(ns.ApprovalMode)
	if err != nil {
		return Session{}, withKind(err, ErrInvalid)
	}
	title, byUser := Title(ns.Title), true
	if title == "" {
		title, byUser = DefaultTitle, false
	}
	sess := llm.Session{
		ID: engine.NewID("ses"), Title: title, TitleByUser: byUser, ProjectID: dir, Workdir: dir,
		ApprovalMode: string(mode), Provider: ns.Provider, Model: ns.Model, Tools: ns.Tools,
	}
	// An isolated session works in its copy (isolate.go); a crash before
	// the commit below leaves a copy with no session, which the next
	// start removes.
	rec, iso, err := k.makeCopy(ctx, sess.ID, dir, ns)
	if err != nil {
		return Session{}, err
	}
	c := llm.Commit{Session: &sess, NewSession: true}
	if iso != nil {
		sess.Workdir, sess.Isolation = rec.Workdir, iso
		c.Isolation, c.IsolationOf = iso, sess.ID
	}
	if mode == approval.FullAccess {
		// Every session that runs with Full Access is on record, from the
		// commit that creates it.
		c.Events = []llm.Event{event.SessionMode(event.SessionModeData{To: string(mode)})}
	}
	if err := k.eng.RecordCommit(ctx, sess.ID, c); err != nil {
		if iso != nil {
			err = errors.Join(err, k.iso.Remove(context.WithoutCancel(ctx), rec))
		}
		return Session{}, err
	}
	if iso != nil && iso.Setup != "" {
		k.startSetup(sess.ID, sess.Workdir, sess.ProjectID, iso.Setup)
	}
	return sessionOf(sess), nil
}

// Title makes a session title from a prompt: its first line, at most 80
// characters.
func Title(prompt string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(prompt), "\n")
	line = strings.TrimSpace(line)
	if r := []rune(line); len(r) > 80 {
		line = string(r[:79]) + "…"
	}
	return line
}

// Session returns one session.
func (k *Kernel) Session(ctx context.Context, id string) (Session, error) {
	s, err := k.store.Session(ctx, id)
	return sessionOf(s), err
}

// Sessions lists stored sessions, most recently updated first.
func (k *Kernel) Sessions(ctx context.Context) ([]Session, error) {
	list, err := k.store.Sessions(ctx)
	if err != nil {
		return nil, err
	}
	if list == nil {
		return []Session{}, nil
	}
	return mapSlice(list, sessionOf), nil
}

// UpdateSession changes a session's title, model, provider, tool
// allowlist or approval mode; a change of mode is recorded with it, as
// SetMode records one.
func (k *Kernel) UpdateSession(ctx context.Context, s Session) error {
	cur, err := k.store.Session(ctx, s.ID)
	if err != nil {
		return err
	}
	m := approval.Mode(cur.ApprovalMode)
	if s.ApprovalMode != "" && s.ApprovalMode != cur.ApprovalMode {
		if m, err = approval.ParseMode(s.ApprovalMode); err != nil {
			return withKind(err, ErrInvalid) // nothing stored
		}
	}
	sess := s.record()
	sess.ApprovalMode = cur.ApprovalMode
	return k.putSession(ctx, sess, m)
}

// Run runs one turn in a session to its end (see engine.Engine.Run).
func (k *Kernel) Run(ctx context.Context, o RunOptions) (Run, error) {
	if strings.TrimSpace(o.Prompt) == "" {
		return Run{}, kindf(ErrInvalid, "the prompt is empty: say what to do")
	}
	if o.MaxSteps < 0 || o.MaxSteps > engine.MaxStepsLimit {
		return Run{}, kindf(ErrInvalid, "a step limit of %d: give 1 to %d model steps", o.MaxSteps, engine.MaxStepsLimit)
	}
	sess, err := k.store.Session(ctx, o.SessionID)
	if err != nil {
		return Run{}, err
	}
	if sess.Isolation != nil && !sess.Isolation.DiscardedAt.IsZero() {
		return Run{}, kindf(ErrConflict, "session %s's isolated copy was discarded: it cannot run again; start a new session", sess.ID)
	}
	// A new copy's setup command first (isolate.go): the model works in
	// a copy that is ready. A front end waits for its end (WaitSetup, or
	// its isolation.setup events) before it sends a message.
	if k.setups.busy(sess.ID) {
		return Run{}, kindf(ErrBusy, "session %s's setup command is still running in its copy (its output is in the session's isolation.setup events): send the message when it has ended", sess.ID)
	}
	ownModel := o.Model != nil
	if o.Model == nil {
		// The session's profile with its model; a session of none (or of
		// a profile since removed) gets the default profile with its own.
		choice := profiles.ModelChoice{Session: sess.Provider}
		if _, err := k.profiles.Get(ctx, sess.Provider); err == nil {
			choice.Model = sess.Model
		}
		var prov, model string
		if o.Model, prov, model, err = k.profiles.Client(ctx, choice); err != nil {
			return Run{}, err
		}
		if prov != sess.Provider || model != sess.Model {
			sess.Provider, sess.Model = prov, model
			if err := k.store.UpdateSession(ctx, sess); err != nil {
				return Run{}, err
			}
		}
	}
	images, err := k.profiles.ImageInput(ctx, sess.Model)
	if err != nil {
		return Run{}, err
	}
	window := o.Window
	if !ownModel { // a client of the caller's own (foya exec's flags) may talk to another server
		window = k.RunWindow(ctx, sess.Provider, sess.Model)
	}
	steps := o.MaxSteps
	if steps == 0 {
		if steps, err = k.MaxSteps(ctx); err != nil {
			return Run{}, err
		}
	}
	repeats, err := k.RepeatLimit(ctx)
	if err != nil {
		return Run{}, err
	}
	compactAt, err := k.CompactAt(ctx)
	if err != nil {
		return Run{}, err
	}
	// From a session's first run on, outside changes to files it read or
	// changed are noticed (the stale-read guard and the UI use them). The
	// watch lasts until the session is deleted or the kernel closes, so
	// the workspace is walked once, not at every turn. A workspace that
	// cannot be watched does not stop the run: the guard still compares
	// contents before every write.
	k.ws.Warm(sess.ID, sess.Workdir) // built in the background; the first shell command waits for it
	k.capture.Keep(sess.ID, sess.Workdir)
	k.mcp.Load(ctx, sess.Workdir) // its servers' tools are in the first step
	refs := mapSlice(o.Resources, func(r ResourceRef) event.ResourceRef { return event.ResourceRef{Server: r.Server, URI: r.URI} })
	attached, attachedImages, err := k.mcp.Attach(ctx, sess.Workdir, refs)
	if err != nil {
		return Run{}, err
	}
	if text, err := k.mentioned(sess.Workdir, o.Files); err != nil {
		return Run{}, err
	} else if text != "" {
		attached = strings.TrimPrefix(attached+"\n\n"+text, "\n\n")
	}
	pasted, err := k.pastedImages(ctx, sess.ID, o.Images)
	if err != nil {
		return Run{}, err
	}
	var title string
	if sess.Runs == 0 && !sess.TitleByUser {
		// The first run names a session the user named none for.
		title = PromptTitle(o.Prompt)
	}
	run, err := k.eng.Run(ctx, engine.RunRequest{Session: sess, Prompt: o.Prompt, Model: o.Model, MaxSteps: steps, RepeatLimit: repeats,
		Started: o.Started, Images: images, Attached: attached, AttachedImages: attachedImages, Pasted: pasted, Resources: refs, Title: title, Window: window,
		CompactAt: compactAt})
	k.capture.Settle(sess.ID)
	if err == nil && title != "" && (run.Status == event.RunStatusCompleted || run.Status == event.RunStatusCancelled) {
		// The first run has ended: its model may name the session better
		// than its prompt's first line (issue 25), in the background.
		k.proposeTitle(sess.ID, title, o.Prompt, o.Model, sess.Model)
	}
	return runOf(run), err
}

// Cancel cancels a session's running run; it reports whether there was one.
func (k *Kernel) Cancel(sessionID string) bool { return k.eng.Cancel(sessionID) }

// Runs returns a session's runs, oldest first.
func (k *Kernel) Runs(ctx context.Context, sessionID string) ([]Run, error) {
	if _, err := k.store.Session(ctx, sessionID); err != nil {
		return nil, err
	}
	list, err := k.store.Runs(ctx, sessionID)
	return mapSlice(list, runOf), err
}

// Calls returns a run's tool calls.
func (k *Kernel) Calls(ctx context.Context, runID string) ([]Call, error) {
	if _, err := k.store.Run(ctx, runID); err != nil {
		return nil, err
	}
	list, err := k.store.Calls(ctx, runID)
	return mapSlice(list, callOf), err
}

// Messages returns a session's canonical history.
func (k *Kernel) Messages(ctx context.Context, sessionID string) ([]Message, error) {
	if _, err := k.store.Session(ctx, sessionID); err != nil {
		return nil, err
	}
	list, err := k.store.Messages(ctx, sessionID)
	return mapSlice(list, messageOf), err
}

// Events returns a session's events after seq (0 for all).
func (k *Kernel) Events(ctx context.Context, sessionID string, after int64) ([]llm.Event, error) {
	if after < 0 {
		return nil, kindf(ErrInvalid, "events after %d: give a seq of 0 or more", after)
	}
	if _, err := k.store.Session(ctx, sessionID); err != nil {
		return nil, err
	}
	return k.store.Events(ctx, sessionID, after, 0)
}

// RunInstructions returns, by run ID, which project instructions file each
// run of a session read into its system prompt, or why none (from the
// runs' run.start events).
func (k *Kernel) RunInstructions(ctx context.Context, sessionID string) (map[string]llm.Instructions, error) {
	if _, err := k.store.Session(ctx, sessionID); err != nil {
		return nil, err
	}
	evs, err := k.store.EventsOfType(ctx, sessionID, event.TypeRunStart)
	if err != nil {
		return nil, err
	}
	out := make(map[string]llm.Instructions, len(evs))
	for _, ev := range evs {
		var d event.RunStartData
		if json.Unmarshal(ev.Data, &d) == nil && d.Instructions.Status != "" {
			out[ev.RunID] = d.Instructions
		}
	}
	return out, nil
}

// Artifact returns an artifact of a session with its bytes and MIME type.
func (k *Kernel) Artifact(ctx context.Context, sessionID, id string) (Artifact, error) {
	a, err := k.store.Artifact(ctx, sessionID, id)
	return artifactOf(a), err
}

// IsNotFound reports whether err means something does not exist.
func IsNotFound(err error) bool { return errors.Is(err, ErrNotFound) }
