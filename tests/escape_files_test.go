//go:build linux

package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The file tools' half of the hidden paths and of Foya's own files: what
// bash cannot see, read, ls,
// glob and grep cannot show either, Foya's own configuration is not the
// agent's to write, wherever it lies, and Foya's database is never opened
// by a tool, in any mode. These attempts call a file tool instead of bash.
// Each is refused by the tool in Manual and Auto, before anything is asked
// (so the suite's person, who allows every question, cannot let it
// through); each works in Full Access, except the database ones, which
// are refused there too.

// homeSession makes the session's workspace the fake home folder: a
// session opened on the home folder, whose credential stores and Foya's
// data folder (.local/share/foya) lie inside the workspace.
func homeSession(t *testing.T, b *escBox) {
	fakeHome(t, b)
	b.ws = os.Getenv("HOME")
}

// outsideWorkspace keeps the box's own workspace, with the fake home
// outside it: the tools reach the home by absolute path or a link.
func outsideWorkspace(t *testing.T, b *escBox) { fakeHome(t, b) }

// homeFile reports whether the home holds rel.
func homeFile(rel string) func(*escBox, string) bool {
	return func(*escBox, string) bool { return pathExists(filepath.Join(os.Getenv("HOME"), rel)) }
}

// beside reports whether the kernel's database folder holds name.
func beside(name string) func(*escBox, string) bool {
	return func(b *escBox, _ string) bool { return pathExists(filepath.Join(filepath.Dir(b.db), name)) }
}

// opened reports whether a read or grep got at the database's bytes: read
// calls it a binary file, grep searched it and found nothing.
func opened(_ *escBox, res string) bool {
	return strings.Contains(res, "is a binary file") || strings.Contains(res, "No matches")
}

const (
	hiddenRefusal   = "hidden from the agent"
	ownRefusal      = "Foya's own configuration"
	databaseRefusal = "Foya's own database"
)

var fileAttempts = []escapeAttempt{
	// Credential stores, in a session on the home folder (item 6).
	{
		name: "read ~/.ssh/id_rsa in a home-folder session", setup: homeSession,
		tool: "read", args: `{"path":".ssh/id_rsa"}`, refusal: hiddenRefusal, happened: showsSecret(".ssh/id_rsa"),
	},
	{
		name: "grep the home folder for a key", setup: homeSession,
		tool: "grep", args: `{"pattern":"ECRET.ssh","path":"."}`, refusal: hiddenRefusal, leavesOut: true, happened: showsSecret(".ssh/id_rsa"),
	},
	{
		name: "grep inside ~/.aws", setup: homeSession,
		tool: "grep", args: `{"pattern":"SECRET","path":".aws"}`, refusal: hiddenRefusal, happened: showsAnySecret,
	},
	{
		name: "glob into ~/.aws", setup: homeSession,
		tool: "glob", args: `{"pattern":"**/*","path":".aws"}`, refusal: hiddenRefusal,
		happened: func(_ *escBox, res string) bool { return strings.Contains(res, "credentials") },
	},
	{
		name: "glob the home folder for credentials", setup: homeSession,
		tool: "glob", args: `{"pattern":"**/credentials"}`, refusal: hiddenRefusal, leavesOut: true,
		happened: func(_ *escBox, res string) bool { return strings.Contains(res, ".aws/credentials") },
	},
	{
		name: "ls ~/.ssh", setup: homeSession,
		tool: "ls", args: `{"path":".ssh"}`, refusal: hiddenRefusal,
		happened: func(_ *escBox, res string) bool { return strings.Contains(res, "id_rsa") },
	},
	{
		name: "read ~/.ssh/id_rsa by absolute path", setup: outsideWorkspace,
		tool: "read", args: `{"path":"FAKEHOME/.ssh/id_rsa"}`, refusal: hiddenRefusal, happened: showsSecret(".ssh/id_rsa"),
	},
	{
		name: "read a key through a link in the workspace",
		setup: func(t *testing.T, b *escBox) {
			fakeHome(t, b)
			if err := os.Symlink(filepath.Join(os.Getenv("HOME"), ".ssh"), filepath.Join(b.ws, "keys")); err != nil {
				t.Fatal(err)
			}
		},
		tool: "read", args: `{"path":"keys/id_rsa"}`, refusal: hiddenRefusal, happened: showsSecret(".ssh/id_rsa"),
	},

	// Foya's data folder, inside the workspace (items 3 and 6).
	{
		name: "read Foya's data folder in a home-folder session", setup: homeSession,
		tool: "read", args: `{"path":".local/share/foya/foya.db"}`, refusal: hiddenRefusal, happened: showsSecret(".local/share/foya/foya.db"),
	},
	{
		name: "write mcp.json of the data folder inside the workspace", setup: homeSession,
		tool: "write", args: `{"path":".local/share/foya/mcp.json","content":"{\"mcpServers\":{}}\n"}`,
		refusal: ownRefusal, happened: homeFile(".local/share/foya/mcp.json"),
	},
	{
		name: "write mcp-tokens.json of the data folder inside the workspace", setup: homeSession,
		tool: "write", args: `{"path":".local/share/foya/mcp-tokens.json","content":"{}\n"}`,
		refusal: ownRefusal, happened: homeFile(".local/share/foya/mcp-tokens.json"),
	},
	{
		name: "write provider-keys.json of the data folder inside the workspace", setup: homeSession,
		tool: "write", args: `{"path":".local/share/foya/provider-keys.json","content":"{}\n"}`,
		refusal: ownRefusal, happened: homeFile(".local/share/foya/provider-keys.json"),
	},
	{
		name: "write the user's rules in the data folder inside the workspace", setup: homeSession,
		tool: "write", args: `{"path":".local/share/foya/permissions.json","content":"{\"allow\":[]}\n"}`,
		refusal: ownRefusal, happened: homeFile(".local/share/foya/permissions.json"),
	},
	// Foya's other files beside a named database (--db), which the
	// sandbox does not hide as a folder: the tools still keep them.
	{
		name: "write mcp.json beside the database", tool: "write", args: `{"path":"FOYADIR/mcp.json","content":"{\"mcpServers\":{}}\n"}`,
		refusal: ownRefusal, happened: beside("mcp.json"),
	},
	{
		name: "write provider-keys.json beside the database", tool: "write", args: `{"path":"FOYADIR/provider-keys.json","content":"{}\n"}`,
		refusal: ownRefusal, happened: beside("provider-keys.json"),
	},
	{
		name: "write mcp-tokens.json beside the database", tool: "write", args: `{"path":"FOYADIR/mcp-tokens.json","content":"{}\n"}`,
		refusal: ownRefusal, happened: beside("mcp-tokens.json"),
	},

	// Foya's live database: never opened by a tool, in any mode (closing
	// a descriptor of it would drop SQLite's locks).
	{
		name: "read Foya's database with the read tool", tool: "read", args: `{"path":"FOYADB"}`,
		refusal: databaseRefusal, happened: opened, everyMode: true,
	},
	{
		name: "read the database's -wal file", tool: "read", args: `{"path":"FOYADB-wal"}`,
		refusal: databaseRefusal, happened: opened, everyMode: true,
	},
	{
		name: "grep Foya's database", tool: "grep", args: `{"pattern":"SQLite format 3","path":"FOYADB"}`,
		refusal: databaseRefusal, happened: opened, everyMode: true,
	},

	// Last: in Full Access it moves the key away for good (to the trash),
	// and the attempts above read it.
	{
		name: "delete ~/.ssh/id_rsa in a home-folder session", setup: homeSession,
		tool: "delete", args: `{"path":".ssh/id_rsa"}`, refusal: hiddenRefusal,
		happened: func(*escBox, string) bool { return !pathExists(filepath.Join(os.Getenv("HOME"), ".ssh", "id_rsa")) },
	},
}
