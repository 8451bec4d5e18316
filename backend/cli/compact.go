package cli

import (
	"context"
	"fmt"

	"foya/backend/kernel"
)

// compactCmd is foya compact: have the session's model summarise the
// older part of its history now (kernel.Compact), or undo the compaction
// in force (--undo ID).
func compactCmd(ctx context.Context, args []string, env Env) int {
	fs, db := newFlags("foya compact", env)
	undo := fs.String("undo", "", "undo the compaction in force, by its ID (the context.compacted event's id), instead of compacting")
	asJSON := fs.Bool("json", false, "print the context.compacted payload as JSON")
	pos, code, ok := parseFlags(fs, args)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		fmt.Fprintln(env.Stderr, "usage: foya compact [--json] SESSION, or foya compact --undo ID SESSION")
		return ExitUsage
	}
	k, err := openKernel(ctx, *db, env)
	if err != nil {
		return fail(env, err)
	}
	defer k.Close()
	if _, err := k.Session(ctx, pos[0]); err != nil {
		if kernel.IsNotFound(err) {
			fmt.Fprintf(env.Stderr, "foya compact: no session %s (see foya sessions)\n", pos[0])
			return ExitUsage
		}
		return fail(env, err)
	}
	if *undo != "" {
		if err := k.UndoCompaction(ctx, pos[0], *undo); err != nil {
			return fail(env, err)
		}
		fmt.Fprintf(env.Stdout, "session %s: compaction %s undone; the next request sends those messages again\n", pos[0], *undo)
		return ExitOK
	}
	d, err := k.Compact(ctx, kernel.CompactOptions{SessionID: pos[0]})
	if err != nil {
		return fail(env, err)
	}
	if *asJSON {
		printJSON(env.Stdout, d)
		return ExitOK
	}
	fmt.Fprintf(env.Stdout, "session %s: compaction %s: messages r1 to r%d (%d turns) summarised, about %d to %d tokens; "+
		"%d files and %d tasks listed exactly; the full history stays stored (undo: foya compact --undo %s %s)\n",
		pos[0], d.ID, d.Upto, d.Turns, d.TokensBefore, d.TokensAfter, d.Files, d.Tasks, d.ID, pos[0])
	return ExitOK
}
