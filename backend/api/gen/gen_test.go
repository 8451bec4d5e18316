package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAPIClientIsFresh fails when frontend/src/backend/gen/api.ts is not
// what the generator writes for today's api.Service: run
// `go run ./backend/api/gen` (or make bindings). The front end's client
// is generated, never edited, so it cannot drift from the Service.
func TestAPIClientIsFresh(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	want, err := generate(root)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(root, outFile))
	if err != nil {
		t.Fatalf("%v: run go run ./backend/api/gen", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is stale: run go run ./backend/api/gen (or make bindings)", outFile)
	}
	// One function per method, each a transport call.
	for _, m := range []string{"Info", "Run", "Events", "Revert", "Answer", "CompletePath", "TestProvider"} {
		if !strings.Contains(string(got), "    "+m+": (") || !strings.Contains(string(got), "transport.call") {
			t.Errorf("api.ts has no function %s", m)
		}
	}
}

// TestTygoMapping: a package that tygo.yaml does not list is an error
// naming it, not a silently wrong import.
func TestTygoMapping(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "backend"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(mustAbs(t, "../../.."), apiDir), filepath.Join(root, apiDir)); err != nil {
		t.Fatal(err)
	}
	yaml := "packages:\n  - path: foya/backend/kernel\n    output_path: frontend/src/backend/gen/kernel.ts\n"
	if err := os.WriteFile(filepath.Join(root, tygoFile), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := generate(root)
	if err == nil || !strings.Contains(err.Error(), "is not in tygo.yaml") {
		t.Fatalf("generate with a partial tygo.yaml = %v; want an error naming the missing package", err)
	}
	mods, err := readTygo(filepath.Join(root, tygoFile))
	if err != nil || mods["foya/backend/kernel"] != "./kernel" {
		t.Fatalf("readTygo = %v, %v; want kernel at ./kernel", mods, err)
	}
}

func mustAbs(t *testing.T, p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
