package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"

	"github.com/mattn/go-isatty"

	"foya/backend/approval"
	"foya/backend/engine"
	"foya/backend/event"
	"foya/backend/kernel"
	"foya/backend/llm"
	"foya/backend/profiles"
	"foya/backend/sandbox"
	"foya/backend/settings"
)

type headerFlags map[string]string

// folderFlags are the folders of a repeated flag.
type folderFlags []string

func (f *folderFlags) String() string { return strings.Join(*f, ",") }
func (f *folderFlags) Set(v string) error {
	if strings.TrimSpace(v) == "" {
		return errors.New("empty folder")
	}
	*f = append(*f, v)
	return nil
}

// allowSandbox stores exec's --allow-write and --allow-network as the
// session's sandbox grants.
func allowSandbox(ctx context.Context, k *kernel.Kernel, sessionID string, folders []string, network bool) error {
	for _, f := range folders {
		if _, err := k.AllowSandbox(ctx, sessionID, kernel.SandboxAllow{Kind: kernel.SandboxWrite, Folder: absFolder(f)}); err != nil {
			return fmt.Errorf("--allow-write: %w", err)
		}
	}
	if network {
		if _, err := k.AllowSandbox(ctx, sessionID, kernel.SandboxAllow{Kind: kernel.SandboxNetwork}); err != nil {
			return fmt.Errorf("--allow-network: %w", err)
		}
	}
	return nil
}

func (h headerFlags) String() string { return "" }
func (h headerFlags) Set(v string) error {
	// NAME=VALUE, or NAME: VALUE as HTTP writes it: whichever comes
	// first separates (a value may hold the other).
	eq, colon := strings.IndexByte(v, '='), strings.IndexByte(v, ':')
	if eq < 0 && colon < 0 {
		return fmt.Errorf("want NAME=VALUE or \"NAME: VALUE\", got %q", v)
	}
	k, val := "", ""
	if eq >= 0 && (colon < 0 || eq < colon) {
		k, val = v[:eq], v[eq+1:]
	} else {
		k, val = v[:colon], strings.TrimSpace(v[colon+1:])
	}
	if strings.TrimSpace(k) == "" {
		return fmt.Errorf("want NAME=VALUE or \"NAME: VALUE\", got %q", v)
	}
	h[strings.TrimSpace(k)] = val
	return nil
}

func execCmd(ctx context.Context, args []string, env Env) int {
	fs, db := newFlags("foya exec", env)
	baseURL := fs.String("base-url", env.Getenv("OPENAI_BASE_URL"), "OpenAI-compatible API base URL (default $OPENAI_BASE_URL, else the provider profile's, else OpenAI's)")
	apiKey := fs.String("api-key", env.Getenv("OPENAI_API_KEY"), "API key (default $OPENAI_API_KEY)")
	model := fs.String("model", env.Getenv("FOYA_MODEL"), "model name (default $FOYA_MODEL, else the provider profile's)")
	profile := fs.String("provider", "", "the provider profile to use (see foya providers; default: the session's, else the default profile)")
	workdir := fs.String("workdir", "", "the project folder the agent works in (default: the current folder)")
	mode := fs.String("approval", "", "approval mode: manual, auto or full-access (default: the session's, else manual)")
	sessionID := fs.String("session", "", "continue this session instead of starting a new one")
	maxSteps := fs.String("max-steps", "", fmt.Sprintf("most model steps in this run, 1 to %d (default: the run.max_steps setting, else %d)", engine.MaxStepsLimit, engine.DefaultMaxSteps))
	asJSON := fs.Bool("json", false, "print every event as one JSON object per line")
	isolated := fs.Bool("isolated", false, "run a new session in an isolated copy of the folder: a git worktree on a branch of its own for a repository, else a copy (foya apply SESSION brings its change back, foya discard SESSION removes it)")
	isolation := fs.String("isolation", "", "like --isolated, choosing the copy: worktree or copy")
	branch := fs.String("branch", "", "with --isolated, the worktree's new branch (default foya/SESSION)")
	headers := headerFlags{}
	fs.Var(headers, "header", "extra HTTP header NAME=VALUE for the model server (repeatable)")
	var allowWrite folderFlags
	fs.Var(&allowWrite, "allow-write", "let the session's sandboxed commands write this folder too, for the session (repeatable; see foya sandbox)")
	allowNetwork := fs.Bool("allow-network", false, "turn the network on for the session's sandboxed commands; their files stay confined (see foya sandbox)")
	fs.Usage = func() {
		fmt.Fprintln(env.Stderr, "Usage: foya exec [flags] PROMPT\n\nRuns the agent once on PROMPT (\"-\" reads it from standard input) and prints its events.\nExit codes: 0 completed, 1 failed, 2 usage error, 130 cancelled.\n\nFlags:")
		fs.PrintDefaults()
	}
	pos, code, ok := parseFlags(fs, args)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		fmt.Fprintln(env.Stderr, "foya exec: give exactly one PROMPT (quote it), or \"-\" to read it from standard input")
		return ExitUsage
	}
	prompt := pos[0]
	if prompt == "-" {
		b, err := io.ReadAll(io.LimitReader(env.Stdin, 8<<20))
		if err != nil {
			return fail(env, fmt.Errorf("read the prompt from standard input: %w", err))
		}
		prompt = string(b)
	}
	if strings.TrimSpace(prompt) == "" {
		fmt.Fprintln(env.Stderr, "foya exec: the prompt is empty")
		return ExitUsage
	}
	steps := 0 // the setting's
	if isSet(fs, "max-steps") {
		n, err := settings.ParseMaxSteps(*maxSteps)
		if err != nil {
			fmt.Fprintf(env.Stderr, "foya exec: --max-steps: %v\n", err)
			return ExitUsage
		}
		steps = n
	}
	iso := kernel.IsolationNone
	switch {
	case *isolation != "":
		if *isolation != kernel.IsolationWorktree && *isolation != kernel.IsolationCopy && *isolation != kernel.IsolationAuto {
			fmt.Fprintf(env.Stderr, "foya exec: --isolation %q: give worktree or copy (or --isolated to let Foya choose)\n", *isolation)
			return ExitUsage
		}
		iso = *isolation
	case *isolated:
		iso = kernel.IsolationAuto
	case *branch != "":
		fmt.Fprintln(env.Stderr, "foya exec: --branch names an isolated session's worktree branch: add --isolated")
		return ExitUsage
	}
	if iso != kernel.IsolationNone && *sessionID != "" {
		fmt.Fprintln(env.Stderr, "foya exec: --isolated starts a new session; a session continued with --session works where it was made")
		return ExitUsage
	}
	if *mode != "" {
		if _, err := approval.ParseMode(*mode); err != nil {
			fmt.Fprintf(env.Stderr, "foya exec: --approval: %v\n", err)
			return ExitUsage
		}
	}

	interactive := isTerminal(env.Stdin) || env.Interactive
	// The provider's key never reaches a command or a stored result,
	// whatever variable holds it.
	k, err := kernel.Open(ctx, kernel.Options{DBPath: dbPath(*db, env), Tools: env.Tools, Headless: !interactive, Probe: env.Probe,
		Secrets: providerSecrets(*apiKey, headers)})
	if err != nil {
		return fail(env, err)
	}
	defer k.Close()
	noteReadOnly(k, env)
	for _, f := range allowWrite {
		if _, err := k.CheckSandboxFolder(absFolder(f)); err != nil {
			fmt.Fprintf(env.Stderr, "foya exec: --allow-write: %v\n", err)
			return ExitUsage
		}
	}

	var sess kernel.Session
	if *sessionID != "" {
		sess, err = k.Session(ctx, *sessionID)
		if err != nil {
			if kernel.IsNotFound(err) {
				fmt.Fprintf(env.Stderr, "foya exec: no session %s (see foya sessions)\n", *sessionID)
				return ExitUsage
			}
			return fail(env, err)
		}
		changed := false
		switch {
		case isSet(fs, "model") && *model != sess.Model:
			sess.Model, changed = *model, true
		case sess.Model != "":
			*model = sess.Model
		case *model != "":
			sess.Model, changed = *model, true
		}
		if *mode != "" {
			m, _ := approval.ParseMode(*mode)
			if string(m) != sess.ApprovalMode {
				if err := k.SetMode(ctx, sess.ID, string(m)); err != nil {
					return fail(env, err)
				}
				sess.ApprovalMode = string(m)
			}
		}
		if changed {
			if err := k.UpdateSession(ctx, sess); err != nil {
				return fail(env, err)
			}
		}
	}
	// The kernel builds the model from the profile (the --provider flag,
	// else the session's, else the default one) under the flags and
	// environment variables, which win.
	choice := profiles.ModelChoice{Provider: *profile, Session: sess.Provider, BaseURL: *baseURL, Model: *model, Headers: headers}
	if isSet(fs, "api-key") {
		choice.APIKey = *apiKey
	} else {
		choice.EnvAPIKey = *apiKey
	}
	if isSet(fs, "provider") && *profile != sess.Provider && !isSet(fs, "model") {
		// Another profile's server: its model, unless FOYA_MODEL names one.
		choice.Model = env.Getenv("FOYA_MODEL")
	}
	client, profileName, modelName, err := k.Profiles().Client(ctx, choice)
	switch {
	case errors.Is(err, profiles.ErrInvalidProvider) || errors.Is(err, profiles.ErrProviderNotFound):
		fmt.Fprintf(env.Stderr, "foya exec: %v\n", err)
		return ExitUsage
	case err != nil:
		return fail(env, err)
	}
	if choice.BaseURL != "" && choice.APIKey == "" && choice.EnvAPIKey == "" && profileName != profiles.NoProvider {
		if p, err := k.Profiles().Get(ctx, profileName); err == nil && p.KeyStore != "" && !profiles.SameServer(choice.BaseURL, p.BaseURL) {
			fmt.Fprintf(env.Stderr, "foya: notice: the key of provider %s goes only to its own server (%s), not to %s; "+
				"pass --api-key or set OPENAI_API_KEY if that server needs one\n", profileName, p.BaseURL, choice.BaseURL)
		}
	}
	*model = modelName
	// The model's window, from the profile when the run talks to its own
	// server; one given by URL is not asked.
	var window engine.Window
	if profileName != profiles.NoProvider {
		if p, err := k.Profiles().Get(ctx, profileName); err == nil && (choice.BaseURL == "" || profiles.SameServer(choice.BaseURL, p.BaseURL)) {
			window = k.RunWindow(ctx, profileName, modelName)
		}
	}
	if sess.ID != "" && (sess.Provider != profileName || sess.Model != modelName) {
		sess.Provider, sess.Model = profileName, modelName
		if err := k.UpdateSession(ctx, sess); err != nil {
			return fail(env, err)
		}
	}
	// Subscribed before the session is made: an isolated session's setup
	// command starts with it, and its events are printed as the run's are.
	tap := &eventTap{}
	unsub := k.Subscribe(tap.add)
	defer unsub()
	if sess.ID == "" {
		dir := *workdir
		if dir == "" {
			if dir, err = os.Getwd(); err != nil {
				return fail(env, err)
			}
		}
		m := *mode
		if m == "" {
			def, err := k.DefaultMode(ctx)
			if err != nil {
				return fail(env, err)
			}
			m = string(def)
		}
		sess, err = k.CreateSession(ctx, kernel.NewSession{
			Workdir: dir, ApprovalMode: m, Provider: profileName, Model: modelName, Isolation: iso, Branch: *branch,
		})
		if err != nil {
			return fail(env, err)
		}
		if sess.Isolation != nil && !*asJSON {
			isolatedNotice(env, sess)
		}
	}

	if err := allowSandbox(ctx, k, sess.ID, allowWrite, *allowNetwork); err != nil {
		return fail(env, err)
	}

	probe := env.Probe
	if probe == nil {
		probe = sandbox.Probe
	}
	if c := probe(); c.Weaker != "" && !*asJSON && sess.ApprovalMode != string(approval.FullAccess) {
		// Issue 9 class 9: say so before anything runs; every command's
		// approval question (and, without a terminal, its refusal) repeats it.
		fmt.Fprintf(env.Stderr, "foya: notice: the sandbox here (%s) is weaker: %s; so every command asks first\n", c.Mechanism, c.Weaker)
	}
	if pr, err := k.ProjectRules(ctx, sess.Workdir); err == nil && pr.Status != kernel.RulesApproved && len(pr.Allow) > 0 {
		// Said once, before the run: the approval questions and refusals
		// say it again only where an ignored rule would have allowed.
		fmt.Fprintln(env.Stderr, "foya: "+approval.UnapprovedNotice)
	}
	out := newPrinter(env, *asJSON)
	ask := &asker{in: bufio.NewReader(env.Stdin), out: env.Stderr, answer: k.Answer}
	tap.start(sess.ID, func(ev llm.Event) {
		out.event(ev)
		if interactive && ev.Type == event.TypeApprovalRequest {
			go ask.ask(ev)
		}
	})
	// An MCP server's questions: the terminal asks approvals only, so they
	// are declined at once, with a note, and the notice printed.
	if interactive {
		k.DeclineElicitations("foya exec asks only approvals on the terminal, so it declined the MCP server's question (the app and foya serve show it as a form)")
	}
	defer k.SubscribeNotices(func(ev llm.Event) {
		if ev.SessionID == sess.ID && ev.Type == event.TypeMCPElicitation {
			out.event(ev)
		}
	})()

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sig := env.Interrupt
	if sig == nil {
		ch := make(chan os.Signal, 2)
		signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
		defer signal.Stop(ch)
		sig = ch
	}
	go func() {
		select {
		case <-sig:
		case <-ctx.Done():
			return
		}
		fmt.Fprintln(env.Stderr, "\nfoya: cancelling (interrupt again to quit at once)")
		cancel()
		select {
		case <-sig:
			os.Exit(ExitCancelled)
		case <-ctx.Done():
		}
	}()

	// An isolated session's setup command first (its events are printed).
	if err := k.WaitSetup(ctx, sess.ID); err != nil {
		out.finish()
		return ExitCancelled
	}
	run, err := k.Run(ctx, kernel.RunOptions{SessionID: sess.ID, Prompt: prompt, Model: client, MaxSteps: steps, Window: window})
	out.finish()
	if err != nil {
		return fail(env, err)
	}
	switch run.Status {
	case kernel.RunCompleted:
		return ExitOK
	case kernel.RunCancelled:
		return ExitCancelled
	}
	return ExitFailed
}

// eventTap keeps the setup events (isolation.setup) published before the
// session they are for is known, then hands that session's events to fn,
// those kept first, in the order they came, none twice and none lost.
// Other events of that time (a new session's session.mode) are not
// printed, as before there were setup commands.
type eventTap struct {
	mu   sync.Mutex
	id   string
	fn   func(llm.Event)
	kept []llm.Event
}

func (t *eventTap) add(ev llm.Event) {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case t.fn == nil:
		if ev.Type == event.TypeIsolationSetup {
			t.kept = append(t.kept, ev)
		}
	case ev.SessionID == t.id:
		t.fn(ev)
	}
}

func (t *eventTap) start(id string, fn func(llm.Event)) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.id, t.fn = id, fn
	for _, ev := range t.kept {
		if ev.SessionID == id {
			fn(ev)
		}
	}
	t.kept = nil
}

// isolatedNotice says where an isolated session works, and how its work
// comes back.
func isolatedNotice(env Env, sess kernel.Session) {
	i := sess.Isolation
	what := "a copy"
	if i.Kind == kernel.IsolationWorktree {
		what = "a git worktree on branch " + i.Branch
	}
	fmt.Fprintf(env.Stderr, "foya: session %s works in %s: %s\n", sess.ID, what, sess.Workdir)
	if n := len(i.Uncommitted); n > 0 {
		fmt.Fprintf(env.Stderr, "foya: notice: %d uncommitted change(s) of %s are not in the worktree, which starts at the last commit (first: %s)\n", n, i.Folder, i.Uncommitted[0])
	}
	if i.Note != "" {
		fmt.Fprintln(env.Stderr, "foya: notice: "+i.Note)
	}
	fmt.Fprintf(env.Stderr, "foya: foya apply %s brings its change into %s; foya discard %s removes the copy\n", sess.ID, i.Folder, sess.ID)
}

func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && isatty.IsTerminal(f.Fd())
}

func isSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) {
		if f.Name == name {
			set = true
		}
	})
	return set
}

// printer writes events as JSON lines, or readably: the assistant's text on
// standard output, tool activity and errors on standard error.
type printer struct {
	env     Env
	json    bool
	color   bool
	mu      sync.Mutex
	enc     *json.Encoder
	midLine bool              // the last text written did not end a line
	args    map[string]string // the streamed start of the arguments, by call ID (at most 4 KiB each)
}

func newPrinter(env Env, asJSON bool) *printer {
	p := &printer{env: env, json: asJSON, enc: json.NewEncoder(env.Stdout), args: map[string]string{}}
	if f, ok := raw(env.Stderr).(*os.File); ok && isatty.IsTerminal(f.Fd()) && env.Getenv("NO_COLOR") == "" {
		p.color = true
	}
	p.enc.SetEscapeHTML(false)
	return p
}

// line writes one line to standard error, in a color when colors are on.
// The color's sequences are Foya's own and go to the terminal as they are;
// s goes through the terminal filter like everything else.
func (p *printer) line(code, s string) {
	w := p.env.Stderr
	if p.color {
		io.WriteString(raw(w), "\x1b["+code+"m")
	}
	io.WriteString(w, s)
	if p.color {
		io.WriteString(raw(w), "\x1b[0m")
	}
	io.WriteString(w, "\n")
}

func (p *printer) event(ev llm.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.json {
		p.enc.Encode(ev)
		return
	}
	data := event.Payload(ev.Type)
	if data == nil || json.Unmarshal(ev.Data, data) != nil {
		return
	}
	if ev.ParentCallID != "" {
		p.subAgent(data)
		return
	}
	switch d := data.(type) {
	case *event.RunStartData:
		p.line("2", fmt.Sprintf("foya %s · %s · %s · %s", kernel.Version, d.Model, d.ApprovalMode, d.Workdir))
		if in := d.Instructions; in.Status != "" && in.Status != llm.InstructionsNone {
			p.line("2", "instructions: "+instructionsLine(in))
		}
	case *event.TextDeltaData:
		fmt.Fprint(p.env.Stdout, d.Text)
		p.midLine = !strings.HasSuffix(d.Text, "\n")
	case *event.MCPElicitationData:
		if d.State != event.ElicitPending {
			p.endLine()
			msg := fmt.Sprintf("  ? the MCP server %s asked: %s — %s", d.Server, firstLine(d.Message, 200), d.State)
			if d.Note != "" {
				msg += ": " + d.Note
			}
			p.line("33", msg)
		}
	case *event.ToolBeginData:
		p.endLine()
		p.line("36", "→ "+d.Name)
	case *event.ToolUpdateData:
		p.args[d.ID] += d.ArgsDelta
	case *event.ToolEndData:
		p.endLine()
		name := d.Name
		if a := argSummary(p.args[d.ID]); a != "" {
			name += " " + a
		}
		delete(p.args, d.ID)
		if d.IsError {
			p.line("31", fmt.Sprintf("  ✗ %s (%s): %s", name, d.Status, firstLine(d.Text, 200)))
		} else {
			p.line("32", fmt.Sprintf("  ✓ %s: %s", name, firstLine(d.Text, 200)))
		}
	case *event.HookRunData:
		p.hook(d, "  ")
	case *event.IsolationSetupData:
		p.endLine()
		switch d.State {
		case event.SetupRunning:
			p.line("2", "setup: $ "+firstLine(d.Command, 200))
		case event.SetupOutput:
			for _, l := range strings.Split(strings.TrimSuffix(d.Output, "\n"), "\n") {
				p.line("2", "  "+l)
			}
		case event.SetupSucceeded:
			p.line("32", fmt.Sprintf("  ✓ setup done (%d ms)", d.DurationMs))
		default:
			p.line("31", "  ✗ setup failed: "+d.Error)
		}
	case *event.ToolsActivatedData:
		p.line("2", "  tools activated: "+strings.Join(d.Names, ", "))
	case *event.TodoUpdatedData:
		done := 0
		for _, t := range d.Todos {
			if t.Status == event.TodoCompleted {
				done++
			}
		}
		p.line("2", fmt.Sprintf("  tasks: %d of %d completed", done, len(d.Todos)))
	case *event.RunEndData:
		p.endLine()
		switch d.Status {
		case llm.RunCompleted:
		case llm.RunCancelled:
			p.line("33", "run cancelled")
		default:
			p.line("31", fmt.Sprintf("run %s: %s", d.Status, d.Error))
		}
	}
}

// hook writes what a hook did (docs/hooks.md), when it did something: a
// failure, a file skipped, a denial, an ask, a note. A hook that answered
// nothing is not printed.
func (p *printer) hook(d *event.HookRunData, indent string) {
	who := fmt.Sprintf("%s hook %s", d.Source, d.Hook)
	because := func(why string) string {
		if why == "" {
			return ""
		}
		return ": " + firstLine(why, 200)
	}
	switch {
	case d.Status == event.HookSkipped:
		p.endLine()
		p.line("33", fmt.Sprintf("%s! the hooks of %s do not run%s", indent, d.File, because(d.Error)))
	case d.Status == event.HookFailed:
		p.endLine()
		p.line("31", fmt.Sprintf("%s! %s failed%s", indent, who, because(d.Error)))
	case d.Decision == "deny":
		p.line("31", fmt.Sprintf("%s✗ %s denied %s%s", indent, who, cmpOr(d.Tool, "the request"), because(d.Reason)))
	case d.Decision == "ask":
		p.line("33", fmt.Sprintf("%s? %s asks before %s%s", indent, who, d.Tool, because(d.Reason)))
	case d.Note != "":
		p.line("2", fmt.Sprintf("%s· %s: %s", indent, who, firstLine(d.Note, 200)))
	}
}

// cmpOr is s, or else when s is empty.
func cmpOr(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}

// subAgent writes a sub-agent's event (the task tool's child run) readably: its
// start, its tool calls and its end, indented on standard error. Its text
// is not the answer (the task call's result is), so it is not printed.
func (p *printer) subAgent(data any) {
	switch d := data.(type) {
	case *event.RunStartData:
		p.endLine()
		p.line("2", "  ⤷ sub-agent: "+firstLine(d.Description, 200))
	case *event.ToolUpdateData:
		p.args[d.ID] += d.ArgsDelta
	case *event.ToolEndData:
		name := d.Name
		if a := argSummary(p.args[d.ID]); a != "" {
			name += " " + a
		}
		delete(p.args, d.ID)
		if d.IsError {
			p.line("31", fmt.Sprintf("    ✗ %s (%s): %s", name, d.Status, firstLine(d.Text, 200)))
		} else {
			p.line("32", fmt.Sprintf("    ✓ %s: %s", name, firstLine(d.Text, 200)))
		}
	case *event.HookRunData:
		p.hook(d, "    ")
	case *event.RunEndData:
		if d.Status == llm.RunCompleted {
			p.line("2", "  ⤶ sub-agent done")
		} else {
			p.line("33", fmt.Sprintf("  ⤶ sub-agent %s: %s", d.Status, firstLine(d.Error, 200)))
		}
	}
}

// argSummary is the one argument that says most about a call (its path,
// command, pattern or query), or the arguments themselves, shortened. raw
// may be only the start of the arguments (events carry their first 4 KiB):
// the string fields that start holds whole still count.
func argSummary(raw string) string {
	var m map[string]any
	if json.Unmarshal([]byte(raw), &m) != nil {
		m = leadingFields(raw)
		if len(m) == 0 {
			return firstLine(raw, 80)
		}
	}
	for _, k := range []string{"command", "path", "pattern", "query", "ref", "id", "description"} {
		if v, ok := m[k].(string); ok && v != "" {
			return firstLine(v, 80)
		}
	}
	if len(m) == 0 {
		return ""
	}
	return firstLine(raw, 80)
}

// leadingFields returns the top-level string fields of an object whose
// text may be cut short, up to the first field it cannot read whole.
func leadingFields(raw string) map[string]any {
	dec := json.NewDecoder(strings.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	m := map[string]any{}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			break
		}
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			break
		}
		var s string
		if key, ok := k.(string); ok && json.Unmarshal(v, &s) == nil {
			m[key] = s
		}
	}
	return m
}

func (p *printer) endLine() {
	if p.midLine {
		fmt.Fprintln(p.env.Stdout)
		p.midLine = false
	}
}

func (p *printer) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.json {
		p.endLine()
	}
}

// providerSecrets are the values that let Foya talk to the model server:
// its API key and the values of extra headers (an Authorization header,
// an API key header), by the name a mask shows.
func providerSecrets(apiKey string, headers headerFlags) map[string]string {
	out := map[string]string{"provider API key": apiKey}
	for name, v := range headers {
		out["provider header "+name] = v
	}
	return out
}
