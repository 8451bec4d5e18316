package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"foya/backend/kernel"
)

// sandboxUsage is foya sandbox's usage.
const sandboxUsage = `usage: foya sandbox [--json] SESSION
       foya sandbox allow SESSION (--write DIR | --network) [--once]
       foya sandbox revoke SESSION ID
A session's sandbox grants: folders its sandboxed commands may write and the
network (the files stay confined), for the session or, with --once, for its
next command. Foya's data, credentials and system folders are never granted.`

// sandboxCmd lists, adds and removes a session's sandbox grants.
func sandboxCmd(ctx context.Context, args []string, env Env) int {
	sub := ""
	if len(args) > 0 && (args[0] == "allow" || args[0] == "revoke" || args[0] == "help") {
		sub, args = args[0], args[1:]
	}
	if sub == "help" {
		fmt.Fprintln(env.Stdout, sandboxUsage)
		return ExitOK
	}
	fs, db := newFlags("foya sandbox", env)
	asJSON := fs.Bool("json", false, "print JSON")
	write := fs.String("write", "", "allow: the folder to make writable")
	network := fs.Bool("network", false, "allow: turn the network on for commands (their files stay confined)")
	once := fs.Bool("once", false, "allow: for the session's next command only")
	pos, code, ok := parseFlags(fs, args)
	if !ok {
		return code
	}
	want := 1
	if sub == "revoke" {
		want = 2
	}
	if len(pos) != want || sub == "allow" && (*write == "") == !*network || sub != "allow" && (*write != "" || *network || *once) {
		fmt.Fprintln(env.Stderr, sandboxUsage)
		return ExitUsage
	}
	k, err := openKernel(ctx, *db, env)
	if err != nil {
		return fail(env, err)
	}
	defer k.Close()
	session := pos[0]
	switch sub {
	case "allow":
		a := kernel.SandboxAllow{Kind: kernel.SandboxNetwork, Once: *once}
		if *write != "" {
			a.Kind, a.Folder = kernel.SandboxWrite, absFolder(*write)
		}
		g, err := k.AllowSandbox(ctx, session, a)
		if err != nil {
			return sandboxFail(env, session, err)
		}
		if *asJSON {
			printJSON(env.Stdout, g)
		} else {
			fmt.Fprintf(env.Stdout, "session %s: allowed %s (grant %d)\n", session, g.Text, g.ID)
		}
	case "revoke":
		id, err := strconv.ParseInt(pos[1], 10, 64)
		if err != nil {
			fmt.Fprintf(env.Stderr, "foya sandbox revoke: grant ID %q is not a number (foya sandbox %s lists them)\n", pos[1], session)
			return ExitUsage
		}
		if err := k.RevokeSandbox(ctx, session, id); err != nil {
			return sandboxFail(env, session, err)
		}
		fmt.Fprintf(env.Stdout, "session %s: grant %d revoked\n", session, id)
	default:
		gs, err := k.SandboxGrants(ctx, session)
		if err != nil {
			return sandboxFail(env, session, err)
		}
		if *asJSON {
			if gs == nil {
				gs = []kernel.SandboxGrant{}
			}
			printJSON(env.Stdout, gs)
			return ExitOK
		}
		if len(gs) == 0 {
			fmt.Fprintf(env.Stdout, "session %s: no sandbox grants (commands write only the workspace and the session's temp folder, without network)\n", session)
		}
		for _, g := range gs {
			fmt.Fprintf(env.Stdout, "%d\t%s\n", g.ID, g.Text)
		}
	}
	return ExitOK
}

// absFolder makes a folder given on the command line absolute, relative to
// the current folder; the kernel refuses what it cannot use.
func absFolder(p string) string {
	if filepath.IsAbs(p) || strings.TrimSpace(p) == "" {
		return p
	}
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

func sandboxFail(env Env, session string, err error) int {
	switch {
	case kernel.IsNotFound(err) && strings.Contains(err.Error(), "grant"):
		fmt.Fprintf(env.Stderr, "foya sandbox: %v (foya sandbox %s lists them)\n", err, session)
		return ExitUsage
	case kernel.IsNotFound(err):
		fmt.Fprintf(env.Stderr, "foya sandbox: no session %s (see foya sessions)\n", session)
		return ExitUsage
	case kernel.Code(err) == kernel.CodeInvalid:
		fmt.Fprintf(env.Stderr, "foya sandbox: %v\n", err)
		return ExitUsage
	}
	return fail(env, err)
}
