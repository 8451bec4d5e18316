package sandbox

import (
	"context"
	"errors"
	"os/exec"
	"sync"
	"time"
)

// Process is a running command, for background commands: its output can be
// read while it runs, and it can be killed as a whole tree.
type Process struct {
	pid     int
	out     *ring
	done    chan struct{}
	killReq chan struct{}
	onOut   func([]byte)
	sandbox string

	killOnce sync.Once

	mu     sync.Mutex
	result Result
	ended  bool
	sigErr error // the first failure to signal the tree
}

// tree is one started command as the platform code sees it.
type tree interface {
	// waitExited blocks until the command's leader has exited, without
	// reaping it, so that its process group cannot be reused meanwhile.
	waitExited()
	// signal sends SIGTERM (term true) or SIGKILL to the whole tree.
	signal(term bool) error
	// killRest kills what is left of the tree once the leader has exited,
	// before it is reaped, and waits (briefly) for it to die.
	killRest()
	// status is how the command ended, from the reaped leader's state.
	status(cmd *exec.Cmd) (exitCode int, signal string)
	// release frees what the tree holds, after the leader was reaped.
	release()
}

// PID is the operating system's ID of the command's leader process, which is
// also the ID of its process group.
func (p *Process) PID() int { return p.pid }

// Done is closed when the command and its output have ended.
func (p *Process) Done() <-chan struct{} { return p.done }

// Result returns the final result once the command is done, and false before.
func (p *Process) Result() (Result, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.result, p.ended
}

// Read returns the output produced from stream offset since on (0 is the
// start), the offset to pass next time, and how many bytes after since were
// lost because the bounded buffer overwrote them (spec B2). When bytes were
// lost, data starts at a UTF-8 boundary.
func (p *Process) Read(since int64) (data []byte, next int64, dropped int64) {
	return p.out.since(since)
}

// Kill ends the command's whole tree: SIGTERM to the group, a grace period of
// two seconds, then SIGKILL. It returns when the command is done; killing a
// finished command does nothing. The result then says Cancelled.
func (p *Process) Kill() error {
	p.killOnce.Do(func() { close(p.killReq) })
	<-p.done
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.sigErr
}

func newProcess(sp *spec, sandbox string) *Process {
	return &Process{
		out:     newRing(sp.TailBytes),
		done:    make(chan struct{}),
		killReq: make(chan struct{}),
		onOut:   sp.OnOutput,
		sandbox: sandbox,
	}
}

// supervise owns a started command until it is done: it applies the
// context, the timeout and Kill, kills what is left of the tree when the
// leader ends, reaps it and records the result.
func (p *Process) supervise(ctx context.Context, cmd *exec.Cmd, t tree, sp *spec, started time.Time) {
	exited := make(chan struct{})
	go func() {
		t.waitExited()
		close(exited)
	}()
	stopOut := make(chan struct{})
	outDone := make(chan struct{})
	go p.relayOutput(stopOut, outDone)

	var timeout <-chan time.Time
	if sp.Timeout > 0 {
		tm := time.NewTimer(sp.Timeout)
		defer tm.Stop()
		timeout = tm.C
	}
	ctxDone := ctx.Done()
	killReq := p.killReq
	var grace <-chan time.Time
	var timedOut, cancelled bool
	// stop runs once: it disables every trigger.
	stop := func() {
		ctxDone, killReq, timeout = nil, nil, nil
		p.noteSignalErr(t.signal(true))
		grace = time.After(killGrace)
	}
wait:
	for {
		select {
		case <-exited:
			break wait
		case <-ctxDone:
			cancelled = true
			stop()
		case <-killReq:
			cancelled = true
			stop()
		case <-timeout:
			timedOut = true
			stop()
		case <-grace:
			// Again after each grace period while the leader lives: a
			// reaping helper gets the first kill, SIGKILL the next.
			grace = time.After(killGrace)
			p.noteSignalErr(t.signal(false))
		}
	}
	duration := time.Since(started)
	// The leader is a zombie: its group ID cannot be reused yet, so killing
	// the group reaches only what the command left behind.
	t.killRest()
	waitErr := cmd.Wait()
	t.release()
	close(stopOut)
	<-outDone

	res := Result{Duration: duration, TimedOut: timedOut, Cancelled: cancelled, Sandbox: p.sandbox}
	res.ExitCode, res.Signal = t.status(cmd)
	if res.ExitCode == 0 && res.Signal == "" && waitErr != nil && !errors.Is(waitErr, exec.ErrWaitDelay) {
		var exitErr *exec.ExitError
		if !errors.As(waitErr, &exitErr) {
			res.ExitCode = -1
		}
	}
	tl := p.out.tally()
	res.Output = tl.output
	res.TotalBytes, res.TotalLines = tl.totalBytes, tl.totalLines
	res.DroppedBytes, res.DroppedLines = tl.droppedBytes, tl.droppedLines
	if sp.Policy.Restricted {
		res.Denials = denials(res.Output, sp, p.sandbox == "landlock" || p.sandbox == "landlock+seccomp")
		res.Denied = len(res.Denials) > 0
	}
	// Every process of the command is gone: the read-only folders it
	// needed may go too (after denials, which reads whether they
	// exist), before Done says it ended.
	sp.release()
	p.mu.Lock()
	p.result = res
	p.ended = true
	p.mu.Unlock()
	close(p.done)
}

func (p *Process) noteSignalErr(err error) {
	if err == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.sigErr == nil {
		p.sigErr = err
	}
}

// relayOutput calls OnOutput at most every 100ms while the command runs, and
// once more at the end if the output changed since.
func (p *Process) relayOutput(stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	if p.onOut == nil {
		return
	}
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
			if tail, ok := p.out.takeChanged(); ok {
				p.onOut(tail)
			}
		case <-stop:
			if tail, ok := p.out.takeChanged(); ok {
				p.onOut(tail)
			}
			return
		}
	}
}
