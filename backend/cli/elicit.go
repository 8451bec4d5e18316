package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"foya/backend/event"
	"foya/backend/mcp"
	"foya/backend/tools"
)

// How foya mcp tools and call answer a server's questions (--elicit).
const (
	elicitAsk      = "ask"
	elicitDefaults = "defaults"
	elicitDecline  = "decline"
)

// elicitMode checks --elicit: "" is decline; ask needs a terminal (or
// Env.Interactive).
func elicitMode(mode string, env Env) (string, error) {
	switch mode {
	case "", elicitDecline:
		return elicitDecline, nil
	case elicitDefaults:
		return mode, nil
	case elicitAsk:
		if !isTerminal(env.Stdin) && !env.Interactive {
			return "", fmt.Errorf("--elicit ask asks on the terminal, and standard input is not one: use --elicit defaults or --elicit decline")
		}
		return mode, nil
	}
	return "", fmt.Errorf("--elicit is ask, defaults or decline, not %q", mode)
}

// cliElicit answers a server's elicitation/create as --elicit says,
// telling the person on standard error.
func cliElicit(mode string, env Env) mcp.ElicitFunc {
	in := bufio.NewReader(env.Stdin)
	return func(ctx context.Context, _ *tools.RunContext, _ string, e mcp.Elicitation) (mcp.ElicitAnswer, error) {
		w := env.Stderr
		fmt.Fprintf(w, "foya: the MCP server %s asks: %s\n", e.Server, oneLine(e.Message))
		if e.Unshowable != "" {
			fmt.Fprintf(w, "foya: declined: %s\n", e.Unshowable)
			return mcp.ElicitAnswer{Action: mcp.Decline, Note: e.Unshowable}, nil
		}
		switch mode {
		case elicitDefaults:
			if e.Mode == event.ElicitURL {
				fmt.Fprintf(w, "foya: declined: it asks to open %s, which --elicit defaults does not do\n", e.URL)
				return mcp.ElicitAnswer{Action: mcp.Decline, Note: "foya mcp --elicit defaults does not open URLs"}, nil
			}
			vals := mcp.Defaults(e.Fields)
			for _, f := range e.Fields {
				if _, ok := vals[f.Name]; f.Required && !ok {
					note := fmt.Sprintf("the required field %q has no default", f.Name)
					fmt.Fprintf(w, "foya: declined: %s (--elicit defaults)\n", note)
					return mcp.ElicitAnswer{Action: mcp.Decline, Note: note}, nil
				}
			}
			fmt.Fprintf(w, "foya: accepted with the form's defaults (--elicit defaults): %s\n", valuesText(e.Fields, vals))
			return mcp.ElicitAnswer{Action: mcp.Accept, Content: vals}, nil
		case elicitAsk:
			return askTerminal(ctx, in, w, e)
		}
		fmt.Fprintln(w, "foya: declined (--elicit decline; give --elicit ask to answer)")
		return mcp.ElicitAnswer{Action: mcp.Decline, Note: "foya mcp --elicit decline declines every question"}, nil
	}
}

// readLine reads one line, or returns ctx's error when it ends first (the
// read goes on in the background: the command is ending).
func readLine(ctx context.Context, in *bufio.Reader) (string, error) {
	type line struct {
		s   string
		err error
	}
	ch := make(chan line, 1)
	go func() {
		s, err := in.ReadString('\n')
		ch <- line{s, err}
	}()
	select {
	case l := <-ch:
		if l.err != nil && (l.err != io.EOF || l.s == "") {
			return "", fmt.Errorf("standard input ended before the answer")
		}
		return strings.TrimRight(l.s, "\r\n"), nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// askTerminal asks each field on the terminal, then whether to send.
func askTerminal(ctx context.Context, in *bufio.Reader, w io.Writer, e mcp.Elicitation) (mcp.ElicitAnswer, error) {
	if e.Mode == event.ElicitURL {
		fmt.Fprintf(w, "It asks you to open: %s\nOpen it yourself and answer y (done), n (decline) or c (cancel): ", e.URL)
		s, err := readLine(ctx, in)
		if err != nil {
			return mcp.ElicitAnswer{}, err
		}
		return mcp.ElicitAnswer{Action: choice(s, mcp.Decline)}, nil
	}
	vals := map[string]any{}
	for _, f := range e.Fields {
		for {
			fmt.Fprint(w, prompt(f))
			s, err := readLine(ctx, in)
			if err != nil {
				return mcp.ElicitAnswer{}, err
			}
			v, set, msg := parseField(f, strings.TrimSpace(s))
			if msg == "" && set {
				if errs := mcp.Validate([]event.ElicitField{f}, map[string]any{f.Name: v}); errs != nil {
					msg = errs[f.Name]
				}
			}
			if msg == "" && !set && f.Required {
				msg = "required"
			}
			if msg != "" {
				fmt.Fprintf(w, "  %s %s; try again\n", label(f), msg)
				continue
			}
			if set {
				vals[f.Name] = v
			}
			break
		}
	}
	fmt.Fprint(w, "Send these values? y (send), n (decline), c (cancel): ")
	s, err := readLine(ctx, in)
	if err != nil {
		return mcp.ElicitAnswer{}, err
	}
	a := mcp.ElicitAnswer{Action: choice(s, mcp.Accept)}
	if a.Action == mcp.Accept {
		a.Content = vals
	}
	return a, nil
}

// choice reads y, n or c; empty is def.
func choice(s, def string) string {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "":
		return def
	case "y", "yes":
		return mcp.Accept
	case "c", "cancel":
		return mcp.Cancel
	}
	return mcp.Decline
}

func label(f event.ElicitField) string {
	if f.Title != "" {
		return f.Title
	}
	return f.Name
}

// prompt is a field's question: its label, what it takes, its default.
func prompt(f event.ElicitField) string {
	var b strings.Builder
	b.WriteString(label(f))
	if f.Description != "" {
		b.WriteString(" — " + oneLine(f.Description))
	}
	var what []string
	switch {
	case len(f.Options) > 0:
		opts := make([]string, len(f.Options))
		for i, o := range f.Options {
			opts[i] = o.Value
			if o.Title != "" && o.Title != o.Value {
				opts[i] += " (" + o.Title + ")"
			}
		}
		what = append(what, "one of "+strings.Join(opts, ", "))
	case f.Type == event.FieldBoolean:
		what = append(what, "y or n")
	default:
		what = append(what, f.Type)
		if f.Format != "" {
			what = append(what, f.Format)
		}
	}
	if f.Required {
		what = append(what, "required")
	}
	fmt.Fprintf(&b, " [%s]", strings.Join(what, ", "))
	if f.Default != nil {
		fmt.Fprintf(&b, " (default %v)", f.Default)
	}
	b.WriteString(": ")
	return b.String()
}

// parseField reads a typed answer; empty takes the default (set false
// when there is none).
func parseField(f event.ElicitField, s string) (v any, set bool, msg string) {
	if s == "" {
		return f.Default, f.Default != nil, ""
	}
	switch f.Type {
	case event.FieldBoolean:
		switch strings.ToLower(s) {
		case "y", "yes", "true":
			return true, true, ""
		case "n", "no", "false":
			return false, true, ""
		}
		return nil, false, "must be y or n"
	case event.FieldNumber, event.FieldInteger:
		n, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, false, "must be a number"
		}
		return n, true, ""
	}
	return s, true, ""
}

// valuesText lists values in the form's order.
func valuesText(fields []event.ElicitField, vals map[string]any) string {
	var parts []string
	for _, f := range fields {
		if v, ok := vals[f.Name]; ok {
			parts = append(parts, fmt.Sprintf("%s=%v", f.Name, v))
		}
	}
	if len(parts) == 0 {
		return "(none)"
	}
	return strings.Join(parts, ", ")
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
