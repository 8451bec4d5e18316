package files

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"foya/backend/approval"
)

// fenced makes the fixture's tools keep db (Foya's database), hidden (as
// the sandbox hides) and own (Foya's configuration), all inside the
// workspace: a session opened on the folder that holds Foya's data.
func (f *fixture) fenced(db, hidden, own []string) {
	f.t.Helper()
	abs := func(rels []string) []string {
		var out []string
		for _, r := range rels {
			out = append(out, filepath.Join(f.dir, r))
		}
		return out
	}
	o := Options{Reads: f.reads, Trash: f.trash, Database: abs(db), Own: abs(own),
		Hidden: func() []string { return append(abs(hidden), abs(db)...) }}
	for _, tl := range Tools(o) {
		f.tools[tl.Spec().Name] = tl
	}
}

func wantRefused(t *testing.T, what, text string, isError bool, words ...string) {
	t.Helper()
	if !isError {
		t.Errorf("%s was not refused: %s", what, text)
		return
	}
	for _, w := range words {
		if !strings.Contains(text, w) {
			t.Errorf("%s: the refusal does not say %q: %s", what, w, text)
		}
	}
}

// spec: A1 — the file tools never open Foya's database, its side
// files or its lock files, in any mode, Full Access included: closing a
// descriptor of the file would drop the kernel's POSIX locks on it.
// Listing by name (a stat) is fine.
func TestFenceNeverOpensTheDatabase(t *testing.T) {
	f := newFixture(t)
	f.put("data/foya.db", "SQLite format 3 MARK\n", 0o644)
	f.put("data/foya.db-wal", "MARK wal\n", 0o644)
	f.put("data/foya.db.owners/own_1.lock", "MARK lock\n", 0o644)
	f.put("notes.txt", "MARK notes\n", 0o644)
	f.fenced([]string{"data/foya.db", "data/foya.db-wal", "data/foya.db-shm", "data/foya.db-journal", "data/foya.db.owners"}, nil, nil)
	f.mode(approval.FullAccess, true)
	for _, c := range []struct{ tool, args string }{
		{ReadName, `{"path":"data/foya.db"}`},
		{ReadName, `{"path":"data/foya.db-wal"}`},
		{ReadName, `{"path":"data/foya.db.owners/own_1.lock"}`},
		{GrepName, `{"pattern":"MARK","path":"data/foya.db"}`},
		{GrepName, `{"pattern":"MARK","path":"data/foya.db.owners"}`},
		{WriteName, `{"path":"data/foya.db-journal","content":"x"}`},
		{EditName, `{"path":"data/foya.db","old_string":"MARK","new_string":"x"}`},
		{DeleteName, `{"path":"data/foya.db-wal"}`},
		{DeleteName, `{"path":"data"}`},
	} {
		r := f.call(c.tool, c.args)
		wantRefused(t, c.tool+" "+c.args, r.Text, r.IsError, "Foya's own database", "Nothing was", "foya sessions")
	}
	if got := f.get("data/foya.db"); got != "SQLite format 3 MARK\n" {
		t.Errorf("the database changed: %q", got)
	}
	if _, err := os.Lstat(filepath.Join(f.dir, "data/foya.db-journal")); err == nil {
		t.Error("a -journal file was made beside the database")
	}
	// A search of the folder holding it searches the rest, and says what
	// it left out.
	r := f.call(GrepName, `{"pattern":"MARK"}`)
	if r.IsError || !strings.Contains(r.Text, "notes.txt") || strings.Contains(r.Text, "foya.db") && !strings.Contains(r.Text, "Left out") {
		t.Errorf("grep of the workspace: %s", r.Text)
	}
	for _, leak := range []string{"MARK wal", "MARK lock", "SQLite format"} {
		if strings.Contains(r.Text, leak) {
			t.Errorf("grep opened a database file: %s", r.Text)
		}
	}
	// ls and glob only look at names: the database shows.
	if r := f.call(ListName, `{"path":"data"}`); r.IsError || !strings.Contains(r.Text, "foya.db") {
		t.Errorf("ls in Full Access: %s", r.Text)
	}
}

// spec: A1, A2 — what the sandbox hides (credential stores, Foya's data
// folder) the file tools hide too, in Manual and Auto: a read or write of
// it is refused unasked, saying why and what the user can do, and ls,
// glob and grep of a folder holding it leave it out and say so. Full
// Access reads it.
func TestFenceHidesWhatTheSandboxHides(t *testing.T) {
	for _, m := range []approval.Mode{approval.Manual, approval.Auto} {
		t.Run(string(m), func(t *testing.T) {
			f := newFixture(t)
			f.put(".ssh/id_rsa", "SECRET key\n", 0o644)
			f.put("src/a.txt", "SECRET plain\n", 0o644)
			f.fenced(nil, []string{".ssh"}, nil)
			f.mode(m, true) // a person who allows every question
			for _, c := range []struct{ tool, args string }{
				{ReadName, `{"path":".ssh/id_rsa"}`},
				{ListName, `{"path":".ssh"}`},
				{GlobName, `{"pattern":"*","path":".ssh"}`},
				{GrepName, `{"pattern":"SECRET","path":".ssh"}`},
				{WriteName, `{"path":".ssh/authorized_keys","content":"evil"}`},
				{DeleteName, `{"path":".ssh/id_rsa"}`},
			} {
				f.asked = nil
				r := f.call(c.tool, c.args)
				wantRefused(t, c.tool+" "+c.args, r.Text, r.IsError, "hidden from the agent", "Nothing was", "Full Access")
				if strings.Contains(r.Text, "SECRET key") || strings.Contains(r.Text, "id_rsa\n") {
					t.Errorf("%s showed the hidden file: %s", c.tool, r.Text)
				}
				if len(f.asked) != 0 {
					t.Errorf("%s asked %v before refusing", c.tool, f.asked)
				}
			}
			if r := f.call(ReadName, `{"path":".ssh/id_rsa"}`); !strings.Contains(r.Text, "sandbox.readable") {
				t.Errorf("a refused read does not name the setting that allows it: %s", r.Text)
			}
			if _, err := os.Lstat(filepath.Join(f.dir, ".ssh/authorized_keys")); err == nil {
				t.Error("a refused write made the file")
			}
			if got := f.get(".ssh/id_rsa"); got != "SECRET key\n" {
				t.Errorf("the key changed or went: %q", got)
			}
			for _, c := range []struct{ tool, args string }{
				{ListName, `{}`},
				{GlobName, `{"pattern":"**/*"}`},
				{GrepName, `{"pattern":"SECRET"}`},
			} {
				r := f.call(c.tool, c.args)
				if r.IsError || strings.Contains(r.Text, "id_rsa") || strings.Contains(r.Text, "SECRET key") ||
					!strings.Contains(r.Text, "Left out, hidden from the agent") || !strings.Contains(r.Text, ".ssh") {
					t.Errorf("%s of the workspace: %s", c.tool, r.Text)
				}
			}
			if r := f.call(DeleteName, `{"path":"."}`); !r.IsError || !strings.Contains(r.Text, "hidden") && !strings.Contains(r.Text, "workspace") {
				t.Errorf("delete of the folder holding the key: %s", r.Text)
			}
		})
	}
	f := newFixture(t)
	f.put(".ssh/id_rsa", "SECRET key\n", 0o644)
	f.fenced(nil, []string{".ssh"}, nil)
	f.mode(approval.FullAccess, true)
	if r := f.call(ReadName, `{"path":".ssh/id_rsa"}`); r.IsError || !strings.Contains(r.Text, "SECRET key") {
		t.Errorf("Full Access: %s", r.Text)
	}
	if r := f.call(GrepName, `{"pattern":"SECRET"}`); r.IsError || !strings.Contains(r.Text, "SECRET key") {
		t.Errorf("Full Access grep: %s", r.Text)
	}
}

// spec: A1 — Foya's own configuration (mcp.json, the provider keys,
// the user's rules) is not the agent's to write outside Full Access, even
// where the user made it readable: reading it works, writing, editing or
// deleting it (or a folder holding it) is refused and leaves it as it was.
func TestFenceKeepsFoyasOwnFiles(t *testing.T) {
	f := newFixture(t)
	f.put("data/mcp.json", "{\"mcpServers\": {}}\n", 0o644)
	f.fenced(nil, nil, []string{"data/mcp.json"})
	f.mode(approval.Auto, true)
	if r := f.call(ReadName, `{"path":"data/mcp.json"}`); r.IsError {
		t.Fatalf("read: %s", r.Text)
	}
	for _, c := range []struct{ tool, args string }{
		{WriteName, `{"path":"data/mcp.json","content":"{\"mcpServers\":{\"x\":{\"command\":\"evil\"}}}"}`},
		{EditName, `{"path":"data/mcp.json","old_string":"{}","new_string":"{\"x\":{\"command\":\"evil\"}}"}`},
		{DeleteName, `{"path":"data/mcp.json"}`},
		{DeleteName, `{"path":"data"}`},
	} {
		r := f.call(c.tool, c.args)
		wantRefused(t, c.tool+" "+c.args, r.Text, r.IsError, "Foya's own configuration", "MCP servers", "Nothing was changed", "foya mcp")
	}
	if got := f.get("data/mcp.json"); got != "{\"mcpServers\": {}}\n" {
		t.Errorf("mcp.json changed: %q", got)
	}
	f.mode(approval.FullAccess, true)
	if r := f.call(EditName, `{"path":"data/mcp.json","old_string":"{}","new_string":"{\"x\":{\"command\":\"mine\"}}"}`); r.IsError {
		t.Errorf("Full Access edit: %s", r.Text)
	}
}
