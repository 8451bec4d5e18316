package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"foya/backend/kernel"
	"foya/backend/profiles"
)

const providersUsage = `usage:
  foya providers add NAME --base-url URL --model M [--header K=V]... [--api-key-stdin]
      [--tool-calls MODE] [--context-window N] [--max-output N] [--input-price USD --output-price USD]
  foya providers edit NAME [--base-url URL] [--model M] [--header K=V]... [--api-key-stdin]
      [--tool-calls MODE] [--context-window N] [--max-output N] [--input-price USD] [--output-price USD]
  foya providers list [--json]
  foya providers remove NAME
  foya providers test NAME [--json]
  foya providers default NAME
--context-window and --max-output give the model's context window and output limit in tokens,
used when the server does not say them (0 unsets); foya doctor shows what is used.
--input-price and --output-price are the model's prices in US dollars per million prompt and
completion tokens, both or neither (0 unsets): the composer's token meter shows a session's cost at them.
API keys are read from standard input (--api-key-stdin), never from a flag, and kept in the
system keyring, else in a file only you can read in Foya's data folder.
--tool-calls: auto (default) reads tool calls the model wrote as text when the server sent none
of its own (local servers without a tool parser); native takes the server's only; text always reads them.
Exit codes: 0 done, 1 failed (or a test that did not pass), 2 usage error.`

// providersCmd: foya providers add|edit|list|remove|test|default.
func providersCmd(ctx context.Context, args []string, env Env) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		w := env.Stderr
		if len(args) > 0 {
			w = env.Stdout
		}
		fmt.Fprintln(w, providersUsage)
		if len(args) == 0 {
			return ExitUsage
		}
		return ExitOK
	}
	sub := args[0]
	fs, db := newFlags("foya providers "+sub, env)
	fs.Usage = func() { fmt.Fprintln(env.Stderr, providersUsage) }
	var (
		baseURL, model, toolCalls *string
		window, maxOutput         *int
		inPrice, outPrice         *float64
		keyStdin                  *bool
		asJSON                    *bool
		headers                   = headerFlags{}
		wantNames                 = 1
	)
	switch sub {
	case "add", "edit":
		baseURL = fs.String("base-url", "", "the OpenAI-compatible API base URL, such as http://127.0.0.1:8080/v1")
		model = fs.String("model", "", "the model to ask")
		fs.Var(headers, "header", "extra HTTP header NAME=VALUE (repeatable; for edit, replaces the headers)")
		keyStdin = fs.Bool("api-key-stdin", false, "read the API key from standard input (one line)")
		toolCalls = fs.String("tool-calls", "", "tool calls written as text: auto (default), native or text")
		window = fs.Int("context-window", 0, "the model's context window in tokens, for when the server does not say it (0: not set)")
		maxOutput = fs.Int("max-output", 0, "the most tokens of one answer, for when the server does not say it (0: not set)")
		inPrice = fs.Float64("input-price", 0, "the model's price in US dollars per million prompt tokens, such as 3 (0: not set)")
		outPrice = fs.Float64("output-price", 0, "the model's price in US dollars per million completion tokens, such as 15 (0: not set)")
	case "list":
		asJSON = fs.Bool("json", false, "print the profiles as JSON")
		wantNames = 0
	case "test":
		asJSON = fs.Bool("json", false, "print the result as JSON")
	case "remove", "default":
	default:
		fmt.Fprintf(env.Stderr, "foya providers: unknown subcommand %q\n%s\n", sub, providersUsage)
		return ExitUsage
	}
	pos, code, ok := parseFlags(fs, args[1:])
	if !ok {
		return code
	}
	if len(pos) != wantNames {
		fmt.Fprintln(env.Stderr, providersUsage)
		return ExitUsage
	}
	var key *string
	if keyStdin != nil && *keyStdin {
		k, err := readKey(env.Stdin)
		if err != nil {
			fmt.Fprintf(env.Stderr, "foya providers %s: %v\n", sub, err)
			return ExitUsage
		}
		key = &k
	}
	k, err := openKernel(ctx, *db, env)
	if err != nil {
		return fail(env, err)
	}
	defer k.Close()

	switch sub {
	case "add":
		in := profiles.ProviderInput{Name: pos[0], BaseURL: *baseURL, Model: *model, Headers: headers, ToolCalls: *toolCalls,
			ContextWindow: *window, MaxOutput: *maxOutput, InputPrice: *inPrice, OutputPrice: *outPrice}
		if key != nil {
			in.APIKey = *key
		}
		if *baseURL == "" {
			fmt.Fprintln(env.Stderr, "foya providers add: give --base-url, such as https://api.openai.com/v1")
			return ExitUsage
		}
		p, err := k.Profiles().Add(ctx, in)
		if err != nil {
			return providerFail(env, sub, err)
		}
		fmt.Fprintf(env.Stdout, "added provider %s: %s, model %s\n", p.Name, p.BaseURL, p.Model)
		keyNotice(env, k, p)
		if p.Default {
			fmt.Fprintf(env.Stdout, "%s is the default provider\n", p.Name)
		}
	case "edit":
		var e profiles.ProviderEdit
		if isSet(fs, "base-url") {
			e.BaseURL = baseURL
		}
		if isSet(fs, "model") {
			e.Model = model
		}
		if isSet(fs, "header") {
			e.Headers = headers
		}
		if isSet(fs, "tool-calls") {
			e.ToolCalls = toolCalls
		}
		if isSet(fs, "context-window") {
			e.ContextWindow = window
		}
		if isSet(fs, "max-output") {
			e.MaxOutput = maxOutput
		}
		if isSet(fs, "input-price") {
			e.InputPrice = inPrice
		}
		if isSet(fs, "output-price") {
			e.OutputPrice = outPrice
		}
		e.APIKey = key
		p, err := k.Profiles().Edit(ctx, pos[0], e)
		if err != nil {
			return providerFail(env, sub, err)
		}
		fmt.Fprintf(env.Stdout, "changed provider %s: %s, model %s\n", p.Name, p.BaseURL, p.Model)
		keyNotice(env, k, p)
	case "list":
		list, err := k.Profiles().List(ctx)
		if err != nil {
			return fail(env, err)
		}
		if *asJSON {
			printJSON(env.Stdout, list)
			return ExitOK
		}
		if len(list) == 0 {
			fmt.Fprintln(env.Stdout, "no providers: add one with foya providers add NAME --base-url URL --model M --api-key-stdin")
			return ExitOK
		}
		inFile := false
		for _, p := range list {
			mark := " "
			if p.Default {
				mark = "*"
			}
			where := "no key"
			switch p.KeyStore {
			case profiles.KeyInKeyring:
				where = "key in keyring"
			case profiles.KeyInFile:
				where, inFile = "key in file", true
			}
			hs := slices.Sorted(maps.Keys(p.Headers))
			for _, h := range p.SecretHeaders {
				hs = append(hs, h+" (kept with the key)")
			}
			extra := ""
			if len(hs) > 0 {
				extra = " · headers " + strings.Join(hs, ", ")
			}
			if p.ToolCalls != "" {
				extra += " · tool calls " + p.ToolCalls
			}
			if p.ContextWindow > 0 {
				extra += fmt.Sprintf(" · context window %d", p.ContextWindow)
			}
			if p.MaxOutput > 0 {
				extra += fmt.Sprintf(" · max output %d", p.MaxOutput)
			}
			if p.InputPrice > 0 || p.OutputPrice > 0 {
				extra += fmt.Sprintf(" · $%s/M input, $%s/M output", usd(p.InputPrice), usd(p.OutputPrice))
			}
			fmt.Fprintf(env.Stdout, "%s %s\t%s\tmodel %s\t%s%s\n", mark, p.Name, p.BaseURL, p.Model, where, extra)
		}
		if inFile {
			fileNotice(env, k)
		}
	case "remove":
		if err := k.Profiles().Remove(ctx, pos[0]); err != nil {
			return providerFail(env, sub, err)
		}
		fmt.Fprintf(env.Stdout, "removed provider %s and its key\n", pos[0])
	case "default":
		if err := k.Profiles().SetDefault(ctx, pos[0]); err != nil {
			return providerFail(env, sub, err)
		}
		fmt.Fprintf(env.Stdout, "%s is the default provider\n", pos[0])
	case "test":
		res, err := k.Profiles().Test(ctx, pos[0])
		if err != nil {
			return providerFail(env, sub, err)
		}
		if *asJSON {
			printJSON(env.Stdout, struct {
				profiles.ProviderCheck
				OK bool `json:"ok"`
			}{res, res.OK()})
		} else {
			fmt.Fprintf(env.Stdout, "provider %s: %s, model %s\n", res.Provider, res.BaseURL, res.Model)
			for _, s := range []struct {
				name string
				step profiles.CheckStep
			}{{"GET /models", res.Models}, {"streamed request", res.Stream}} {
				fmt.Fprintf(env.Stdout, "  %-17s %-12s %5d ms  %s\n", s.name, s.step.Status, s.step.Millis, s.step.Message)
			}
		}
		if !res.OK() {
			return ExitFailed
		}
	}
	return ExitOK
}

// usd words a price in dollars: 3, 0.15.
func usd(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// readKey reads one line, the API key, from standard input.
func readKey(r io.Reader) (string, error) {
	line, err := bufio.NewReader(io.LimitReader(r, 64<<10)).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("read the API key from standard input: %w", err)
	}
	key := strings.TrimSpace(line)
	if key == "" {
		return "", errors.New("--api-key-stdin: standard input held no key; pipe it in, such as: printenv MY_KEY | foya providers add ...")
	}
	return key, nil
}

func keyNotice(env Env, k *kernel.Kernel, p profiles.Provider) {
	switch p.KeyStore {
	case profiles.KeyInKeyring:
		fmt.Fprintln(env.Stdout, "the API key is in the system keyring")
	case profiles.KeyInFile:
		fileNotice(env, k)
	}
}

// fileNotice says, on standard output where the command's result is, that
// keys are in a file rather than a keyring.
func fileNotice(env Env, k *kernel.Kernel) {
	fmt.Fprintf(env.Stdout, "notice: no system keyring here (no D-Bus session with a Secret Service): API keys are kept in %s, readable by you only\n",
		k.Profiles().KeyFilePath())
}

// providerFail reports an error of a providers subcommand: bad input and
// unknown or duplicate names are usage errors (exit 2), the rest exit 1.
func providerFail(env Env, sub string, err error) int {
	fmt.Fprintf(env.Stderr, "foya providers %s: %v\n", sub, err)
	if errors.Is(err, profiles.ErrInvalidProvider) || errors.Is(err, profiles.ErrProviderNotFound) || errors.Is(err, profiles.ErrProviderExists) {
		return ExitUsage
	}
	return ExitFailed
}
