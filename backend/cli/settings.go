package cli

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"foya/backend/approval"
	"foya/backend/engine"
	"foya/backend/kernel"
)

// settingsCmd: foya settings [--json] | foya settings set KEY VALUE.
func settingsCmd(ctx context.Context, args []string, env Env) int {
	fs, db := newFlags("foya settings", env)
	asJSON := fs.Bool("json", false, "print the settings as a JSON object")
	pos, code, ok := parseFlags(fs, args)
	if !ok {
		return code
	}
	if len(pos) != 0 && (len(pos) != 3 || pos[0] != "set") {
		fmt.Fprintf(env.Stderr, "usage: foya settings [--json] | foya settings set KEY VALUE\n  keys: approval.default (manual, auto, full-access), "+
			"run.max_steps (model steps per turn, 1 to %d, default %d), files.maxWriteBytes (bytes, or with KiB, MiB, GiB; default 64MiB), "+
			"sandbox.readable (absolute paths the sandbox may read, separated by :), "+
			"provider.idleTimeout (a duration such as 30s: how long the model may send nothing), providers.default (a profile, see foya providers),\n"+
			"        model.images.MODEL (true, false),\n"+
			"        shell.env.allow, shell.env.deny (environment variable names or globs such as AWS_*, separated by commas:\n"+
			"        commands get allowed ones although they look secret, never denied ones; their values stay masked in tool output)\n",
			engine.MaxStepsLimit, engine.DefaultMaxSteps)
		return ExitUsage
	}
	k, err := openKernel(ctx, *db, env)
	if err != nil {
		return fail(env, err)
	}
	defer k.Close()
	if len(pos) == 3 {
		if err := k.SetSetting(ctx, pos[1], pos[2]); err != nil {
			fmt.Fprintf(env.Stderr, "foya settings: %v\n", err)
			return ExitUsage
		}
		return ExitOK
	}
	all, err := k.Settings(ctx)
	if err != nil {
		return fail(env, err)
	}
	if *asJSON {
		printJSON(env.Stdout, all)
		return ExitOK
	}
	for _, key := range slices.Sorted(maps.Keys(all)) {
		fmt.Fprintf(env.Stdout, "%s = %s\n", key, all[key])
	}
	return ExitOK
}

// modeCmd: foya mode SESSION MODE switches a session's approval mode.
func modeCmd(ctx context.Context, args []string, env Env) int {
	fs, db := newFlags("foya mode", env)
	pos, code, ok := parseFlags(fs, args)
	if !ok {
		return code
	}
	if len(pos) != 2 {
		fmt.Fprintln(env.Stderr, "usage: foya mode SESSION manual|auto|full-access")
		return ExitUsage
	}
	if _, err := approval.ParseMode(pos[1]); err != nil {
		fmt.Fprintf(env.Stderr, "foya mode: %v\n", err)
		return ExitUsage
	}
	k, err := openKernel(ctx, *db, env)
	if err != nil {
		return fail(env, err)
	}
	defer k.Close()
	if err := k.SetMode(ctx, pos[0], pos[1]); err != nil {
		if kernel.IsNotFound(err) {
			fmt.Fprintf(env.Stderr, "foya mode: no session %s (see foya sessions)\n", pos[0])
			return ExitUsage
		}
		return fail(env, err)
	}
	s, _ := k.Session(ctx, pos[0])
	fmt.Fprintf(env.Stdout, "session %s: approval mode %s\n", s.ID, s.ApprovalMode)
	return ExitOK
}
