package cli

import (
	"context"
	"fmt"
	"os"

	"foya/backend/kernel"
)

// patchCmd is `foya patch SESSION [-o FILE]`: a session's net change as
// one git-style patch, on standard output or into FILE. What the patch
// leaves out is said in its leading comment and, when it goes to a file,
// on standard error too.
func patchCmd(ctx context.Context, args []string, env Env) int {
	fs, db := newFlags("foya patch", env)
	outFile := fs.String("o", "", "write the patch to `FILE` instead of standard output (an existing file is replaced)")
	fs.Usage = func() {
		fmt.Fprintln(env.Stderr, "Usage: foya patch [-o FILE] SESSION\n\nPrints SESSION's net change to its files as one patch: apply it with git apply in the folder as it was before the session.\n\nFlags:")
		fs.PrintDefaults()
	}
	pos, code, ok := parseFlags(fs, args)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		fmt.Fprintln(env.Stderr, "foya patch: give one SESSION id (see foya sessions)")
		return ExitUsage
	}
	k, err := openKernel(ctx, *db, env)
	if err != nil {
		return fail(env, err)
	}
	defer k.Close()
	p, err := k.SessionPatch(ctx, pos[0])
	if err != nil {
		if kernel.IsNotFound(err) {
			fmt.Fprintf(env.Stderr, "foya patch: no session %s (see foya sessions)\n", pos[0])
			return ExitUsage
		}
		return fail(env, err)
	}
	if *outFile == "" {
		fmt.Fprint(env.Stdout, p.Text)
		return ExitOK
	}
	if err := os.WriteFile(*outFile, []byte(p.Text), 0o644); err != nil {
		return fail(env, fmt.Errorf("write the patch: %w", err))
	}
	for _, n := range p.Notes {
		fmt.Fprintf(env.Stderr, "note: %s\n", n)
	}
	if p.Files == 0 {
		fmt.Fprintf(env.Stderr, "foya patch: the session's changes add up to nothing: %s holds an empty patch\n", *outFile)
		return ExitOK
	}
	fmt.Fprintf(env.Stderr, "Wrote %s: %d file(s)\n", *outFile, p.Files)
	return ExitOK
}
