package tests

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"foya/backend/kernel"
	"foya/backend/provider/providertest"
	"foya/backend/tools/files"
)

// WorkspaceFiles lists a session's folder for the composer's @-mentions:
// files and folders as the file tools walk it, without .git, ignored or
// hidden folders, sorted; a session whose folder is gone is unavailable
// with words saying what to do.
func TestWorkspaceFilesList(t *testing.T) {
	h := newHarness(t, nil)
	ctx := context.Background()
	write := func(rel, body string) {
		p := filepath.Join(h.dir, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("notes.txt", "n")
	write("src/main.go", "package main")
	write(".gitignore", "build/\n*.log\n")
	write("build/out.bin", "x")
	write("run.log", "x")
	write(".git/config", "x")
	write(".cache/x", "x")
	write(".env.example", "x")
	sess := h.session("auto")
	got, err := h.k.WorkspaceFiles(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, e := range got.Entries {
		p := e.Path
		if e.Dir {
			p += "/"
		}
		paths = append(paths, p)
	}
	want := []string{".env.example", ".gitignore", "notes.txt", "src/", "src/main.go"}
	if !slices.Equal(paths, want) || got.Truncated {
		t.Errorf("WorkspaceFiles = %q (truncated %v); want %q, not truncated", paths, got.Truncated, want)
	}

	if err := os.RemoveAll(h.dir); err != nil {
		t.Fatal(err)
	}
	_, err = h.k.WorkspaceFiles(ctx, sess.ID)
	if !errors.Is(err, kernel.ErrUnavailable) || !strings.Contains(err.Error(), "restore it") {
		t.Errorf("WorkspaceFiles of a session whose folder is gone: %v; want unavailable, saying to restore it", err)
	}
	if _, err := h.k.WorkspaceFiles(ctx, "nope"); !kernel.IsNotFound(err) {
		t.Errorf("WorkspaceFiles of an unknown session: %v; want not found", err)
	}
}

// The listing is bounded: a folder of more entries than the bound gives
// exactly the bound, marked truncated.
func TestWorkspaceFilesBounded(t *testing.T) {
	dir := t.TempDir()
	for i := range 30 {
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%02d", i)), nil, 0o644)
	}
	list, truncated, err := files.List(context.Background(), dir, 10)
	if err != nil || len(list) != 10 || !truncated {
		t.Errorf("List of 30 files, at most 10 = %d entries, truncated %v, %v; want 10, true", len(list), truncated, err)
	}
	list, truncated, err = files.List(context.Background(), dir, 0)
	if err != nil || len(list) != 30 || truncated {
		t.Errorf("List of 30 files = %d entries, truncated %v, %v; want 30, false", len(list), truncated, err)
	}
	if kernel.MaxWorkspaceFiles != files.MaxListed {
		t.Errorf("kernel.MaxWorkspaceFiles = %d, files.MaxListed = %d; want them equal", kernel.MaxWorkspaceFiles, files.MaxListed)
	}
}

// A message mentioning files (@path) gives the model their content in the
// user message, bounded as one read is; a binary file is named and said
// not included; a folder lists its names; a file deleted before sending
// fails the message before its run starts, saying which.
func TestMentionedFilesReachTheModel(t *testing.T) {
	h := newHarness(t, nil, providertest.Say("ok"))
	ctx := context.Background()
	os.WriteFile(filepath.Join(h.dir, "notes.txt"), []byte("the secret word is marmalade\n"), 0o644)
	os.WriteFile(filepath.Join(h.dir, "blob.bin"), []byte{0x7f, 'E', 'L', 'F', 0, 0, 0, 1, 2, 3}, 0o644)
	big := strings.Repeat("a line of the big file\n", 10000) // 230 KB, over read's 50 KiB
	os.WriteFile(filepath.Join(h.dir, "big.txt"), []byte(big), 0o644)
	os.MkdirAll(filepath.Join(h.dir, "src", "pkg"), 0o755)
	os.WriteFile(filepath.Join(h.dir, "src", "a.go"), nil, 0o644)
	sess := h.session("auto")

	_, err := h.k.Run(ctx, kernel.RunOptions{SessionID: sess.ID, Prompt: "look at @notes.txt", Model: h.model(),
		Files: []string{"notes.txt", "blob.bin", "big.txt", "src"}})
	if err != nil {
		t.Fatal(err)
	}
	reqs := h.srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests; want 1", len(reqs))
	}
	var user string
	for _, m := range reqs[0].Messages {
		if m.Role == "user" {
			user = m.Content
		}
	}
	for _, want := range []string{
		"look at @notes.txt",
		"[file notes.txt, mentioned by the user]", "the secret word is marmalade",
		"[file blob.bin, mentioned by the user]\n(binary file", "not included)",
		"[file big.txt, mentioned by the user]",
		"[folder src, mentioned by the user: 2 entries]\na.go\npkg/",
	} {
		if !strings.Contains(user, want) {
			t.Errorf("the user message lacks %q:\n%.600s", want, user)
		}
	}
	if len(user) > 2*files.ReadMaxBytes || strings.Count(user, "a line of the big file") >= 10000 {
		t.Errorf("the user message is %d bytes: big.txt was not bounded as read bounds it", len(user))
	}

	os.Remove(filepath.Join(h.dir, "notes.txt"))
	_, err = h.k.Run(ctx, kernel.RunOptions{SessionID: sess.ID, Prompt: "again @notes.txt", Model: h.model(), Files: []string{"notes.txt"}})
	if !errors.Is(err, kernel.ErrInvalid) || !strings.Contains(err.Error(), "@notes.txt is not in the session's folder") {
		t.Errorf("a mention of a deleted file: %v; want invalid, naming it", err)
	}
	for _, bad := range []string{"../outside.txt", "/etc/passwd"} {
		if _, err := h.k.Run(ctx, kernel.RunOptions{SessionID: sess.ID, Prompt: "x", Model: h.model(), Files: []string{bad}}); !errors.Is(err, kernel.ErrInvalid) {
			t.Errorf("a mention of %s: %v; want invalid", bad, err)
		}
	}
	if n := len(h.srv.Requests()); n != 1 {
		t.Errorf("%d requests after the refused messages; want still 1 (nothing sent)", n)
	}
}

// Foya's own files in a session's folder (its database beside the
// project) are neither offered nor sent to the model, as the file tools
// never read them.
func TestMentionsLeaveFoyasOwnFiles(t *testing.T) {
	h := newHarness(t, nil, providertest.Say("ok"))
	ctx := context.Background()
	dir := filepath.Dir(h.db)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("n\n"), 0o644)
	sess, err := h.k.CreateSession(ctx, kernel.NewSession{Workdir: dir, ApprovalMode: "auto", Model: "m", Title: "db beside"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := h.k.WorkspaceFiles(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range got.Entries {
		if strings.HasPrefix(e.Path, "foya.db") {
			t.Errorf("WorkspaceFiles offers %s, Foya's database", e.Path)
		}
	}
	if !slices.ContainsFunc(got.Entries, func(e kernel.WorkspaceEntry) bool { return e.Path == "notes.txt" }) {
		t.Errorf("WorkspaceFiles = %+v; want notes.txt in it", got.Entries)
	}
	_, err = h.k.Run(ctx, kernel.RunOptions{SessionID: sess.ID, Prompt: "x", Model: h.model(), Files: []string{"foya.db"}})
	if !errors.Is(err, kernel.ErrInvalid) || !strings.Contains(err.Error(), "Foya's own") {
		t.Errorf("a mention of Foya's database: %v; want invalid, saying it is Foya's own", err)
	}
	if n := len(h.srv.Requests()); n != 0 {
		t.Errorf("%d model requests; want none", n)
	}
}
