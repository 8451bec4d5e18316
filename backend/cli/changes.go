package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"foya/backend/kernel"
)

// changesCmd is `foya changes [SESSION] [--json]`: a session's file
// changes, oldest first (the most recently updated session by default).
func changesCmd(ctx context.Context, args []string, env Env) int {
	fs, db := newFlags("foya changes", env)
	asJSON := fs.Bool("json", false, "print the changes as a JSON array, diffs included")
	fs.Usage = func() {
		fmt.Fprintln(env.Stderr, "Usage: foya changes [--json] [SESSION]\n\nLists the file changes of SESSION (default: the most recently used session), oldest first.\n\nFlags:")
		fs.PrintDefaults()
	}
	pos, code, ok := parseFlags(fs, args)
	if !ok {
		return code
	}
	if len(pos) > 1 {
		fmt.Fprintln(env.Stderr, "foya changes: give at most one SESSION id (see foya sessions)")
		return ExitUsage
	}
	k, err := openKernel(ctx, *db, env)
	if err != nil {
		return fail(env, err)
	}
	defer k.Close()
	var sess kernel.Session
	if len(pos) == 1 {
		if sess, err = k.Session(ctx, pos[0]); err != nil {
			if kernel.IsNotFound(err) {
				fmt.Fprintf(env.Stderr, "foya changes: no session %s (see foya sessions)\n", pos[0])
				return ExitUsage
			}
			return fail(env, err)
		}
	} else {
		list, err := k.Sessions(ctx)
		if err != nil {
			return fail(env, err)
		}
		if len(list) == 0 {
			if *asJSON {
				fmt.Fprintln(env.Stdout, "[]")
			} else {
				fmt.Fprintln(env.Stdout, "No sessions yet. Start one with: foya exec \"PROMPT\"")
			}
			return ExitOK
		}
		sess = list[0]
	}
	changes, err := k.Changes(ctx, sess.ID)
	if err != nil {
		return fail(env, err)
	}
	if *asJSON {
		printJSON(env.Stdout, changes)
		return ExitOK
	}
	fmt.Fprintf(env.Stdout, "Session %s: %s\n  workdir %s\n", sess.ID, sess.Title, sess.Workdir)
	if len(changes) == 0 {
		fmt.Fprintln(env.Stdout, "No file changes.")
		return ExitOK
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tTIME\tRUN\tOP\tPATH\tLINES")
	for _, c := range changes {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", c.ID, c.CreatedAt.Local().Format(time.TimeOnly), orDash(c.RunID),
			opText(c), showPath(c.Path, sess.Workdir), lineText(c))
	}
	tw.Flush()
	fmt.Fprintln(env.Stdout, "\nSee one with: foya diff CHANGE · undo with: foya revert CHANGE, foya revert --run RUN, foya revert --to CHANGE")
	return ExitOK
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func opText(c kernel.Change) string {
	op := c.Op
	if c.IsDir {
		op += " folder"
	}
	if c.RevertOf != "" {
		op += " of " + c.RevertOf
	}
	if c.NotRestorable != "" {
		op += " (not restorable)" // foya diff and foya revert say why
	}
	return op
}

func lineText(c kernel.Change) string {
	switch {
	case c.IsDir:
		return ""
	case c.Binary:
		return "binary"
	}
	return fmt.Sprintf("+%d -%d", c.Added, c.Removed)
}

// showPath shows path relative to workdir when inside it.
func showPath(path, workdir string) string {
	if rel, err := filepath.Rel(workdir, path); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return rel
	}
	return path
}

// diffCmd is `foya diff CHANGE`: the unified diff of one change.
func diffCmd(ctx context.Context, args []string, env Env) int {
	fs, db := newFlags("foya diff", env)
	pos, code, ok := parseFlags(fs, args)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		fmt.Fprintln(env.Stderr, "foya diff: give one CHANGE id (see foya changes)")
		return ExitUsage
	}
	k, err := openKernel(ctx, *db, env)
	if err != nil {
		return fail(env, err)
	}
	defer k.Close()
	d, err := k.Diff(ctx, pos[0])
	if err != nil {
		if kernel.IsNotFound(err) {
			fmt.Fprintf(env.Stderr, "foya diff: no change %s (see foya changes)\n", pos[0])
			return ExitUsage
		}
		return fail(env, err)
	}
	fmt.Fprint(env.Stdout, d)
	return ExitOK
}

// intList collects repeated integer flags.
type intList []int

func (l *intList) String() string { return fmt.Sprint(*l) }
func (l *intList) Set(v string) error {
	for _, part := range strings.Split(v, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(part))
		if err != nil || n < 1 {
			return fmt.Errorf("want hunk numbers from 1, got %q", part)
		}
		*l = append(*l, n)
	}
	return nil
}

// Exit code of foya revert when conflicts stopped it.
const ExitConflict = 3

// revertCmd is `foya revert CHANGE... | --run RUN | --to CHANGE`.
func revertCmd(ctx context.Context, args []string, env Env) int {
	fs, db := newFlags("foya revert", env)
	run := fs.String("run", "", "revert every change of this run (undo a turn)")
	to := fs.String("to", "", "restore the session to just after this change: revert every later change, newest first")
	force := fs.Bool("force", false, "overwrite files that changed since (what is overwritten is kept as the revert's before content)")
	asJSON := fs.Bool("json", false, "print what was reverted, or the conflicts, as JSON")
	var hunks intList
	fs.Var(&hunks, "hunk", "with one CHANGE, revert only this hunk of its diff (1 is the first; repeatable)")
	fs.Usage = func() {
		fmt.Fprintln(env.Stderr, "Usage: foya revert [flags] CHANGE... | --run RUN | --to CHANGE\n\nUndoes file changes. Each revert is recorded as a change itself, so it can be reverted too.\nExit codes: 0 reverted, 1 failed, 2 usage error, 3 stopped by conflicts (nothing changed).\n\nFlags:")
		fs.PrintDefaults()
	}
	pos, code, ok := parseFlags(fs, args)
	if !ok {
		return code
	}
	req := kernel.RevertRequest{ChangeIDs: pos, RunID: *run, ToChangeID: *to, Hunks: hunks, Force: *force}
	k, err := openKernel(ctx, *db, env)
	if err != nil {
		return fail(env, err)
	}
	defer k.Close()
	res, err := k.Revert(ctx, req)
	if err != nil && len(res.Reverted) == 0 {
		switch {
		case kernel.IsBadRevert(err):
			fmt.Fprintf(env.Stderr, "foya %v\n", err)
			return ExitUsage
		case kernel.IsNotFound(err):
			fmt.Fprintf(env.Stderr, "foya revert: %v (see foya changes)\n", err)
			return ExitUsage
		}
		return fail(env, err)
	}
	if *asJSON {
		printJSON(env.Stdout, res)
	} else {
		workdir := ""
		if len(res.Reverted) > 0 {
			if sess, err := k.Session(ctx, res.Reverted[0].SessionID); err == nil {
				workdir = sess.Workdir
			}
		}
		printRevert(env, res, workdir)
	}
	switch {
	case err != nil:
		fmt.Fprintf(env.Stderr, "foya revert: stopped after %d change(s): %v\n", len(res.Reverted), err)
		return ExitFailed
	case len(res.Conflicts) > 0:
		return ExitConflict
	}
	return ExitOK
}

func printRevert(env Env, res kernel.RevertResult, workdir string) {
	w := env.Stdout
	if len(res.Conflicts) > 0 {
		fmt.Fprintf(w, "Nothing was reverted: %d conflict(s).\n", len(res.Conflicts))
		forceable := true
		for _, c := range res.Conflicts {
			fmt.Fprintf(w, "\n%s (change %s): %s\n", c.Path, c.ChangeID, c.Reason)
			fmt.Fprintf(w, "  expected: %s\n  found:    %s\n", stateText(c.ExpectedExists, c.ExpectedSHA), stateText(c.FoundExists, c.FoundSHA))
			if c.Diff != "" {
				fmt.Fprintf(w, "  what is there, against what was expected:\n%s", indent(c.Diff, "    "))
			}
			forceable = forceable && c.Forceable
		}
		if forceable {
			fmt.Fprintln(w, "\nRun again with --force to revert anyway; what is there now is kept as the revert's before content, so nothing is lost.")
		} else {
			fmt.Fprintln(w, "\nMove what is in the way elsewhere first; --force does not overwrite folders.")
		}
		return
	}
	if len(res.Reverted) == 0 {
		fmt.Fprintln(w, "Nothing to revert.")
		return
	}
	fmt.Fprintf(w, "Reverted %d change(s):\n", len(res.Reverted))
	for _, c := range res.Reverted {
		what := "restored"
		switch {
		case !c.ExistsAfter && c.TrashPath != "":
			what = "moved to the trash"
		case !c.ExistsAfter:
			what = "removed (empty folder)"
		case !c.ExistedBefore:
			what = "brought back"
		}
		fmt.Fprintf(w, "  %s  reverts %s: %s %s\n", c.ID, c.RevertOf, showPath(c.Path, workdir), what)
	}
	fmt.Fprintln(w, "Each revert is a change itself: foya revert REVERT-ID undoes it.")
}

func stateText(exists bool, sha string) string {
	switch {
	case !exists:
		return "nothing there"
	case sha == "":
		return "a folder (or a file too large to compare)"
	}
	return "content sha256 " + sha
}

func indent(s, prefix string) string {
	lines := strings.SplitAfter(s, "\n")
	var b strings.Builder
	for _, l := range lines {
		if l != "" {
			b.WriteString(prefix + l)
		}
	}
	if !strings.HasSuffix(s, "\n") {
		b.WriteString("\n")
	}
	return b.String()
}
