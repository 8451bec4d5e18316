package cli

import (
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"

	"foya/backend/mcp/mcpconfig"
)

const mcpUsage = `usage: foya mcp add NAME [--env K=V]... [--sandbox] [--always-load] -- COMMAND [ARGS...]
                                        add a stdio server (yours: it starts without asking)
       foya mcp add NAME --url URL [--type http|sse] [--header K=V]... [--always-load]
                                        add a streamable HTTP (default) or SSE server
       foya mcp list [--workdir DIR] [--json]
                                        the servers, their state, tool count and stderr tail
       foya mcp tools (NAME | --url URL [--type http|sse] [--header K=V]...) [--workdir DIR]
                                        connect to one server alone and print its tools as JSON
       foya mcp call (NAME | --url URL ...) TOOL [JSON_ARGS] [--workdir DIR] [--elicit ask|defaults|decline]
                                        call one tool with arguments given as one JSON object and
                                        print the result as JSON (exit 0 when the server answered,
                                        even with isError). With --url: streamable HTTP, else SSE.
                                        A server's questions (elicitation) are declined, asked on
                                        the terminal (ask) or answered with the form's defaults
         tools and call, for an HTTP server that asks for a sign-in (OAuth): the authorization
         page opens in the browser (or the command FOYA_OAUTH_OPENER names) and the token is
         kept in the keyring; --client-id ID [--client-secret S] use a pre-registered client;
         --grant client-credentials --client-id ID (--client-secret S | --private-key-file PEM)
         signs in as a program, no browser; --client-metadata-url URL names a client ID metadata
         document describing Foya, for authorization servers that take one
       foya mcp log (NAME | --url URL ...) [--workdir DIR] [--json]
                                        connect to one server alone and print the log messages it
                                        sent while connecting (level info and up) and the end of
                                        its standard error
       foya mcp remove NAME             remove one of your servers
       foya mcp import FILE             copy the servers of a Claude Desktop, Cursor, Claude Code
                                        or VS Code file into yours
       foya mcp approve NAME [--workdir DIR] [--fingerprint FP] [--unsandboxed [--trust-workspace-code]]
                                        approve a project's server (from .foya/mcp.json or
                                        .mcp.json) as shown: its command, arguments, cwd, env,
                                        URL, headers and the workspace code it runs. With
                                        --fingerprint, only if it still has the one you saw
                                        (foya mcp list --json). It runs in the sandbox unless
                                        --unsandboxed; a server that runs workspace code leaves
                                        the sandbox only with --trust-workspace-code too`

// mcpCmd: foya mcp add|list|remove|import|approve|tools|call.
func mcpCmd(ctx context.Context, args []string, env Env) int {
	var tail []string
	if i := slices.Index(args, "--"); i >= 0 {
		args, tail = args[:i], args[i+1:]
	}
	fs, db := newFlags("foya mcp", env)
	envs, headers := headerFlags{}, headerFlags{}
	fs.Var(envs, "env", "with add: an environment variable NAME=VALUE for the server (repeatable)")
	fs.Var(headers, "header", "with --url: an HTTP header NAME=VALUE or \"NAME: VALUE\" (repeatable)")
	url := fs.String("url", "", "with add, tools and call: the server's URL (streamable HTTP, or SSE with --type sse)")
	typ := fs.String("type", "", "with --url: http (streamable HTTP, the default) or sse")
	sandboxed := fs.Bool("sandbox", false, "with add: run the stdio server inside the sandbox (workspace writes only, no network)")
	always := fs.Bool("always-load", false, "with add: keep its tools loaded even when MCP tools are deferred behind tool_search")
	workdir := fs.String("workdir", "", "with list, approve, tools and call: the project folder (default: the current folder)")
	unsandboxed := fs.Bool("unsandboxed", false, "with approve: let the project's stdio server run outside the sandbox")
	trustCode := fs.Bool("trust-workspace-code", false, "with approve --unsandboxed: confirm that the server runs code from the workspace outside the sandbox")
	fingerprint := fs.String("fingerprint", "", "with approve: approve only if the server still has this fingerprint")
	asJSON := fs.Bool("json", false, "with list and log: print JSON")
	elicit := fs.String("elicit", "", "with tools and call: answer a server's questions: ask (on the terminal), defaults (the form's) or decline (the default)")
	clientID := fs.String("client-id", "", "with tools and call: the OAuth client ID registered for Foya with the server's authorization server")
	clientSecret := fs.String("client-secret", "", "with tools and call and --client-id: that client's secret")
	keyFile := fs.String("private-key-file", "", "with tools and call and --grant client-credentials: a PEM private key that signs a private_key_jwt assertion")
	metadataURL := fs.String("client-metadata-url", "", "with tools and call: the https URL of a client ID metadata document describing Foya, used as the client ID where the authorization server takes such documents")
	grant := fs.String("grant", "", "with tools and call: client-credentials (a program's sign-in, no browser); the authorization code in the browser is the default")
	fs.Usage = func() { fmt.Fprintln(env.Stderr, mcpUsage) }
	pos, code, ok := parseFlags(fs, args)
	if !ok {
		return code
	}
	if len(pos) == 0 {
		fmt.Fprintln(env.Stderr, mcpUsage)
		return ExitUsage
	}
	dir := *workdir
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return fail(env, err)
		}
		dir = wd
	}
	usageErr := func(msg string) int {
		fmt.Fprintf(env.Stderr, "foya mcp: %s\n%s\n", msg, mcpUsage)
		return ExitUsage
	}
	sub := pos[0]
	if sub == "help" {
		fmt.Fprintln(env.Stdout, mcpUsage)
		return ExitOK
	}
	if sub == "tools" || sub == "call" || sub == "log" {
		return mcpClientCmd(ctx, sub, pos[1:], mcpClientFlags{db: *db, url: *url, typ: *typ, workdir: dir, headers: headers, json: *asJSON,
			clientID: *clientID, clientSecret: *clientSecret, keyFile: *keyFile, grant: *grant, elicit: *elicit, metadataURL: *metadataURL}, env)
	}
	if *clientID != "" || *clientSecret != "" || *keyFile != "" || *grant != "" || *elicit != "" || *metadataURL != "" {
		return usageErr("--client-id, --client-secret, --private-key-file, --client-metadata-url, --grant and --elicit go with tools, call and log only")
	}
	switch {
	case sub == "add" && len(pos) != 2:
		return usageErr("add takes one NAME, then -- COMMAND [ARGS...] or --url URL")
	case sub == "add" && (*url == "") == (len(tail) == 0):
		return usageErr("give either -- COMMAND [ARGS...] (a stdio server) or --url URL")
	case (sub == "remove" || sub == "import" || sub == "approve") && len(pos) != 2:
		return usageErr(sub + " takes one argument")
	case sub == "list" && len(pos) != 1:
		return usageErr("list takes no argument")
	case !slices.Contains([]string{"add", "list", "remove", "import", "approve"}, sub):
		return usageErr(fmt.Sprintf("unknown subcommand %q", sub))
	}
	k, err := openKernel(ctx, *db, env)
	if err != nil {
		return fail(env, err)
	}
	defer k.Close()
	switch sub {
	case "add":
		c := mcpconfig.Config{Name: pos[1], URL: *url, Type: *typ, Sandbox: *sandboxed, AlwaysLoad: *always}
		if len(envs) > 0 {
			c.Env = envs
		}
		if len(headers) > 0 {
			c.Headers = headers
		}
		if len(tail) > 0 {
			c.Command, c.Args = tail[0], tail[1:]
		}
		if err := k.MCP().Add(ctx, c); err != nil {
			return fail(env, err)
		}
		list, err := k.MCP().List(ctx, "")
		if err != nil {
			return fail(env, err)
		}
		for _, s := range list.Servers {
			if s.Name == c.Name && s.Scope == "user" {
				printServer(env.Stdout, s)
			}
		}
		return ExitOK
	case "remove":
		if err := k.MCP().Remove(ctx, pos[1]); err != nil {
			return fail(env, err)
		}
		fmt.Fprintf(env.Stdout, "Removed the MCP server %s.\n", pos[1])
		return ExitOK
	case "import":
		res, err := k.MCP().Import(ctx, pos[1])
		if err != nil {
			// The error holds every problem: said once.
			return fail(env, err)
		}
		for _, p := range res.Problems {
			fmt.Fprintf(env.Stderr, "foya: %s (left out)\n", p)
		}
		fmt.Fprintf(env.Stdout, "Imported %d MCP server(s)", len(res.Added))
		if len(res.Added) > 0 {
			fmt.Fprintf(env.Stdout, ": %s", strings.Join(res.Added, ", "))
		}
		fmt.Fprintln(env.Stdout, ".")
		if len(res.Skipped) > 0 {
			fmt.Fprintf(env.Stdout, "Kept your own of the same name: %s.\n", strings.Join(res.Skipped, ", "))
		}
		return ExitOK
	case "approve":
		list, err := k.MCP().List(ctx, dir)
		if err != nil {
			return fail(env, err)
		}
		i := slices.IndexFunc(list.Servers, func(s mcpconfig.Server) bool { return s.Scope == "project" && s.Name == pos[1] })
		if i < 0 {
			return fail(env, fmt.Errorf("the project at %s has no MCP server %q (in .foya/mcp.json or .mcp.json)", dir, pos[1]))
		}
		s := list.Servers[i]
		where := "inside the sandbox"
		if *unsandboxed || s.Transport != "stdio" {
			where = "without the sandbox"
		}
		fmt.Fprintf(env.Stdout, "Approving the MCP server %s from %s, which runs %s:\n", s.Name, s.File, where)
		showApproval(env.Stdout, s)
		want := s.Fingerprint
		if *fingerprint != "" {
			want = *fingerprint
		}
		s, err = k.MCP().Approve(ctx, dir, pos[1], mcpconfig.Approval{Fingerprint: want, Unsandboxed: *unsandboxed, WorkspaceCode: *trustCode})
		if err != nil {
			return fail(env, err)
		}
		printServer(env.Stdout, s)
		return ExitOK
	}
	list, err := k.MCP().List(ctx, dir)
	if err != nil {
		return fail(env, err)
	}
	if *asJSON {
		printJSON(env.Stdout, list)
		return ExitOK
	}
	for _, p := range list.Problems {
		fmt.Fprintf(env.Stdout, "problem: %s\n", p)
	}
	if len(list.Servers) == 0 {
		fmt.Fprintln(env.Stdout, "No MCP servers. Add one with: foya mcp add NAME -- COMMAND [ARGS...]")
	}
	for _, s := range list.Servers {
		printServer(env.Stdout, s)
	}
	return ExitOK
}

func printServer(w io.Writer, s mcpconfig.Server) {
	extra := ""
	if s.Sandbox {
		extra += " · sandboxed"
	}
	if s.Deferred {
		extra += " · deferred behind tool_search"
	}
	fmt.Fprintf(w, "%s (%s, %s) %s · %d tools%s\n  %s\n", s.Name, s.Scope, s.Transport, s.State, s.Tools, extra, s.CommandLine)
	if s.ImportedFrom != "" {
		fmt.Fprintf(w, "  imported from %s\n", s.ImportedFrom)
	}
	if s.State == mcpconfig.Unapproved {
		fmt.Fprintf(w, "  not started: approve it with foya mcp approve %s\n", s.Name)
	}
	if s.Error != "" {
		fmt.Fprintf(w, "  error: %s\n", s.Error)
	}
	switch s.SignIn {
	case "signed-in":
		fmt.Fprintln(w, "  signed in")
	case "sign-in-needed", "error":
		why := ""
		if s.SignInError != "" {
			why = " (" + s.SignInError + ")"
		}
		fmt.Fprintf(w, "  sign-in needed%s: run foya mcp tools %s, or Sign in in the app's Settings → MCP servers\n", why, s.Name)
	}
	if s.Stderr != "" {
		fmt.Fprintf(w, "  stderr:\n    %s\n", strings.ReplaceAll(s.Stderr, "\n", "\n    "))
	}
}

// showApproval prints everything that decides what a project's server
// runs, as approving covers it: nothing approved is left unshown.
func showApproval(w io.Writer, s mcpconfig.Server) {
	fmt.Fprintf(w, "  transport: %s\n", s.Transport)
	if s.Transport == "stdio" {
		fmt.Fprintf(w, "  command:   %s\n", s.Command)
		for i, a := range s.Args {
			fmt.Fprintf(w, "  arg %d:     %q\n", i+1, a)
		}
	} else {
		fmt.Fprintf(w, "  url:       %s\n", s.URL)
		if len(s.Headers) > 0 {
			fmt.Fprintf(w, "  headers:   %s (values not shown)\n", strings.Join(s.Headers, ", "))
		}
	}
	if s.Cwd != "" {
		fmt.Fprintf(w, "  cwd:       %s\n", s.Cwd)
	}
	names := slices.Sorted(maps.Keys(s.Env))
	for _, n := range names {
		fmt.Fprintf(w, "  env:       %s=%s\n", n, s.Env[n])
	}
	if len(s.Code) > 0 {
		fmt.Fprintf(w, "  workspace code it runs or loads (a change un-approves it): %s\n", strings.Join(s.Code, ", "))
	}
	showVars(w, s)
	fmt.Fprintf(w, "  fingerprint: %s\n", s.Fingerprint)
}

// showVars prints the variables of the environment a project's server
// reads (${VAR}, expanded when it starts): the values of those of its
// command, arguments, cwd and URL are part of the approval.
func showVars(w io.Writer, s mcpconfig.Server) {
	if len(s.Vars) > 0 {
		fmt.Fprintf(w, "  reads from your environment (a new value un-approves it): $%s\n", strings.Join(s.Vars, ", $"))
	}
	if len(s.PassVars) > 0 {
		fmt.Fprintf(w, "  passes from your environment to its env or headers: $%s\n", strings.Join(s.PassVars, ", $"))
	}
}
