package tests

import (
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"foya/backend/kernel"
	"foya/backend/mcp/mcptest"
)

// spec: A1, M2 — a user upgrading from the Foya that kept approvals as
// settings rows keeps them: the project's rules stay approved and the
// project's MCP server still starts, without being approved again.
func TestUpgradeKeepsWhatWasTrusted(t *testing.T) {
	h := newHarness(t, nil)
	ctx := context.Background()
	if err := os.MkdirAll(filepath.Join(h.dir, ".foya"), 0o755); err != nil {
		t.Fatal(err)
	}
	escWrite(t, filepath.Join(h.dir, ".foya", "permissions.json"), `{"allow":[{"tool":"write"}]}`)
	exe := copyExe(t, h.dir)
	cfg, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"proj": map[string]any{
		"command": exe, "env": map[string]string{mcptest.Env: "ok"}}}})
	escWrite(t, filepath.Join(h.dir, ".mcp.json"), string(cfg))
	pr, err := h.k.ProjectRules(ctx, h.dir)
	if err != nil || pr.Status != kernel.RulesUnapproved {
		t.Fatalf("before: %+v, %v", pr, err)
	}
	shown := shownMCP(t, h.k, h.dir, "proj")
	if err := h.k.Close(); err != nil {
		t.Fatal(err)
	}

	// The database as that Foya left it: schema 7, no trust table (nor
	// what the migrations after 7 add), the approvals in settings rows
	// keyed by the workspace's real path.
	db, err := sql.Open("sqlite", "file:"+h.db)
	if err != nil {
		t.Fatal(err)
	}
	rules, _ := json.Marshal(map[string]any{"sha256": pr.Hash, "approvedAt": "2026-01-02T03:04:05Z"})
	server, _ := json.Marshal(map[string]any{"sha256": shown.Fingerprint, "entry": "", "approvedAt": "2026-01-02T03:04:05Z"})
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{"DROP TABLE trust", nil},
		{"DROP TABLE sandbox_grants", nil},
		{"DROP TABLE session_isolation", nil},
		{"DROP INDEX sessions_forked_from", nil},
		{"ALTER TABLE sessions DROP COLUMN forked_at", nil},
		{"ALTER TABLE sessions DROP COLUMN forked_from", nil},
		{"DROP TABLE change_reviews", nil},
		{"DROP TABLE review_comments", nil},
		{"ALTER TABLE sessions DROP COLUMN title_by_user", nil},
		{"DROP INDEX file_changes_path", nil},
		{"DROP INDEX file_changes_own", nil},
		{"ALTER TABLE file_changes DROP COLUMN tool", nil},
		{"PRAGMA user_version = 7", nil},
		{"INSERT INTO settings (key, value) VALUES (?, ?)", []any{"rules.approved:" + pr.Workdir, string(rules)}},
		{"INSERT INTO settings (key, value) VALUES (?, ?)", []any{"mcp.approved:" + pr.Workdir + "\x00proj", string(server)}},
	} {
		if _, err := db.Exec(q.sql, q.args...); err != nil {
			t.Fatalf("%s: %v", q.sql, err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	h.open(nil)
	if pr, err := h.k.ProjectRules(ctx, h.dir); err != nil || pr.Status != kernel.RulesApproved || pr.ApprovedAt == nil {
		t.Errorf("after the upgrade: rules %+v, %v; want approved as before", pr, err)
	}
	if s := shownMCP(t, h.k, h.dir, "proj"); s.State != "ready" || !s.Sandbox {
		t.Errorf("after the upgrade: the project's server is %s (%s), sandboxed %v; want it ready in the sandbox, approved as before", s.State, s.Error, s.Sandbox)
	}
	all, err := h.k.Settings(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for key := range all {
		if strings.HasPrefix(key, "rules.approved:") || strings.HasPrefix(key, "mcp.approved:") {
			t.Errorf("setting %q is still there after the upgrade", key)
		}
	}
}
