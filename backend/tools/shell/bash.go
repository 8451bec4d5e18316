package shell

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"foya/backend/approval"
	"foya/backend/event"
	"foya/backend/sandbox"
	"foya/backend/tools"
)

//go:embed tool_bash.md
var bashDescription string

// Limits of a bash call.
const (
	DefaultTimeout = 2 * time.Minute
	MaxTimeout     = 10 * time.Minute
	// MaxCommandBytes bounds the command line.
	MaxCommandBytes = 1 << 20
	maxReasonBytes  = 2000
	maxWhyBytes     = 1000
	previewBytes    = 8 << 10
)

type bashTool struct{ s *Shell }

type bashArgs struct {
	Command         string `json:"command" jsonschema:"required,minLength=1"`
	TimeoutMS       *int64 `json:"timeout_ms" jsonschema:"minimum=1,maximum=600000" jsonschema_description:"Default 120000; none for background commands."`
	RunInBackground bool   `json:"run_in_background"`
	Sandbox         *bool  `json:"sandbox" jsonschema_description:"false: run outside the sandbox, if the user approves."`
	Reason          string `json:"reason" jsonschema_description:"Why sandbox: false, shown to the user."`
}

var bashSchema = tools.SchemaOf[bashArgs]()

// Spec implements tools.Tool.
func (bashTool) Spec() tools.Spec {
	return tools.Spec{
		Name:        BashName,
		Description: strings.TrimSpace(bashDescription),
		Exposure:    tools.Direct,
		Schema:      bashSchema,
	}
}

// plan is how a call will run, decided before asking.
type plan struct {
	mode       approval.Mode
	restricted bool
	kind       approval.Kind
	why        string
	// unavailable is why no sandbox can confine commands here, when that
	// is what makes the command run unrestricted.
	unavailable string
	escalated   bool
	// weaker is what this machine's sandbox does not guarantee (or what
	// the walk for protected folders could not cover): Auto asks too.
	weaker string
	// protect is what keeps the workspace's .git, .agents and .foya
	// folders read-only.
	protect protection
	// allowedBy is what allowed the command to run (a mode, a rule, a
	// grant, the user's answer), from the approval's outcome.
	allowedBy string
	// grants are the user's sandbox grants the command runs with.
	grants Grants
	// grantErr is why the grants could not be read (the command then
	// runs without them).
	grantErr error
}

func (s *Shell) plan(rc *tools.RunContext, a bashArgs) plan {
	mode, err := approval.ParseMode(rc.ApprovalMode)
	if err != nil {
		mode = approval.Manual // the strictest, when the mode is unknown
	}
	p := plan{mode: mode, restricted: true, kind: approval.Shell,
		why: "run a shell command in the sandbox (it writes only in the workspace and the session's temp folder, without network)"}
	switch {
	case mode == approval.FullAccess:
		p.restricted, p.kind = false, approval.ShellEscalate
		p.why = "run a shell command without a sandbox (the session is in Full Access)"
	case a.Sandbox != nil && !*a.Sandbox:
		p.restricted, p.kind, p.escalated = false, approval.ShellEscalate, true
		p.why = "run a shell command OUTSIDE the sandbox (it could write anywhere you can and use the network); the model's reason: " + a.Reason
	default:
		c := s.opts.Probe()
		if c.Mechanism == "" {
			p.restricted, p.kind = false, approval.ShellEscalate
			p.unavailable = c.Reason
			if p.unavailable == "" {
				p.unavailable = "no mechanism confines commands on this system"
			}
			p.why = "run a shell command WITHOUT a sandbox, because the sandbox is unavailable here (" + p.unavailable + ")"
			break
		}
		p.protect = protect(rc.Workdir)
		if s.opts.Granter != nil {
			p.grants, p.grantErr = s.opts.Granter.Grants(context.Background(), rc.SessionID)
			// A granted folder's repositories are as dangerous as the
			// workspace's.
			for _, g := range p.grants.Folders {
				more := protect(g)
				p.protect.paths = append(p.protect.paths, more.paths...)
				p.protect.gits = append(p.protect.gits, more.gits...)
				p.protect.incomplete = p.protect.incomplete || more.incomplete
			}
		}
		var weaker []string
		if c.Weaker != "" {
			weaker = append(weaker, "the sandbox here ("+c.Mechanism+") is weaker: "+c.Weaker)
		}
		if p.protect.incomplete {
			weaker = append(weaker, fmt.Sprintf("the workspace has more than %d folders, too many to find every .git in it: "+
				"a repository's .git below the first %d folders may be writable", maxProtectDirs, maxProtectDirs))
		}
		if len(weaker) > 0 {
			p.weaker = strings.Join(weaker, "; ")
			p.kind = approval.ShellWeakSandbox
			p.why = "run a shell command in a weaker sandbox (it writes only in the workspace and the session's temp folder, without network, but " +
				p.weaker + ")"
		}
		// The question says what the user allowed besides.
		if len(p.grants.Folders) > 0 {
			p.why = strings.Replace(p.why, " and the session's temp folder,", ", the session's temp folder and the folders you allowed,", 1)
		}
		if p.grants.Network {
			p.why = strings.Replace(p.why, ", without network", ", with the network you allowed", 1)
		}
	}
	return p
}

// Run implements tools.Tool.
func (t bashTool) Run(ctx context.Context, rc *tools.RunContext, call tools.Call) (tools.Result, error) {
	var a bashArgs
	if err := tools.Decode(call, &a); err != nil {
		return tools.Errorf("bash: %v", err), nil
	}
	if msg := a.check(); msg != "" {
		return tools.Errorf("bash: %s", msg), nil
	}
	if rc == nil || rc.Workdir == "" {
		return tools.Errorf("bash: this session has no working directory to run commands in"), nil
	}
	parsed, err := approval.ParseCommand(a.Command)
	if err != nil {
		return tools.Errorf("bash: %v; fix the syntax and try again", err), nil
	}
	p := t.s.plan(rc, a)
	preview := a.Command
	if len(preview) > previewBytes {
		preview = strings.ToValidUTF8(preview[:previewBytes], "") + fmt.Sprintf("\n… (%s more bytes)", num(int64(len(a.Command)-previewBytes)))
	}
	ask := func(kind approval.Kind, why string) (*tools.Result, error) {
		out, err := rc.Approve(ctx, approval.Request{
			CallID:  call.ID,
			Action:  approval.ShellAction(kind, call.Name, &parsed),
			Why:     why,
			Preview: preview,
		})
		if err != nil {
			return nil, fmt.Errorf("bash: approval: %w", err)
		}
		if out.Allowed {
			p.allowedBy = out.Reason
			return nil, nil
		}
		msg := out.Message
		if msg == "" {
			msg = "not approved"
		}
		if kind == approval.ShellPermanentDelete && !strings.Contains(msg, "delete tool") {
			msg += "; use the delete tool instead: it moves files to the trash"
		}
		r := tools.Errorf("bash: %s; the command did not run", msg)
		return &r, nil
	}
	if dels := parsed.PermanentDelete(); len(dels) > 0 {
		why := "the command deletes files for good: " + strings.Join(dels, "; ")
		if len(why) > maxWhyBytes {
			why = strings.ToValidUTF8(why[:maxWhyBytes], "") + " …"
		}
		if r, err := ask(approval.ShellPermanentDelete, why); r != nil || err != nil {
			return deref(r), err
		}
	}
	if r, err := ask(p.kind, p.why); r != nil || err != nil {
		return deref(r), err
	}
	cmd, err := t.s.command(rc, a, p)
	if err != nil {
		return tools.Errorf("bash: %v; the command did not run", err), nil
	}
	capErr := t.s.before(ctx, rc)
	if a.RunInBackground {
		return t.s.startBackground(rc, call.ID, a.Command, cmd, p, capErr)
	}
	rep := &reporter{rc: rc, start: time.Now()}
	cmd.OnOutput = rep.onOutput
	res, err := sandbox.Run(ctx, cmd)
	rep.stop()
	if err == nil {
		t.s.spend(rc.SessionID, p)
	}
	if err != nil && capErr == nil {
		// It did not start; whatever changed meanwhile is not its doing,
		// and the next command's Before finds it.
		t.s.after(ctx, rc, false)
	}
	if err != nil {
		if ctx.Err() != nil {
			return tools.Errorf("bash: cancelled before the command started"), nil
		}
		if errors.Is(err, sandbox.ErrUnavailable) {
			return tools.Errorf("bash: %v; the command did not run. Retry with sandbox: false and a reason to ask the user to run it without a sandbox", err), nil
		}
		return tools.Errorf("bash: could not start the command: %v", err), nil
	}
	out := t.s.foreground(res, p)
	if p.restricted {
		for _, note := range quarantine(rc.Workdir, p.protect) {
			out.Text += "\n" + note + "."
		}
	}
	if capErr != nil {
		out.Text += "\n" + captureNote(capErr)
	} else if fcs, note, err := t.s.after(ctx, rc, true); err != nil {
		out.Text += "\n" + captureNote(err)
	} else {
		out.FileChanges = withoutProtectDirs(fcs, rc.Workdir, p)
		if note != "" {
			out.Text += "\nFoya recorded its file changes only in part: " + note + "."
		}
	}
	return out, nil
}

// before brings the session's record of the workspace up to date before a
// command runs (see Capture). While a background command of the session
// whose changes are recorded is alive (or ended, its capture not yet
// run), what changed since the last look is taken for its doing, not for
// a change made outside Foya: it is recorded against the newest such
// command's call at once (so a crash cannot lose it), marked unconfirmed
// when there were more than one, since Foya cannot tell which made it.
// Without that, the look would take the change in and the command's own
// capture at its end would find nothing (the crash harness found it). It
// is one look under the session's change lock, released before the
// command runs: with two, a change the background command made between
// them was taken for an outside one.
func (s *Shell) before(ctx context.Context, rc *tools.RunContext) error {
	if s.opts.Capture == nil {
		return nil
	}
	release, err := rc.LockChanges(ctx)
	if err != nil {
		return err
	}
	defer release()
	return s.opts.Capture.Before(ctx, rc.SessionID, rc.Workdir, s.Live(rc.SessionID))
}

// Live returns the session's newest background command whose changes are
// recorded and not captured yet (see liveJob), nil when there is none: a
// look at the workspace now gives what changed to it.
func (s *Shell) Live(sessionID string) *Live {
	j, alive := s.liveJob(sessionID)
	if j == nil {
		return nil
	}
	return &Live{RunID: j.runID, CallID: j.callID, Others: alive > 1}
}

// liveJob returns the session's newest background command whose changes
// are recorded and not captured yet (it runs, or it ended and its capture
// has not looked yet: a look now would take its last changes in), and how
// many such there are.
func (s *Shell) liveJob(sessionID string) (*job, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sess := s.sessions[sessionID]
	if sess == nil {
		return nil, 0
	}
	var newest *job
	n := 0
	for _, j := range sess.jobs {
		if !j.capture {
			continue
		}
		j.mu.Lock()
		left := j.dropped || j.captured
		j.mu.Unlock()
		if !left {
			newest = j
			n++
		}
	}
	return newest, n
}

// after returns what the command changed. It runs whether or not the call
// was cancelled: a cancelled command's changes happened all the same. It
// takes the session's change lock and, with keep, leaves it to the engine,
// which releases it once the call's result, with these changes, is stored:
// a look in between (a background command's capture) would record them
// again, or its own changes before them.
func (s *Shell) after(ctx context.Context, rc *tools.RunContext, keep bool) ([]tools.FileChange, string, error) {
	if s.opts.Capture == nil {
		return nil, "", nil
	}
	ctx = context.WithoutCancel(ctx)
	release, err := rc.LockChanges(ctx)
	if err != nil {
		return nil, "", err
	}
	if !keep {
		defer release()
	}
	return s.opts.Capture.After(ctx, rc.SessionID, rc.Workdir)
}

// withoutProtectDirs drops the creation and the removal of the .foya and
// .agents folders at the root: a sandboxed command can do neither (they
// are read-only, and made empty while it runs when missing), so the
// change is Foya's (the empty folder it makes for one command and removes
// after the last, see the package doc) or another process's, never the
// command's.
func withoutProtectDirs(fcs []tools.FileChange, workdir string, p plan) []tools.FileChange {
	if !p.restricted {
		return fcs
	}
	wd, err := filepath.EvalSymlinks(workdir)
	if err != nil {
		return fcs
	}
	return slices.DeleteFunc(fcs, func(fc tools.FileChange) bool {
		return fc.IsDir && fc.ExistedBefore != fc.ExistsAfter && (fc.Path == filepath.Join(wd, ".foya") || fc.Path == filepath.Join(wd, ".agents"))
	})
}

// captureNote tells the model and the user that a command's file changes
// were not recorded.
func captureNote(err error) string {
	return "Foya could not record what this command changed in the workspace (" + err.Error() + "): its changes cannot be reviewed or reverted."
}

func deref(r *tools.Result) tools.Result {
	if r == nil {
		return tools.Result{}
	}
	return *r
}

// check validates the arguments beyond their JSON types (spec K1).
func (a *bashArgs) check() string {
	switch {
	case strings.TrimSpace(a.Command) == "":
		return "command is empty: give the shell command to run"
	case len(a.Command) > MaxCommandBytes:
		return fmt.Sprintf("command is %s long; at most %s: write long scripts to a file with the write tool and run the file",
			bytesText(int64(len(a.Command))), bytesText(MaxCommandBytes))
	case strings.IndexByte(a.Command, 0) >= 0:
		return "command contains a NUL character, which no shell command can hold"
	case a.TimeoutMS != nil && *a.TimeoutMS <= 0:
		return fmt.Sprintf("timeout_ms %d must be positive", *a.TimeoutMS)
	case a.TimeoutMS != nil && *a.TimeoutMS > MaxTimeout.Milliseconds():
		return fmt.Sprintf("timeout_ms %d is more than the maximum %d (10 minutes): use run_in_background for longer commands",
			*a.TimeoutMS, MaxTimeout.Milliseconds())
	case a.Sandbox != nil && !*a.Sandbox && strings.TrimSpace(a.Reason) == "":
		return "sandbox: false needs a reason: say why the command must write outside the workspace or use the network; the user reads it"
	case len(a.Reason) > maxReasonBytes:
		return fmt.Sprintf("reason is %s long; at most %s", bytesText(int64(len(a.Reason))), bytesText(maxReasonBytes))
	}
	return ""
}

// command builds the sandbox command for a call that was allowed.
func (s *Shell) command(rc *tools.RunContext, a bashArgs, p plan) (sandbox.Command, error) {
	cmd := sandbox.Command{Script: a.Command, Dir: rc.Workdir}
	switch {
	case a.TimeoutMS != nil:
		cmd.Timeout = time.Duration(*a.TimeoutMS) * time.Millisecond
	case !a.RunInBackground:
		cmd.Timeout = DefaultTimeout
	}
	env := map[string]string{"PAGER": "cat", "GIT_PAGER": "cat", "GIT_TERMINAL_PROMPT": "0"}
	if p.restricted {
		tmp, err := s.TempDir(rc.SessionID)
		if err != nil {
			return cmd, err
		}
		cache := filepath.Join(tmp, "cache")
		if err := os.MkdirAll(cache, 0o700); err != nil {
			return cmd, fmt.Errorf("session temp folder: %w", err)
		}
		env["TMPDIR"], env["XDG_CACHE_HOME"] = tmp, cache
		env["npm_config_cache"] = filepath.Join(cache, "npm")
		env["YARN_CACHE_FOLDER"] = filepath.Join(cache, "yarn")
		writable := []string{rc.Workdir, tmp}
		for _, g := range p.grants.Folders {
			// A granted folder that does not exist yet is made, as the
			// user picked it (CheckFolder took it).
			if err := os.MkdirAll(g, 0o755); err != nil {
				return cmd, fmt.Errorf("folder you allowed: %w", err)
			}
			writable = append(writable, g)
		}
		cmd.Policy = sandbox.Policy{
			Restricted: true,
			Network:    p.grants.Network,
			Writable:   writable,
			// Made empty while the command runs when missing, so that
			// the command cannot make them with its own content, and
			// removed after it (see sandbox.Policy.ReadOnly). A missing
			// .git is not made: an empty one
			// would confuse git (see the package documentation). Nor are
			// Foya's own files (Options.Own), read-only where they exist
			// in a writable folder and are not hidden: a command must
			// not rewrite the rules, keys or servers Foya trusts.
			ReadOnly:         []string{filepath.Join(rc.Workdir, ".foya"), filepath.Join(rc.Workdir, ".agents")},
			ReadOnlyIfExists: slices.Concat(p.protect.paths, s.opts.Own),
			Hidden:           s.hidden(),
		}
		if !p.grants.Network {
			cmd.Policy.Loopback = s.loopback(rc.SessionID, a.RunInBackground)
		}
	}
	cmd.Env = environ(s.opts.Environ(), env)
	return cmd, nil
}

// hidden lists what sandboxed commands may not read: the credential stores
// below the user's home and Options.Private, less what the user allows with
// Options.Readable, and Options.Database.
func (s *Shell) hidden() []string {
	var private []string
	if home, err := os.UserHomeDir(); err == nil && filepath.IsAbs(home) {
		private = CredentialStores(home)
	}
	private = append(private, s.opts.Private...)
	var readable []string
	if s.opts.Readable != nil {
		readable = s.opts.Readable()
	}
	out := slices.Clone(s.opts.Database)
	for _, p := range private {
		allowed := slices.ContainsFunc(readable, func(r string) bool {
			r = filepath.Clean(r)
			return filepath.IsAbs(r) && (p == r || strings.HasPrefix(p, r+string(filepath.Separator)))
		})
		if !allowed {
			out = append(out, p)
		}
	}
	return out
}

// environ is base (the environment filtered of secrets) with set replacing
// or adding variables.
func environ(base []string, set map[string]string) []string {
	var env []string
	for _, kv := range base {
		name, _, _ := strings.Cut(kv, "=")
		if _, ok := set[name]; !ok {
			env = append(env, kv)
		}
	}
	for k, v := range set {
		env = append(env, k+"="+v)
	}
	return env
}

// firstReport is how long a command runs before its output is sent as
// progress: most commands end sooner, and their result alone says it all,
// without a progress event to store and send. A variable for tests.
var firstReport = 200 * time.Millisecond

// reporter sends the live output tail as tool.update progress, throttled:
// not before firstReport, then at most every 500 ms (2 s after 30 s). Its
// methods are safe for concurrent use; nothing is reported after stop.
type reporter struct {
	rc    *tools.RunContext
	start time.Time

	mu    sync.Mutex
	last  time.Time
	tail  []byte // output that arrived before firstReport, not sent yet
	timer *time.Timer
	done  bool
}

func (r *reporter) onOutput(tail []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done {
		return
	}
	now := time.Now()
	if wait := firstReport - now.Sub(r.start); wait > 0 {
		r.tail = append(r.tail[:0], tail...)
		if r.timer == nil {
			r.timer = time.AfterFunc(wait, r.early)
		}
		return
	}
	gap := 500 * time.Millisecond
	if now.Sub(r.start) > 30*time.Second {
		gap = 2 * time.Second
	}
	if !r.last.IsZero() && now.Sub(r.last) < gap {
		return
	}
	r.report(now, tail)
}

// early sends the output that arrived before firstReport, once the command
// has run that long.
func (r *reporter) early() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.done && r.tail != nil && r.last.IsZero() {
		r.report(time.Now(), r.tail)
	}
}

func (r *reporter) report(now time.Time, tail []byte) {
	r.last = now
	r.tail = nil
	r.rc.Report(event.Progress{Tail: lastLines(tail)})
}

// stop ends the reports: once it returns, none is in progress and none
// follows, so the call's result is the last word.
func (r *reporter) stop() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.done = true
	if r.timer != nil {
		r.timer.Stop()
	}
}

// foreground turns a finished command into the model's result.
func (s *Shell) foreground(res sandbox.Result, p plan) tools.Result {
	sh := showResult(res.Output, res.DroppedBytes, res.DroppedLines, res.TotalBytes, res.TotalLines)
	var b strings.Builder
	b.WriteString(sh.body())
	if res.TotalBytes == 0 {
		b.WriteString("(no output)\n")
	}
	b.WriteByte('\n')
	b.WriteString(ending(res))
	b.WriteByte(' ')
	b.WriteString(sandboxNote(res.Sandbox, p))
	denials := s.explain(res.Denials)
	switch {
	case len(denials) > 0:
		b.WriteString("\n" + deniedText(denials))
	case p.restricted && res.TotalBytes == 0 && res.ExitCode != 0 && !res.TimedOut && !res.Cancelled:
		// Some refusals print nothing (a DNS lookup, UDP).
		b.WriteString("\n" + quietNote)
	}
	if sh.terminalWanted && (res.ExitCode != 0 || res.Signal != "") {
		b.WriteString("\n" + terminalNote)
	}
	if p.grantErr != nil {
		b.WriteString("\nThe folders and network the user allowed could not be read (" + p.grantErr.Error() + "): the command ran without them.")
	}
	out := tools.Result{Text: b.String(), IsError: res.TimedOut || res.Cancelled, Denials: denials}
	if !res.TimedOut && !res.Cancelled && res.Signal == "" {
		code := res.ExitCode
		out.ExitCode = &code
	}
	return out
}

// ending says how a command ended.
func ending(res sandbox.Result) string {
	switch {
	case res.TimedOut:
		return fmt.Sprintf("Timed out after %s: the command's whole process tree was ended (SIGTERM, then SIGKILL). "+
			"Give a larger timeout_ms (at most 600000) or use run_in_background for long commands.", duration(res.Duration))
	case res.Cancelled:
		return fmt.Sprintf("Cancelled after %s: the command's whole process tree was ended.", duration(res.Duration))
	case res.Signal != "":
		return fmt.Sprintf("Killed by signal %s after %s.", res.Signal, duration(res.Duration))
	}
	return fmt.Sprintf("Exit code %d after %s.", res.ExitCode, duration(res.Duration))
}

// sandboxNote says what confined the command and what allowed it to run.
func sandboxNote(mechanism string, p plan) string {
	by := ""
	if p.allowedBy != "" {
		by = ", " + p.allowedBy
	}
	switch {
	case p.restricted && p.allowedBy != "" && !strings.HasPrefix(p.allowedBy, "allowed by "+p.mode.Title()):
		return "Sandbox: " + mechanism + ". " + strings.ToUpper(p.allowedBy[:1]) + p.allowedBy[1:] + "."
	case p.restricted:
		return "Sandbox: " + mechanism + "."
	case p.unavailable != "":
		return "It ran WITHOUT a sandbox, because the sandbox is unavailable here (" + p.unavailable + ")" + by + "."
	case p.escalated:
		return "It ran outside the sandbox" + by + "."
	}
	return "No sandbox (Full Access)" + by + "."
}

const quietNote = "It failed without a word. If it needed the network or a write outside the workspace, which the sandbox forbids, " +
	"the user can allow a folder or the network for the session without leaving the sandbox (Settings, Sandbox; say which); " +
	"or call bash again with sandbox: false and a reason: the user will be asked."

// spend drops the one-command grants a command started with.
func (s *Shell) spend(sessionID string, p plan) {
	if s.opts.Granter != nil && len(p.grants.Once) > 0 {
		// A failure leaves them for one more command: nothing wider.
		_ = s.opts.Granter.Spent(context.Background(), sessionID, p.grants.Once)
	}
}

var _ tools.Tool = bashTool{}

// Hidden lists what sandboxed processes may not read, as for a command:
// other sandboxed programs the kernel starts (MCP servers) hide the same.
func (s *Shell) Hidden() []string { return s.hidden() }
