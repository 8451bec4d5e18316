package cli

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"foya/backend/approval"
	"foya/backend/kernel"
	"foya/backend/settings"
)

// settingsCmd: foya settings [--json] | foya settings list [--json] |
// foya settings set KEY VALUE.
func settingsCmd(ctx context.Context, args []string, env Env) int {
	fs, db := newFlags("foya settings", env)
	asJSON := fs.Bool("json", false, "print the settings as JSON")
	pos, code, ok := parseFlags(fs, args)
	if !ok {
		return code
	}
	if len(pos) == 1 && pos[0] == "help" {
		settingsUsage(env.Stdout)
		return ExitOK
	}
	if len(pos) != 0 && (len(pos) != 1 || pos[0] != "list") && (len(pos) != 3 || pos[0] != "set") {
		settingsUsage(env.Stderr)
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
	if len(pos) == 1 {
		list := settings.List(all)
		if *asJSON {
			printJSON(env.Stdout, list)
			return ExitOK
		}
		printSettings(env.Stdout, list)
		return ExitOK
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

// settingsUsage is the help of foya settings, with every key of
// settings.Table and its doc line.
func settingsUsage(w io.Writer) {
	fmt.Fprintln(w, "usage: foya settings [--json]            the settings in force, KEY = VALUE")
	fmt.Fprintln(w, "       foya settings list [--json]       every key with its value, default and doc")
	fmt.Fprintln(w, "       foya settings set KEY VALUE       change one")
	fmt.Fprintln(w, "keys:")
	for _, s := range settings.Table {
		fmt.Fprintf(w, "  %s\n      %s\n", s.Name(), s.Doc)
	}
}

// printSettings prints foya settings list: per setting its key, the value
// in force (or "not set"), its default, and its doc line.
func printSettings(w io.Writer, list []settings.Entry) {
	for _, e := range list {
		value := e.Value
		switch {
		case e.Family != "" && len(e.Set) == 0:
			value = "none set"
		case e.Family != "":
			var set []string
			for _, k := range slices.Sorted(maps.Keys(e.Set)) {
				set = append(set, k+" = "+e.Set[k])
			}
			value = strings.Join(set, ", ")
		case value == "":
			value = "not set"
		}
		def := e.Default
		if def == "" {
			def = "none"
		}
		fmt.Fprintf(w, "%s = %s (default: %s)\n    %s\n", e.Name(), value, def, e.Doc)
	}
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
