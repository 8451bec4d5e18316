package cli

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"time"

	"foya/backend/doctor"
	"foya/backend/kernel"
	"foya/backend/profiles"
	"foya/backend/tools/files"
)

// doctorCmd: foya doctor [--json] [--db PATH] [--timeout D]. It prints
// what doctor.Run found, section by section, each problem with what to
// do; the exit code is 1 when something is a problem, so that scripts can
// branch on it.
func doctorCmd(ctx context.Context, args []string, env Env) int {
	fs, db := newFlags("doctor", env)
	asJSON := fs.Bool("json", false, "print the report as JSON")
	timeout := fs.Duration("timeout", doctor.ProviderTimeout, "how long to wait for each provider")
	pos, code, ok := parseFlags(fs, args)
	if !ok {
		return code
	}
	if len(pos) > 0 {
		return fail(env, errUsage{"usage: foya doctor [--json] [--db PATH] [--timeout 5s]"})
	}
	if *timeout <= 0 || *timeout > 10*time.Minute {
		return fail(env, errUsage{fmt.Sprintf("--timeout %s: want more than 0 and at most 10m", *timeout)})
	}
	r := doctor.Run(ctx, doctor.Options{DBPath: dbPath(*db, env), Probe: env.Probe, ProviderTimeout: *timeout})
	if *asJSON {
		printJSON(env.Stdout, r)
	} else {
		printDoctor(env.Stdout, r)
	}
	if len(r.Problems()) > 0 {
		return ExitFailed
	}
	return ExitOK
}

func printDoctor(w io.Writer, r doctor.Report) {
	fmt.Fprintln(w, versionLine(kernel.Info{Version: r.Version, Commit: r.Commit, Date: r.Date}))
	section := func(name string, fs ...doctor.Finding) {
		fmt.Fprintf(w, "\n%s\n", name)
		for _, f := range fs {
			fmt.Fprintf(w, "  %-8s %-14s %s\n", f.Status, f.Name, f.Detail)
			if f.Fix != "" && f.Status != doctor.OK {
				fmt.Fprintf(w, "  %-8s %-14s what to do: %s\n", "", "", f.Fix)
			}
		}
	}
	section("Folders", r.Folders...)
	section("Database", r.Database.Finding)
	section("Sandbox", r.Sandbox.Finding)
	section("Trash", r.Trash.Finding)
	section("Providers", r.Providers.Finding)
	for _, p := range r.Providers.Profiles {
		f := p.Finding
		if p.Default {
			f.Name += " (default)"
		}
		line := func(f doctor.Finding) {
			fmt.Fprintf(w, "  %-8s %-14s %s\n", f.Status, f.Name, f.Detail)
			if f.Fix != "" && f.Status != doctor.OK {
				fmt.Fprintf(w, "  %-8s %-14s what to do: %s\n", "", "", f.Fix)
			}
		}
		line(f)
		if p.Window != nil {
			fmt.Fprintf(w, "  %-8s %-14s %s\n", "", "", windowLine(*p.Window))
			if p.Window.Warning != "" {
				fmt.Fprintf(w, "  %-8s %-14s note: %s\n", "", "", p.Window.Warning)
			}
		}
	}
	section("MCP servers", append([]doctor.Finding{r.MCP.Finding}, r.MCP.Servers...)...)
	if r.Workspace.Name != "" {
		section("Workspace index", r.Workspace.Finding)
	}
	if r.Copies.Name != "" {
		list := []doctor.Finding{r.Copies.Finding}
		for _, c := range r.Copies.List {
			f := doctor.Finding{Name: c.SessionID, Status: doctor.OK, Detail: fmt.Sprintf("%s, %s of %s: %s", c.Kind, files.Size(c.Bytes), c.Folder, c.Dir)}
			if c.Orphan {
				f.Status, f.Detail = doctor.Warning, f.Detail+" (no session: removed at the next start)"
			}
			list = append(list, f)
		}
		section("Isolated sessions", list...)
	}
	if n := len(r.Problems()); n > 0 {
		fmt.Fprintf(w, "\n%d %s: see \"what to do\" above\n", n, plural(n, "problem", "problems"))
	} else {
		fmt.Fprintln(w, "\nno problems found")
	}
}

// windowLine says a profile's model's context window and where it comes
// from: "model m: context window 32,768 tokens, output up to 4,096, from
// Ollama's /api/show (...)".
func windowLine(w profiles.ContextWindow) string {
	line := fmt.Sprintf("model %s: context window %s tokens, output up to %s, ", w.Model, thousands(w.Window), thousands(w.OutputLimit))
	if w.Source == profiles.WindowDefault {
		return line + "(" + w.Detail + ")"
	}
	if w.Source == profiles.WindowFromSetting {
		return line + "from " + w.Detail
	}
	return line + w.Detail
}

// thousands writes n with commas: 32,768.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
