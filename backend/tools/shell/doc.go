// Package shell holds the built-in shell tools: bash (a command in the
// session's working directory, in the foreground or in the background),
// bash_output (new output and status of a background command) and bash_kill
// (end a background command's process tree).
//
// Approval and sandbox. bash classifies what a call is about to do and asks
// the approval gateway through the RunContext; it never applies the mode
// table itself (package approval does). The action is
// approval.ShellPermanentDelete when approval.Command.PermanentDelete finds
// rm, rmdir, unlink, shred, find -delete, git clean -f and the like (asked
// first; Manual and Auto refuse it, and the model is told to use the delete
// tool), then approval.Shell for a command that runs in the sandbox, or
// approval.ShellEscalate for one that runs outside it: sandbox false with a
// reason, a machine where nothing can confine commands (sandbox.Probe), or
// Full Access. Full Access allows escalations without asking. The engine
// reads the session's mode once when a call starts, and the plan and the
// gateway's decision both use that one mode, so a switch mid-run applies to
// the next call whole.
//
// The result's sandbox note says what allowed the command when that was more
// than the mode's own allow: the user's answer, a session grant, a rule with
// its file, or Full Access (approval.Outcome.Reason).
//
// Where the machine's sandbox guarantees less (sandbox.Capability.Weaker,
// landlock+seccomp), or the walk for .git folders below stopped at its
// bounds, the action is approval.ShellWeakSandbox, which Auto asks about
// too, and the question says what is not guaranteed: the person decides
// knowing what the fallback does not hold.
//
// A command in the sandbox (Manual and Auto) may read the filesystem but
// the credential stores (CredentialStores), Foya's data folder
// (Options.Private, unless Options.Readable allows) and its database
// (Options.Database, always); write only the working directory, the
// session's temp folder and folders the user granted (Options.Granted); and
// reach no network. Inside them, every .git, .agents and .foya at any depth
// stays read-only, with the git folder a .git file names
// (a worktree's, a submodule's), its common folder and the hook folder of
// core.hooksPath: git and agents run what they hold later, outside any
// sandbox. A walk before each command finds them; it does not enter the
// protected folders nor follow links, and stops after 20000 folders or 2
// seconds, after which the command is asked about as above. .foya and
// .agents at the root are made empty while the command runs when missing,
// so that the command cannot create them with its own content, and removed
// once no command relies on them (the sandbox package says how), so the
// project is left without them. A missing .git is not made: an empty .git
// would be visible on the host (other programs read it meanwhile) and
// confuse git. Instead, when a
// sandboxed command ends (in the foreground, or in the background), a second
// walk finds the .git entries that appeared meanwhile (git init, a .git file
// naming a folder of the command's choice), and each is renamed to
// .git.sandboxed (os.Root, beneath the working directory), which git does
// not read; the model is told to make repositories with sandbox false. So
// `git init` in the sandbox succeeds, harmlessly: what it made never
// becomes a repository git uses. While the command still runs (a long
// background command) the new repository is in place, and one that
// something else made in the workspace during the command is renamed too
// (it is said in the result). Git commands that write an
// existing repository (commit, fetch, config) fail with "Read-only file
// system" and are run with sandbox false, which the user approves, with the
// command's prefix (git commit) as a session scope. TMPDIR and
// XDG_CACHE_HOME (with npm_config_cache and YARN_CACHE_FOLDER below it)
// point into the session's temp folder, which is created on
// first use as foya-<session ID> under Options.TempRoot and removed by
// DeleteSession and Close. Every Shell that uses a temp folder (in any
// process) holds a shared lock on foya-<session ID>.lock beside it, which
// the operating system drops when the process dies; Close removes a folder
// only when no other Shell holds it, and Sweep (the kernel calls it at
// start) removes every folder that nobody holds: what a crash left.
//
// Denials and grants. What the sandbox refused a command (sandbox.Denial,
// read from its output) is told to the model in the result's text and to
// the user as tools.Result.Denials (event.Denial): each with what the user
// may allow for it, a folder made writable (suggestFolder, if CheckFolder
// takes it) or the network. What the user allowed comes from
// Options.Granter for each command: granted folders are writable (made
// when missing), the network is on with the files still confined, and the
// grants for one command are spent once a command started with them.
// CheckFolder refuses the root, the home folder and above, system folders,
// and any folder that is, holds or lies inside a credential store or
// Foya's data, database or own files.
//
// Environment. In every mode, Full Access included, a command starts from
// Options.Environ: the kernel's environment without credentials (package
// secret decides which, with the user's shell.env.allow and shell.env.deny
// settings, and drops the provider's key whatever its variable is called).
// A command's output goes to the model, so Full Access lifts the sandbox,
// not this filter. Known secret values that still show up in output (read
// from a file, say) are masked by the engine, which sees every tool's
// result.
//
// Output. Combined stdout and stderr are kept in a bounded ring buffer (the
// sandbox runner's); a result keeps the tail within tools.ShellLimits and
// says exactly how many lines and bytes it left out
// (spec O2, O3). Text for the model is valid UTF-8, without terminal escape
// sequences; output that looks binary is summarised, not shown. While a
// foreground command runs, RunContext.Report receives {"tail": text} with
// its last lines, at most every 500ms (every 2s after 30s).
//
// Background commands (spec B1-B3) belong to a session, not to a run: they
// live across turns, are listed with List, and are killed as whole trees by
// bash_kill, Kill, DeleteSession and Close. A session runs at most
// MaxRunning of them at once and keeps at most MaxKept. Those whose
// changes are recorded are stored through Options.Jobs until their capture
// ran, so that recovery after a crash knows which were alive; until then,
// the look before a command records what changed since the last look
// against the newest of them, not as made outside Foya.
//
// It imports tools, approval, sandbox and libraries; never engine, store or
// kernel. A Shell and its tools are safe for concurrent use; no tool is
// parallel-safe (spec P5).
package shell
