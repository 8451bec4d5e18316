package cli

import (
	"context"
	"errors"
	"fmt"

	"foya/backend/kernel"
)

// forkCmd is foya fork: start a new session from a session's history
// before its Nth prompt (kernel.ForkSessionWith) and print the new
// session's ID, alone on its line, for scripts. A fork of an isolated
// session gets its own copy with the files as they were at that prompt;
// when some cannot be, it is refused (exit 1) naming them, and
// --files-now forks with the files as they are now. The prompt's text, which the fork
// is to send in its place, goes to standard error; --json prints both.
func forkCmd(ctx context.Context, args []string, env Env) int {
	fs, db := newFlags("foya fork", env)
	at := fs.Int("at", 0, "fork before the session's Nth prompt (1 is the first); 0 forks the whole session")
	asJSON := fs.Bool("json", false, "print the new session and the prompt's text (draft) as JSON")
	filesNow := fs.Bool("files-now", false, "for an isolated session: give the fork's copy the session's files as they are now, none taken back to the prompt (when some cannot be)")
	pos, code, ok := parseFlags(fs, args)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		fmt.Fprintln(env.Stderr, "usage: foya fork [--at N] [--files-now] [--json] SESSION")
		return ExitUsage
	}
	if *at < 0 {
		fmt.Fprintf(env.Stderr, "foya fork: --at %d: give a prompt number from 1 (the session's first prompt), or 0 for the whole session\n", *at)
		return ExitUsage
	}
	k, err := openKernel(ctx, *db, env)
	if err != nil {
		return fail(env, err)
	}
	defer k.Close()
	f, err := k.ForkSessionWith(ctx, kernel.ForkOptions{SessionID: pos[0], AtPrompt: *at, FilesNow: *filesNow})
	switch {
	case kernel.IsNotFound(err):
		fmt.Fprintf(env.Stderr, "foya fork: no session %s (see foya sessions)\n", pos[0])
		return ExitUsage
	case errors.Is(err, kernel.ErrInvalid):
		fmt.Fprintf(env.Stderr, "foya fork: %v (see foya show %s)\n", err, pos[0])
		return ExitUsage
	case err != nil:
		return fail(env, err)
	}
	if *asJSON {
		printJSON(env.Stdout, f)
		return ExitOK
	}
	fmt.Fprintln(env.Stdout, f.Session.ID)
	if f.Draft != "" {
		fmt.Fprintf(env.Stderr, "forked before prompt %d (%q); continue the fork with foya exec --session %s PROMPT\n",
			*at, firstLine(f.Draft, 80), f.Session.ID)
	}
	return ExitOK
}
