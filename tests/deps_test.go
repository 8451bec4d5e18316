package tests

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The dependency direction of docs/ARCHITECTURE.md: a package imports only
// packages above it in the list (and libraries); nothing under backend/
// imports the Wails runtime.
func TestDependencyDirection(t *testing.T) {
	order := []string{"testwait", "fspath", "jsonkeys", "fault", "event", "llm", "secret", "lockfile", "store", "trust", "provider", "profiles", "sandbox", "trash", "approval", "hooks", "tools", "workspace", "isolate", "capture", "mcp", "engine", "settings", "kernel", "doctor", "api", "server", "cli"}
	rank := map[string]int{}
	for i, p := range order {
		rank[p] = i
	}
	out, err := exec.Command("go", "list", "-e", "-json", "foya/backend/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		from := top(p.ImportPath)
		fromRank, known := rank[from]
		if !known {
			t.Errorf("package %s is not in the architecture's list; add it to docs/ARCHITECTURE.md and this test", p.ImportPath)
			continue
		}
		for _, imp := range p.Imports {
			if strings.HasPrefix(imp, "github.com/wailsapp/") {
				t.Errorf("%s imports %s: only app.go may use Wails", p.ImportPath, imp)
			}
			if !strings.HasPrefix(imp, "foya/backend/") {
				continue
			}
			to := top(imp)
			if to == from {
				continue
			}
			if r, ok := rank[to]; !ok || r >= fromRank {
				t.Errorf("forbidden import edge %s -> %s", p.ImportPath, imp)
			}
		}
	}
	// The engine must not reach storage or providers directly.
	for _, bad := range [][2]string{{"engine", "store"}, {"engine", "provider"}, {"tools", "engine"}} {
		out, _ := exec.Command("go", "list", "-e", "-deps", "foya/backend/"+bad[0]).Output()
		if strings.Contains(string(out), "foya/backend/"+bad[1]+"\n") {
			t.Errorf("%s depends on %s", bad[0], bad[1])
		}
	}
}

// top returns the first path element under foya/backend/ ("provider" for
// foya/backend/provider/providertest).
func top(path string) string {
	rest := strings.TrimPrefix(path, "foya/backend/")
	first, _, _ := strings.Cut(rest, "/")
	return first
}

// spec: W2 — the top level of the product card.
func TestTopLevelLayout(t *testing.T) {
	for _, p := range []string{"go.mod", "main.go", "app.go", "wails.json", "frontend", "backend/engine", "backend/tools",
		"backend/approval", "backend/sandbox", "backend/trash", "build", "tests"} {
		if _, err := os.Stat(filepath.Join("..", p)); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
}
