package shell

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"foya/backend/event"
	"foya/backend/sandbox"
	"foya/backend/tools"
)

// Bounds of background commands (spec B2).
const (
	// MaxRunning is how many background commands a session runs at once.
	MaxRunning = 8
	// MaxKept is how many background commands a session keeps, running or
	// ended; the oldest ended ones are forgotten first.
	MaxKept = 32
	// BackgroundTailBytes is the output ring kept per background command.
	BackgroundTailBytes = 1 << 20
	// listCommandBytes bounds the command text in listings.
	listCommandBytes = 2 << 10
)

// job is one background command.
type job struct {
	id, sessionID, command string
	proc                   *sandbox.Process
	started                time.Time
	plan                   plan
	mechanism              string // what confines it: a sandbox mechanism or "none"
	// runID and callID name the call that started it; capture says its
	// changes are recorded, and row is its stored ID (Options.Jobs), if any.
	runID, callID, row string
	capture            bool

	mu     sync.Mutex
	next   int64 // stream offset of the first byte bash_output has not shown
	killed bool  // ended by bash_kill, Kill, DeleteSession or Close
	// dropped says its session was deleted: nothing is recorded for it.
	dropped bool
	// captured says its changes at its end were looked for.
	captured bool
	// notes say what was done after it ended (a repository it made,
	// renamed aside); bash_output shows them.
	notes []string
}

// changes tells Options.Changed about one background command, one call at
// a time: started, output changes at most every OutputEvery (a change
// within that time is told when it is up), and ended, after which nothing.
// Output that comes before the command is known (its job is made after
// the process starts) is told right after started.
type changes struct {
	tell func(change string, b Background) // nil: nobody listens

	mu      sync.Mutex
	j       *job        // nil until started
	last    time.Time   // when output was last told
	timer   *time.Timer // armed while an output change waits
	pending bool        // output came before started
	ended   bool
}

// started tells that j started, and any output it printed meanwhile.
func (c *changes) started(j *job) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.j = j
	if c.tell == nil {
		return
	}
	c.tell(event.BackgroundStarted, j.info())
	if c.pending {
		c.pending = false
		c.outputLocked()
	}
}

// output is sandbox.Command.OnOutput: the command printed more.
func (c *changes) output([]byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.outputLocked()
}

func (c *changes) outputLocked() {
	switch {
	case c.tell == nil || c.ended || c.timer != nil:
		return
	case c.j == nil:
		c.pending = true
		return
	}
	if wait := OutputEvery - time.Since(c.last); wait > 0 {
		c.timer = time.AfterFunc(wait, c.due)
		return
	}
	c.last = time.Now()
	c.tell(event.BackgroundOutput, c.j.info())
}

// due tells the output change that waited.
func (c *changes) due() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.timer = nil
	if c.ended {
		return
	}
	c.last = time.Now()
	c.tell(event.BackgroundOutput, c.j.info())
}

// end tells that the command ended; its last output is in what it tells.
func (c *changes) end() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ended || c.j == nil {
		return
	}
	c.ended = true
	if c.timer != nil {
		c.timer.Stop()
		c.timer = nil
	}
	if c.tell != nil {
		c.tell(event.BackgroundEnded, c.j.info())
	}
}

func (j *job) kill() error {
	j.mu.Lock()
	j.killed = true
	j.mu.Unlock()
	return j.proc.Kill()
}

// Background describes a background command for front ends.
type Background struct {
	ID        string    `json:"id"`
	SessionID string    `json:"sessionId"`
	Command   string    `json:"command"`
	PID       int       `json:"pid"`
	StartedAt time.Time `json:"startedAt"`
	Running   bool      `json:"running"`
	// ExitCode and Signal say how it ended, once it has.
	ExitCode int    `json:"exitCode"`
	Signal   string `json:"signal,omitempty"`
	// Killed says it was ended on request (bash_kill, the UI, session
	// deletion); TimedOut that its timeout ended it.
	Killed   bool `json:"killed,omitempty"`
	TimedOut bool `json:"timedOut,omitempty"`
	// Duration is how long it ran, once it has ended.
	Duration time.Duration `json:"durationNs,omitempty"`
	// Sandbox names what confined it ("none" without sandbox).
	Sandbox string `json:"sandbox"`
	// OutputBytes counts everything it printed so far.
	OutputBytes int64 `json:"outputBytes"`
}

func (j *job) info() Background {
	b := Background{ID: j.id, SessionID: j.sessionID, Command: j.command, PID: j.proc.PID(), StartedAt: j.started,
		Sandbox: j.mechanism}
	if len(b.Command) > listCommandBytes {
		b.Command = strings.ToValidUTF8(b.Command[:listCommandBytes], "") + "…"
	}
	_, b.OutputBytes, _ = j.proc.Read(1 << 62)
	res, done := j.proc.Result()
	j.mu.Lock()
	b.Killed = j.killed
	j.mu.Unlock()
	if !done {
		b.Running = true
		return b
	}
	b.ExitCode, b.Signal, b.TimedOut, b.Duration, b.Sandbox = res.ExitCode, res.Signal, res.TimedOut, res.Duration, res.Sandbox
	b.Killed = b.Killed || res.Cancelled
	return b
}

// startBackground starts an allowed command in the background and returns
// its ID to the model at once (spec B1).
func (s *Shell) startBackground(rc *tools.RunContext, callID, command string, cmd sandbox.Command, p plan, capErr error) (tools.Result, error) {
	sessionID := rc.SessionID
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return tools.Errorf("bash: %v; the command did not run", ErrClosed), nil
	}
	sess := s.sessions[sessionID]
	if sess == nil {
		sess = &session{}
		s.sessions[sessionID] = sess
	}
	running := 0
	for _, j := range sess.jobs {
		if _, done := j.proc.Result(); !done {
			running++
		}
	}
	if running >= MaxRunning {
		return tools.Errorf("bash: %d background commands are running in this session, the most allowed; "+
			"end one with bash_kill first (bash_output shows their status)", running), nil
	}
	cmd.TailBytes = BackgroundTailBytes
	ch := &changes{tell: s.opts.Changed}
	cmd.OnOutput = ch.output
	// The Shell's context, not the call's: the command outlives the run.
	proc, err := sandbox.Start(s.ctx, cmd)
	if err != nil {
		if errors.Is(err, sandbox.ErrUnavailable) {
			return tools.Errorf("bash: %v; the command did not run. Retry with sandbox: false and a reason to ask the user to run it without a sandbox", err), nil
		}
		return tools.Errorf("bash: could not start the command: %v", err), nil
	}
	s.spend(sessionID, p)
	sess.seq++
	capture := s.opts.Capture != nil && capErr == nil
	j := &job{id: fmt.Sprintf("bg%d", sess.seq), sessionID: sessionID, command: command, proc: proc, started: time.Now(),
		plan: p, mechanism: "none", runID: rc.RunID, callID: callID, capture: capture}
	if p.restricted {
		j.mechanism = s.opts.Probe().Mechanism
	}
	if capture && s.opts.Jobs != nil {
		// Not storing it costs only the recovery of its changes after a
		// crash that comes once its run ended; a crash before that finds
		// its call running in the run.
		j.row, _ = s.opts.Jobs.Started(context.Background(), sessionID, rc.RunID, callID)
	}
	sess.jobs = append(sess.jobs, j)
	sess.forget()
	ch.started(j)
	runID, workdir := rc.RunID, rc.Workdir
	s.wg.Go(func() {
		<-proc.Done()
		// Told before its changes are looked for, which may take a while:
		// a panel shows at once that it ended.
		ch.end()
		if p.restricted || capture {
			var notes []string
			if p.restricted {
				notes = quarantine(cmd.Dir, p.protect)
			}
			j.mu.Lock()
			dropped := j.dropped
			j.mu.Unlock()
			if capture && !dropped {
				notes = append(notes, s.captureBackground(sessionID, runID, callID, workdir)...)
			}
			j.mu.Lock()
			j.captured = true
			j.mu.Unlock()
			if j.row != "" {
				_ = s.opts.Jobs.Ended(context.Background(), j.row) // a session deleted meanwhile took the row with it
			}
			j.mu.Lock()
			j.notes = notes
			j.mu.Unlock()
		}
	})
	var b strings.Builder
	fmt.Fprintf(&b, "Started in the background with id %s (PID %d). ", j.id, proc.PID())
	fmt.Fprintf(&b, "Read its new output and status with bash_output {\"id\":%q}; end it with bash_kill {\"id\":%q}. ", j.id, j.id)
	b.WriteString("It keeps running across turns until it ends, you kill it, or the session is deleted.")
	if cmd.Timeout > 0 {
		fmt.Fprintf(&b, " Its timeout ends it after %s.", cmd.Timeout)
	}
	b.WriteString("\n" + sandboxNote(j.mechanism, p))
	if capErr != nil {
		b.WriteString("\n" + captureNote(capErr))
	} else if capture {
		b.WriteString("\nWhat it changes in the workspace is recorded when it ends.")
	}
	return tools.Result{Text: b.String(), Background: j.id}, nil
}

// captureBackground records what an ended background command changed,
// against the call that started it, and returns notes for bash_output.
func (s *Shell) captureBackground(sessionID, runID, callID, workdir string) []string {
	ctx := context.Background()
	// The look and the record under the session's change lock: a look
	// beside a call's would take its change, on disk and not yet stored,
	// for this command's, or store its own records out of order.
	if l, ok := s.opts.Capture.(Locker); ok {
		unlock, err := l.Lock(ctx, sessionID)
		if err != nil {
			return []string{captureNote(err)}
		}
		defer unlock()
	}
	fcs, note, err := s.opts.Capture.After(ctx, sessionID, workdir)
	if err != nil {
		return []string{captureNote(err)}
	}
	var notes []string
	if note != "" {
		notes = append(notes, "Foya recorded its file changes only in part: "+note)
	}
	if len(fcs) == 0 {
		return notes
	}
	if err := s.opts.Capture.Record(ctx, sessionID, runID, callID, fcs); err != nil {
		return append(notes, captureNote(err))
	}
	return append(notes, fmt.Sprintf("Foya recorded its %d file change(s) for review and revert", len(fcs)))
}

// forget drops the oldest ended jobs beyond MaxKept.
func (sess *session) forget() {
	for len(sess.jobs) > MaxKept {
		i := slices.IndexFunc(sess.jobs, func(j *job) bool { _, done := j.proc.Result(); return done })
		if i < 0 {
			return
		}
		sess.jobs = slices.Delete(sess.jobs, i, i+1)
	}
}

// List returns a session's background commands, oldest first.
func (s *Shell) List(sessionID string) []Background {
	s.mu.Lock()
	var jobs []*job
	if sess := s.sessions[sessionID]; sess != nil {
		jobs = slices.Clone(sess.jobs)
	}
	s.mu.Unlock()
	out := make([]Background, 0, len(jobs))
	for _, j := range jobs {
		out = append(out, j.info())
	}
	return out
}

// ErrNoCommand is returned for a background command ID the session does
// not have.
var ErrNoCommand = errors.New("no such background command")

func (s *Shell) job(sessionID, id string) (*job, []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sess := s.sessions[sessionID]
	if sess == nil {
		return nil, nil
	}
	var ids []string
	for _, j := range sess.jobs {
		if j.id == id {
			return j, nil
		}
		ids = append(ids, j.id)
	}
	return nil, ids
}

// Kill ends a session's background command as a whole tree (SIGTERM, a
// grace period, SIGKILL) and returns how it ended. Killing an ended
// command changes nothing.
func (s *Shell) Kill(sessionID, id string) (Background, error) {
	j, _ := s.job(sessionID, id)
	if j == nil {
		return Background{}, fmt.Errorf("background command %s of session %s: %w", id, sessionID, ErrNoCommand)
	}
	if _, done := j.proc.Result(); done {
		return j.info(), nil
	}
	err := j.kill()
	return j.info(), err
}

// read returns the job's output since the last read, capped for the model,
// and its status, with what the sandbox refused it once it ended.
func (j *job) read(s *Shell) (string, []event.Denial) {
	j.mu.Lock()
	defer j.mu.Unlock()
	data, next, lost := j.proc.Read(j.next)
	j.next = next
	res, done := j.proc.Result()
	var b strings.Builder
	if len(data) == 0 && lost == 0 {
		b.WriteString("(no new output)\n")
	} else {
		b.WriteString(showRead(data, lost).body())
	}
	b.WriteByte('\n')
	if !done {
		fmt.Fprintf(&b, "Status: running (PID %d) for %s; %s printed so far.", j.proc.PID(), duration(time.Since(j.started)),
			bytesText(next))
		return b.String(), nil
	}
	b.WriteString("Status: ")
	switch {
	case j.killed || res.Cancelled:
		fmt.Fprintf(&b, "ended by bash_kill (or the session) after %s; its whole process tree was ended.", duration(res.Duration))
	case res.TimedOut:
		fmt.Fprintf(&b, "timed out after %s (its timeout_ms); its whole process tree was ended.", duration(res.Duration))
	case res.Signal != "":
		fmt.Fprintf(&b, "killed by signal %s after %s.", res.Signal, duration(res.Duration))
	default:
		fmt.Fprintf(&b, "exited with code %d after %s.", res.ExitCode, duration(res.Duration))
	}
	fmt.Fprintf(&b, " It printed %s in %s in all.", plural(res.TotalLines, "line", "lines"), bytesText(res.TotalBytes))
	denials := s.explain(res.Denials)
	if len(denials) > 0 {
		b.WriteString("\n" + deniedText(denials))
	}
	for _, note := range j.notes {
		b.WriteString("\n" + note + ".")
	}
	return b.String(), denials
}
