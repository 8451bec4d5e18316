package kernel

import (
	"context"
	"path/filepath"

	"foya/backend/mcp"
	"foya/backend/mcp/mcpauth"
	"foya/backend/mcp/mcpconfig"
	"foya/backend/profiles"
	"foya/backend/settings"
)

// SettingMCPDeferShare is the share of the context budget (a number from
// 0 to 1, default 0.1) the MCP tools' schemas may take before the tools
// of servers not marked alwaysLoad are deferred behind tool_search; 0
// never defers.
const SettingMCPDeferShare = "mcp.deferShare"

const defaultDeferShare = 0.1

// newMCP builds the MCP servers of dataDir: their tools go to the
// kernel's registry, a stdio server starts from the commands' environment
// and, when sandboxed, in the shell's own confinement, made afresh at each
// start.
func newMCP(k *Kernel, dataDir string, budget int) *mcpconfig.Servers {
	if budget <= 0 {
		budget = 96_000 // engine.ContextConfig's default
	}
	return mcpconfig.New(mcpconfig.Options{DataDir: dataDir, Trust: k.trust, Manager: mcp.Options{
		Registry: k.reg,
		DeferTokens: func() int {
			return int(k.deferShare(context.Background()) * float64(budget))
		},
		Environ: k.commandEnv,
		Changed: k.mcpChanged,
		Confine: func(workdir string) mcp.Confinement {
			c := k.shell.Confine(workdir)
			return mcp.Confinement{Policy: c.Policy, Sweep: c.Sweep}
		},
		// Sign-in tokens of HTTP servers go where provider keys go (the
		// keyring, else a 0600 file), never to the database.
		OAuth: &mcpauth.Options{Store: profiles.NewTokens(dataDir)},
	}})
}

// tokenFile is where MCP sign-in tokens go without a keyring: hidden
// from sandboxed commands like the provider keys' file.
func (k *Kernel) tokenFile() string {
	return filepath.Join(absPath(k.info.DataDir), profiles.TokenFile)
}

// MCP returns the MCP servers: the user's and the projects', their
// approvals, resources and prompts.
func (k *Kernel) MCP() *mcpconfig.Servers { return k.mcp }

func (k *Kernel) deferShare(ctx context.Context) float64 {
	v, ok, err := k.store.Setting(ctx, SettingMCPDeferShare)
	if err != nil || !ok {
		return defaultDeferShare
	}
	f, err := settings.ParseShare(v)
	if err != nil {
		return defaultDeferShare
	}
	return f
}
