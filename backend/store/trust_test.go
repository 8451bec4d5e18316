package store

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// oldDatabase makes a database as the Foya before the trust table left it:
// the migrations up to and including upTo, then the settings rows given.
func oldDatabase(t *testing.T, upTo int, settings map[string]string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "old.db")
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	entries, err := migrations.ReadDir("migrations")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries { // ReadDir sorts by name
		n, _ := strconv.Atoi(strings.SplitN(e.Name(), "_", 2)[0])
		if n > upTo {
			break
		}
		body, _ := migrations.ReadFile("migrations/" + e.Name())
		if _, err := db.Exec(string(body)); err != nil {
			t.Fatalf("%s: %v", e.Name(), err)
		}
	}
	if _, err := db.Exec(fmt.Sprintf("PRAGMA user_version = %d", upTo)); err != nil {
		t.Fatal(err)
	}
	for k, v := range settings {
		if _, err := db.Exec(`INSERT INTO settings (key, value) VALUES (?, ?)`, k, v); err != nil {
			t.Fatal(err)
		}
	}
	return path
}

// An upgrade keeps every approval the user gave: the prefixed settings rows
// of the Foya before become trust rows with the same fingerprint and time,
// and the settings keep only the user's settings.
func TestTrustMigrationKeepsWhatWasApproved(t *testing.T) {
	ctx := context.Background()
	at := "2026-03-04T05:06:07.123456789Z"
	mcpRow := `{"sha256":"aaa1","entry":"eee1","code":{"run.py":"c0de"},"unconfined":true,"approvedAt":"` + at + `"}`
	path := oldDatabase(t, 7, map[string]string{
		"rules.approved:/home/ada/proj":           `{"sha256":"bbb2","approvedAt":"` + at + `"}`,
		"rules.approved:/home/ada/revoked":        "",
		"rules.approved:/home/ada/garbled":        "{not json",
		"mcp.approved:/home/ada/proj\x00helper":   mcpRow,
		"mcp.approved:/home/ada/späce dir\x00ünï": `{"sha256":"ccc3","entry":"eee3","approvedAt":"` + at + `"}`,
		"mcp.approved:/home/ada/proj\x00revoked":  "",
		"run.max_steps":                           "12",
	})
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	want, _ := time.Parse(time.RFC3339Nano, at)
	for _, c := range []struct{ dir, subject, fp, detail string }{
		{"/home/ada/proj", "rules", "bbb2", ""},
		{"/home/ada/proj", "mcp:helper", "aaa1", `{"entry":"eee1","code":{"run.py":"c0de"},"unconfined":true}`},
		{"/home/ada/späce dir", "mcp:ünï", "ccc3", `{"entry":"eee3"}`},
	} {
		tr, ok, err := s.Trust(ctx, c.dir, c.subject)
		if err != nil || !ok {
			t.Errorf("Trust(%q, %q) = %v, %v after the upgrade; want the approval kept", c.dir, c.subject, ok, err)
			continue
		}
		if tr.Fingerprint != c.fp || tr.Detail != c.detail || !tr.ApprovedAt.Equal(want) {
			t.Errorf("Trust(%q, %q) = %+v; want fingerprint %s, detail %s, approved at %s", c.dir, c.subject, tr, c.fp, c.detail, at)
		}
	}
	for _, c := range [][2]string{{"/home/ada/revoked", "rules"}, {"/home/ada/garbled", "rules"}, {"/home/ada/proj", "mcp:revoked"}} {
		if _, ok, _ := s.Trust(ctx, c[0], c[1]); ok {
			t.Errorf("Trust(%q, %q) holds: a row that approved nothing became an approval", c[0], c[1])
		}
	}
	all, err := s.Settings(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 1 || all["run.max_steps"] != "12" {
		t.Errorf("settings after the upgrade = %q; want only run.max_steps, the approvals moved out", all)
	}
}

func TestTrustRows(t *testing.T) {
	ctx := context.Background()
	s := open(t)
	at := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	if err := s.SetTrust(ctx, Trust{Workdir: "/w", Subject: "rules", Fingerprint: "f1", ApprovedAt: at}); err != nil {
		t.Fatal(err)
	}
	if err := s.SetTrust(ctx, Trust{Workdir: "/w", Subject: "rules", Fingerprint: "f2", Detail: "{}", ApprovedAt: at}); err != nil {
		t.Fatal(err)
	}
	tr, ok, err := s.Trust(ctx, "/w", "rules")
	if err != nil || !ok || tr.Fingerprint != "f2" || tr.Detail != "{}" || !tr.ApprovedAt.Equal(at) {
		t.Fatalf("Trust = %+v, %v, %v; want the second approval", tr, ok, err)
	}
	if _, ok, _ := s.Trust(ctx, "/w", "mcp:x"); ok {
		t.Fatal("another subject of the workspace is approved too")
	}
	if err := s.DeleteTrust(ctx, "/w", "rules"); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := s.Trust(ctx, "/w", "rules"); ok {
		t.Fatal("a withdrawn approval still holds")
	}
}
