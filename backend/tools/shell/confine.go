package shell

import (
	"path/filepath"
	"slices"

	"foya/backend/sandbox"
)

// Confinement is how a long-lived program (a sandboxed MCP server) is kept
// in the sandbox of a workspace: the policy a sandboxed bash command gets,
// and Sweep, which deals with the .git entries that appeared since the
// policy was made, as a sandboxed command's end does.
type Confinement struct {
	// Policy writes only the workspace, keeps every .git at any depth
	// (with the git folders .git files name, their common folders and the
	// hook folders of core.hooksPath), every .agents and .foya read-only,
	// hides the credential stores and Foya's database, and cuts the
	// network.
	Policy sandbox.Policy
	// Incomplete says the walk for protected folders stopped at its
	// bounds: a .git deeper than it went stays writable.
	Incomplete bool
	// Sweep renames aside every .git that appeared in the workspace since
	// the policy was made (git would run its hooks and config outside any
	// sandbox) and returns one sentence per entry; who names the program
	// ("the MCP server helper"). Safe to call more than once: an entry
	// renamed aside is gone.
	Sweep func(who string) []string
}

// Confine returns the confinement of a program working in workdir, built
// from what the shell's own sandboxed commands get, so that a program
// started another way (a project's MCP server) can reach no more than a
// command: the same walk for protected folders, the same read-only and
// hidden paths, the same renaming aside of repositories made meanwhile.
func (s *Shell) Confine(workdir string) Confinement {
	p := protect(workdir)
	return Confinement{
		Policy: sandbox.Policy{
			Restricted:       true,
			Writable:         []string{workdir},
			ReadOnly:         []string{filepath.Join(workdir, ".foya"), filepath.Join(workdir, ".agents")},
			ReadOnlyIfExists: slices.Concat(p.paths, s.opts.Own), // Foya's own files, as for bash
			Hidden:           s.hidden(),
		},
		Incomplete: p.incomplete,
		Sweep: func(who string) []string {
			return quarantineFor(workdir, p, who, "Make repositories outside the server (with git in a terminal, or bash with sandbox: false)")
		},
	}
}
