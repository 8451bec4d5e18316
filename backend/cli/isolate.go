package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"foya/backend/kernel"
)

// applyCmd is foya apply SESSION [--take PATH]... [--json]: an isolated
// session's net change into its folder (docs/isolated-sessions.md). Exit
// 0 when everything went in; 3 when files the folder changed too were
// left as they are (listed with both diffs); 1 when it failed; 2 for a
// usage error, a session that is not isolated or not found.
func applyCmd(ctx context.Context, args []string, env Env) int {
	fs, db := newFlags("foya apply", env)
	asJSON := fs.Bool("json", false, "print what was applied and the conflicts as JSON")
	preview := fs.Bool("preview", false, "say what applying would do now, writing nothing (exit 3 if there would be conflicts)")
	var take stringList
	fs.Var(&take, "take", "a conflicting PATH (as listed) where the session's version is written over the folder's all the same (repeatable)")
	fs.Usage = func() {
		fmt.Fprintln(env.Stderr, "Usage: foya apply [flags] SESSION\n\nBrings an isolated session's net change (foya exec --isolated) into the folder it was made from.\n"+
			"A file the folder changed too since the session's copy was made is a conflict: it is listed with both diffs\nand left as the folder has it, unless named with --take.\n"+
			"--preview says what it would do, writing nothing.\nExit codes: 0 applied, 1 failed, 2 usage error, 3 conflicts (those files left as they are).\n\nFlags:")
		fs.PrintDefaults()
	}
	pos, code, ok := parseFlags(fs, args)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		fmt.Fprintln(env.Stderr, "foya apply: give one SESSION (see foya sessions)")
		return ExitUsage
	}
	k, err := openKernel(ctx, *db, env)
	if err != nil {
		return fail(env, err)
	}
	defer k.Close()
	if *preview && len(take) > 0 {
		fmt.Fprintln(env.Stderr, "foya apply: --take writes files; --preview writes none: give one of them")
		return ExitUsage
	}
	res, err := k.ApplySession(ctx, kernel.ApplyOptions{SessionID: pos[0], Take: take, Preview: *preview})
	if err != nil && res.SessionID == "" {
		return isolateFail(env, "apply", err)
	}
	if *asJSON {
		printJSON(env.Stdout, res)
	} else {
		printApply(env, res, *preview)
	}
	switch {
	case err != nil:
		fmt.Fprintf(env.Stderr, "foya apply: stopped after %d file(s): %v\n", len(res.Applied), err)
		return ExitFailed
	case len(res.Conflicts) > 0:
		return ExitConflict
	}
	return ExitOK
}

func printApply(env Env, res kernel.ApplyResult, preview bool) {
	w := env.Stdout
	verb := "Applied"
	if preview {
		verb = "Would apply"
	}
	switch {
	case len(res.Applied) == 0 && len(res.Conflicts) == 0:
		fmt.Fprintf(w, "Nothing to apply: %s has the session's files already.\n", res.Folder)
	case len(res.Applied) > 0:
		fmt.Fprintf(w, "%s %d file(s) to %s:\n", verb, len(res.Applied), res.Folder)
		for _, p := range res.Applied {
			fmt.Fprintf(w, "  %s\n", p)
		}
	}
	if len(res.Conflicts) == 0 {
		return
	}
	left := "they are left as the folder has them"
	if preview {
		left = "applying would leave them as the folder has them"
	}
	fmt.Fprintf(w, "%d conflict(s): the folder changed these files too since the session's copy was made; %s.\n", len(res.Conflicts), left)
	for _, c := range res.Conflicts {
		fmt.Fprintf(w, "\n%s (folder: %s, session: %s)\n", c.Path, c.Folder, c.Session)
		fmt.Fprintf(w, "--- the folder's change since the base:\n%s", orNone(c.FolderDiff))
		fmt.Fprintf(w, "--- the session's change since the base:\n%s", orNone(c.SessionDiff))
	}
	fmt.Fprintf(w, "\nTo write the session's version all the same: foya apply --take PATH %s\n", res.SessionID)
}

func orNone(diff string) string {
	if diff == "" {
		return "(none)\n"
	}
	if !strings.HasSuffix(diff, "\n") {
		diff += "\n"
	}
	return diff
}

// discardCmd is foya discard SESSION: removes an isolated session's copy
// (a worktree with its branch, or the copied folder).
func discardCmd(ctx context.Context, args []string, env Env) int {
	fs, db := newFlags("foya discard", env)
	fs.Usage = func() {
		fmt.Fprintln(env.Stderr, "Usage: foya discard [flags] SESSION\n\nRemoves an isolated session's copy: a worktree with its branch and the commits on it, or the copied folder.\n"+
			"Nothing of the folder it was made from changes; the session's history stays, and it cannot run again.\n"+
			"Exit codes: 0 discarded, 1 failed, 2 usage error, a session that is not isolated or was discarded already.\n\nFlags:")
		fs.PrintDefaults()
	}
	pos, code, ok := parseFlags(fs, args)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		fmt.Fprintln(env.Stderr, "foya discard: give one SESSION (see foya sessions)")
		return ExitUsage
	}
	k, err := openKernel(ctx, *db, env)
	if err != nil {
		return fail(env, err)
	}
	defer k.Close()
	sess, err := k.Session(ctx, pos[0])
	if err != nil {
		return isolateFail(env, "discard", err)
	}
	if err := k.DiscardSession(ctx, pos[0]); err != nil {
		return isolateFail(env, "discard", err)
	}
	fmt.Fprintf(env.Stdout, "Discarded %s's copy %s", sess.ID, sess.Isolation.Dir)
	if sess.Isolation.Branch != "" {
		fmt.Fprintf(env.Stdout, " and its branch %s", sess.Isolation.Branch)
	}
	fmt.Fprintln(env.Stdout, ".")
	return ExitOK
}

// isolateFail reports an error of apply or discard: one the user can fix
// by what they typed (no such session, not isolated, discarded) is a
// usage error.
func isolateFail(env Env, cmd string, err error) int {
	fmt.Fprintf(env.Stderr, "foya %s: %v\n", cmd, err)
	if kernel.IsNotFound(err) || errors.Is(err, kernel.ErrInvalid) || errors.Is(err, kernel.ErrConflict) {
		return ExitUsage
	}
	return ExitFailed
}

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }
