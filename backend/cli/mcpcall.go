package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"foya/backend/mcp/mcpauth"
	"foya/backend/mcp/mcpconfig"
)

// mcpClientCmd runs foya mcp tools and foya mcp call: one server, reached
// by its configured NAME or by --url, exercised alone, its answers printed
// as JSON. pos is the positional arguments after the subcommand.
func mcpClientCmd(ctx context.Context, sub string, pos []string, o mcpClientFlags, env Env) int {
	usageErr := func(msg string) int {
		fmt.Fprintf(env.Stderr, "foya mcp %s: %s\n%s\n", sub, msg, mcpUsage)
		return ExitUsage
	}
	name := ""
	if o.url == "" {
		if len(pos) == 0 {
			return usageErr("give the NAME of a configured server (see foya mcp list) or --url URL")
		}
		name, pos = pos[0], pos[1:]
	} else if o.typ != "" && o.typ != "http" && o.typ != "sse" {
		return usageErr(fmt.Sprintf("--type is http or sse, not %q", o.typ))
	}
	var auth mcpconfig.DialAuth
	if o.clientID != "" || o.clientSecret != "" || o.keyFile != "" || o.grant != "" || o.metadataURL != "" {
		cfg := &mcpauth.Config{ClientID: o.clientID, ClientSecret: o.clientSecret, PrivateKeyFile: o.keyFile, Grant: o.grant,
			ClientMetadataURL: o.metadataURL}
		switch o.grant {
		case "", "client-credentials", "authorization-code":
		default:
			return usageErr(fmt.Sprintf("--grant is client-credentials (or authorization-code, the default), not %q", o.grant))
		}
		if err := cfg.Check(); err != nil {
			return usageErr(strings.NewReplacer("a client secret", "--client-secret", "a private key file", "--private-key-file",
				"the client ID", "--client-id", "a client ID", "--client-id", "the client-credentials grant", "--grant client-credentials",
				"add the client-credentials grant", "add --grant client-credentials", "a client metadata document's URL", "--client-metadata-url").Replace(err.Error()))
		}
		auth.Config = cfg
	}
	auth.Opened = func(u string) {
		fmt.Fprintf(env.Stderr, "foya mcp %s: the server asks you to sign in; opening in the browser:\n  %s\n", sub, u)
	}
	var tool string
	var args json.RawMessage
	switch {
	case (sub == "tools" || sub == "log") && len(pos) != 0:
		return usageErr(fmt.Sprintf("%s takes NAME or --url URL and nothing else (got %q)", sub, strings.Join(pos, " ")))
	case sub == "call" && (len(pos) < 1 || len(pos) > 2):
		return usageErr("call takes NAME (or --url URL), then TOOL, then its arguments as one JSON object (optional)")
	case sub == "call":
		tool = pos[0]
		if len(pos) == 2 {
			var obj map[string]any
			if err := json.Unmarshal([]byte(pos[1]), &obj); err != nil || obj == nil {
				why := "it is not a JSON object"
				if err != nil {
					why = err.Error()
				}
				return usageErr(fmt.Sprintf("the arguments %q are not a JSON object (%s): give them as one, quoted, such as '{\"text\": \"hi\"}'", pos[1], why))
			}
			args = json.RawMessage(pos[1])
		}
	}
	elicit, err := elicitMode(o.elicit, env)
	if err != nil {
		return usageErr(err.Error())
	}
	k, err := openKernel(ctx, o.db, env)
	if err != nil {
		return fail(env, err)
	}
	defer k.Close()
	var one *mcpconfig.One
	if o.url != "" {
		one, err = k.MCP().DialURL(ctx, o.url, o.headers, o.typ == "sse", auth)
	} else {
		one, err = k.MCP().Dial(ctx, o.workdir, name, auth)
	}
	if err != nil {
		return fail(env, err)
	}
	defer one.Close()
	one.SetElicit(cliElicit(elicit, env))
	if sub == "log" {
		return printLog(ctx, one, o.json, env)
	}
	if sub == "tools" {
		list, err := one.Tools()
		if err != nil {
			return fail(env, err)
		}
		printJSON(env.Stdout, list)
		return ExitOK
	}
	res, err := one.Call(ctx, tool, args)
	if err != nil {
		return fail(env, err)
	}
	// A result with isError is still the server's answer: printed, exit 0.
	printJSON(env.Stdout, res)
	return ExitOK
}

// mcpClientFlags are the flags of foya mcp tools and call.
type mcpClientFlags struct {
	db, url, typ, workdir string
	elicit                string // --elicit: ask, defaults or decline
	metadataURL           string // --client-metadata-url
	headers               map[string]string
	json                  bool // log: print JSON
	// OAuth client settings (--client-id, --client-secret,
	// --private-key-file, --grant).
	clientID, clientSecret, keyFile, grant string
}

// printLog prints a server's log messages, one a line (time, level,
// logger, text), then the end of its standard error.
func printLog(ctx context.Context, one *mcpconfig.One, asJSON bool, env Env) int {
	l, err := one.Log(ctx)
	if err != nil {
		return fail(env, err)
	}
	if asJSON {
		printJSON(env.Stdout, l)
		return ExitOK
	}
	if len(l.Entries) == 0 {
		fmt.Fprintf(env.Stdout, "No log messages (Foya asks for level %s and up from servers that declare logging).\n", l.Level)
	}
	for _, e := range l.Entries {
		who := ""
		if e.Logger != "" {
			who = " [" + e.Logger + "]"
		}
		fmt.Fprintf(env.Stdout, "%s %s%s %s\n", e.Time.Format(time.RFC3339), e.Level, who, e.Data)
	}
	if l.Stderr != "" {
		fmt.Fprintf(env.Stdout, "standard error ends with:\n  %s\n", strings.ReplaceAll(l.Stderr, "\n", "\n  "))
	}
	return ExitOK
}
