// Package cli implements foya's command line: exec (one headless run),
// serve (the UI over HTTP on the loopback interface),
// sessions and show (stored history), settings, providers (named model
// servers), sandbox (a session's sandbox grants), doctor (what works on
// this machine), and --version. Flags and
// exit codes are a contract that docs, tests and benchmarks rely on.
//
// It imports kernel, provider and the vocabulary packages; never the Wails
// runtime.
package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"

	"foya/backend/kernel"
	"foya/backend/sandbox"
	"foya/backend/tools"
)

// Exit codes of foya commands.
const (
	ExitOK        = 0
	ExitFailed    = 1
	ExitUsage     = 2
	ExitCancelled = 130
)

// Env is what a command runs with: its standard streams, its environment,
// and extra tools to register (tests and adapters).
type Env struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Getenv         func(string) string
	Tools          []tools.Tool
	// Interrupt, if set, delivers interrupts (SIGINT, SIGTERM) to exec; nil
	// means the process's signals.
	Interrupt <-chan os.Signal
	// Interactive makes exec ask approval questions on Stdin/Stderr even
	// when Stdin is not a terminal (tests).
	Interactive bool
	// Probe, if set, replaces sandbox.Probe for exec's kernel (tests of a
	// machine with another sandbox mechanism).
	Probe func() sandbox.Capability
}

// Main runs the command line with the process's standard streams and
// returns the exit code. With FOYA_CPUPROFILE or FOYA_MEMPROFILE set to a
// file, it writes a CPU profile of the command, or an allocation profile at
// its end, there (runtime/pprof; read with go tool pprof): how
// docs/benchmarks.md profiles foya exec.
func Main(args []string) int {
	if p := os.Getenv("FOYA_CPUPROFILE"); p != "" {
		if f, err := os.Create(p); err == nil {
			if pprof.StartCPUProfile(f) == nil {
				defer func() {
					pprof.StopCPUProfile()
					f.Close()
				}()
			}
		}
	}
	if p := os.Getenv("FOYA_MEMPROFILE"); p != "" {
		runtime.MemProfileRate = 64 << 10
		defer func() {
			if f, err := os.Create(p); err == nil {
				pprof.Lookup("allocs").WriteTo(f, 0)
				f.Close()
			}
		}()
	}
	return Run(context.Background(), args, Env{})
}

// Run runs one command; args exclude the program name.
func Run(ctx context.Context, args []string, env Env) int {
	if env.Stdin == nil {
		env.Stdin = os.Stdin
	}
	if env.Stdout == nil {
		env.Stdout = os.Stdout
	}
	if env.Stderr == nil {
		env.Stderr = os.Stderr
	}
	if env.Getenv == nil {
		env.Getenv = os.Getenv
	}
	// Model and tool text reaches these streams in many places: none of
	// it may control the terminal (see termWriter).
	env.Stdout, env.Stderr = newTermWriter(env.Stdout), newTermWriter(env.Stderr)
	if len(args) == 0 {
		usage(env.Stderr)
		return ExitUsage
	}
	switch args[0] {
	case sandbox.HelperArg:
		// The sandbox runner re-executes foya to confine a command.
		return sandbox.HelperMain(args[1:])
	case "exec":
		return execCmd(ctx, args[1:], env)
	case "serve":
		return serveCmd(ctx, args[1:], env)
	case "sessions":
		return sessionsCmd(ctx, args[1:], env)
	case "show":
		return showCmd(ctx, args[1:], env)
	case "settings":
		return settingsCmd(ctx, args[1:], env)
	case "providers":
		return providersCmd(ctx, args[1:], env)
	case "mode":
		return modeCmd(ctx, args[1:], env)
	case "sandbox":
		return sandboxCmd(ctx, args[1:], env)
	case "compact":
		return compactCmd(ctx, args[1:], env)
	case "fork":
		return forkCmd(ctx, args[1:], env)
	case "rules":
		return rulesCmd(ctx, args[1:], env)
	case "hooks":
		return hooksCmd(ctx, args[1:], env)
	case "mcp":
		return mcpCmd(ctx, args[1:], env)
	case "changes":
		return changesCmd(ctx, args[1:], env)
	case "diff":
		return diffCmd(ctx, args[1:], env)
	case "patch":
		return patchCmd(ctx, args[1:], env)
	case "revert":
		return revertCmd(ctx, args[1:], env)
	case "apply":
		return applyCmd(ctx, args[1:], env)
	case "discard":
		return discardCmd(ctx, args[1:], env)
	case "version", "--version", "-version", "-v":
		fmt.Fprintln(env.Stdout, versionLine(kernel.BuildInfo()))
		return ExitOK
	case "doctor":
		return doctorCmd(ctx, args[1:], env)
	case "help", "--help", "-help", "-h":
		usage(env.Stdout)
		return ExitOK
	}
	fmt.Fprintf(env.Stderr, "foya: unknown command %q\n\n", args[0])
	usage(env.Stderr)
	return ExitUsage
}

// versionLine is what foya --version prints: "foya 1.2.3 (commit abc1234,
// 2026-12-01)", with what is unknown left out.
func versionLine(i kernel.Info) string {
	var extra []string
	if i.Commit != "" {
		extra = append(extra, "commit "+i.Commit)
	}
	if i.Date != "" {
		extra = append(extra, i.Date)
	}
	if len(extra) == 0 {
		return "foya " + i.Version
	}
	return fmt.Sprintf("foya %s (%s)", i.Version, strings.Join(extra, ", "))
}

func usage(w io.Writer) {
	fmt.Fprint(w, `Usage:
  foya                      start the desktop app
  foya exec [flags] PROMPT  run the agent once, headless (PROMPT "-" reads standard input);
                            --isolated runs a new session in a worktree or copy of the folder
  foya serve [--port N] [--open]
                            serve the UI and its API on 127.0.0.1; prints the URL to open first
  foya sessions [--json]    list stored sessions
  foya show [--json] SESSION
                            print a session's runs and history
  foya changes [--json] [SESSION]
                            list a session's file changes (default: the latest session)
  foya diff CHANGE          print the unified diff of one change
  foya patch [-o FILE] SESSION
                            a session's net change as one patch that git apply applies
  foya revert CHANGE... | --run RUN | --to CHANGE [--hunk N] [--force] [--json]
                            undo changes; a revert is a change too, so it can be undone
  foya apply [--preview] [--take PATH]... [--json] SESSION
                            bring an isolated session's change into its folder; exit 3 with
                            conflicts (files the folder changed too, left as they are, listed)
  foya discard SESSION      remove an isolated session's copy (a worktree with its branch)
  foya settings [--json]    print the settings in force; foya settings set KEY VALUE changes one
  foya settings list [--json]
                            every key with its value, default and what it takes (foya settings help)
  foya providers add NAME --base-url URL --model M [--header K=V]... [--api-key-stdin]
  foya providers edit|list [--json]|remove|test|default ...
                            named model servers; keys go to the system keyring (foya providers help)
  foya mode SESSION MODE    switch a session's approval mode (recorded in its history)
  foya sandbox [allow|revoke] SESSION ...
                            what a session's sandboxed commands may write or reach beyond the
                            workspace (foya sandbox help)
  foya compact [--json] [--undo ID] SESSION
                            have the model summarise a session's older messages now, or undo that
  foya fork [--at N] [--files-now] [--json] SESSION
                            a new session with the history before prompt N (0: all); prints its ID
  foya mcp add|list|remove|import|approve|tools|call ...
                            MCP servers: yours, and a project's once approved (foya mcp help)
  foya rules [allow|revoke] [--workdir DIR]
                            show the project's .foya/permissions.json and whether you approved
                            it; allow approves its exact content, revoke withdraws that
  foya hooks [allow|revoke] [--workdir DIR] [--json]
                            list the hooks in effect (yours and the project's .foya/hooks.json)
                            and whether they run; allow approves the project's file as it is
  foya doctor [--json]      check this machine: folders, database, sandbox, trash, providers
  foya --version            print the version, the commit and its date

Run "foya exec --help" for the flags of exec.
`)
}

// parse parses flags and positional arguments in any order. A negative
// number where a positional argument may stand is one ("foya settings set
// run.max_steps -1" reaches the setting's own check), not an unknown flag.
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		cut := len(args)
		for i, a := range args {
			if a == "--" {
				break
			}
			if negativeNumber(a) && (i == 0 || !takesValue(fs, args[i-1])) {
				cut = i
				break
			}
		}
		if err := fs.Parse(args[:cut]); err != nil {
			return nil, err
		}
		rest := slices.Concat(fs.Args(), args[cut:])
		if len(rest) == 0 {
			return pos, nil
		}
		if rest[0] == "--" {
			return append(pos, rest[1:]...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// negativeNumber reports whether an argument is a number below zero.
func negativeNumber(a string) bool {
	if len(a) < 2 || a[0] != '-' {
		return false
	}
	_, err := strconv.ParseFloat(a, 64)
	return err == nil || errors.Is(err, strconv.ErrRange)
}

// takesValue reports whether an argument is a flag of fs whose value is the
// next argument.
func takesValue(fs *flag.FlagSet, a string) bool {
	if !strings.HasPrefix(a, "-") || strings.Contains(a, "=") {
		return false
	}
	f := fs.Lookup(strings.TrimLeft(a, "-"))
	if f == nil {
		return false
	}
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return !ok || !b.IsBoolFlag()
}

// newFlags returns a command's flag set, writing to the command's standard
// error, with the --db flag every command that reads the store has.
func newFlags(name string, env Env) (*flag.FlagSet, *string) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	db := fs.String("db", "", "the SQLite database (default $FOYA_DB, else foya.db in the data folder)")
	return fs, db
}

// parseFlags parses a command's arguments; when it returns ok false, the
// command exits with code (0 after --help, 2 for a usage error, which the
// flag package has already explained).
func parseFlags(fs *flag.FlagSet, args []string) (pos []string, code int, ok bool) {
	pos, err := parse(fs, args)
	switch {
	case err == flag.ErrHelp:
		return nil, ExitOK, false
	case err != nil:
		return nil, ExitUsage, false
	}
	return pos, ExitOK, true
}

// openKernel opens the kernel for a command with a --db flag.
func openKernel(ctx context.Context, db string, env Env) (*kernel.Kernel, error) {
	k, err := kernel.Open(ctx, kernel.Options{DBPath: dbPath(db, env), Tools: env.Tools, Headless: true})
	if err == nil {
		noteReadOnly(k, env)
	}
	return k, err
}

// noteReadOnly says on standard error when the database could only be
// opened read-only.
func noteReadOnly(k *kernel.Kernel, env Env) {
	if info := k.Info(); info.ReadOnly != "" {
		fmt.Fprintf(env.Stderr, "notice: database %s is open read-only (%s): sessions can be read, nothing can be changed\n", info.DBPath, info.ReadOnly)
	}
}

// dbPath is the --db flag, else $FOYA_DB (kernel.Open falls back to the data
// folder).
func dbPath(flagValue string, env Env) string {
	if flagValue != "" {
		return flagValue
	}
	return env.Getenv("FOYA_DB")
}

// errUsage marks a usage error.
type errUsage struct{ msg string }

func (e errUsage) Error() string { return e.msg }

func fail(env Env, err error) int {
	fmt.Fprintf(env.Stderr, "foya: %v\n", err)
	var u errUsage
	if errors.As(err, &u) || errors.Is(err, flag.ErrHelp) {
		return ExitUsage
	}
	return ExitFailed
}

func firstLine(s string, max int) string {
	s = strings.TrimSpace(s)
	line, _, more := strings.Cut(s, "\n")
	if r := []rune(line); len(r) > max {
		return string(r[:max-1]) + "…"
	}
	if more {
		return line + " …"
	}
	return line
}

// printJSON writes v as indented JSON, what every --json listing prints.
func printJSON(w io.Writer, v any) {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.Encode(v)
}
