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
// Full Access. Full Access allows escalations without asking; classifying
// its commands as escalations keeps a mode switched mid-run on the safe
// side, because the gateway reads the session's current mode while the
// RunContext carries the mode of the run's start.
//
// A command in the sandbox (Manual and Auto) may read the filesystem, write
// only the working directory, the session's temp folder and folders the
// user granted (Options.Granted), not .foya inside the working directory,
// and reach no network. TMPDIR and XDG_CACHE_HOME point into the session's
// temp folder, which is created on first use as foya-<session ID> under
// Options.TempRoot and removed by DeleteSession and Close.
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
// MaxRunning of them at once and keeps at most MaxKept.
//
// It imports tools, approval, sandbox and libraries; never engine, store or
// kernel. A Shell and its tools are safe for concurrent use; no tool is
// parallel-safe (spec P5).
package shell
