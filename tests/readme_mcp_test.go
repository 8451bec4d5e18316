package tests

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// readmeBlock returns the shell block of README.md that follows marker.
func readmeBlock(t *testing.T, marker string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(data), marker)
	if !ok {
		t.Fatalf("README.md has no %q", marker)
	}
	_, rest, ok = strings.Cut(rest, "```sh\n")
	if !ok {
		t.Fatalf("README.md: no ```sh block after %q", marker)
	}
	block, _, ok := strings.Cut(rest, "```")
	if !ok {
		t.Fatalf("README.md: the block after %q does not end", marker)
	}
	return block
}

// TestREADMEMCPExample runs exactly the commands of the README's offline
// MCP example, with sh from a clone's root, as a new user: a fresh HOME
// and data folder, the real foya binary on PATH, Go's caches kept (the
// build must not download anything). The example server builds, is
// added, and foya mcp list shows it ready with its two tools: the README's
// example must work offline, as written.
// spec: M1
func TestREADMEMCPExample(t *testing.T) {
	block := readmeBlock(t, "<!-- mcp-offline-example")
	if !strings.Contains(block, "foya mcp add") {
		t.Fatalf("the README's example adds no server:\n%s", block)
	}
	foya := foyaBinary(t)
	home := t.TempDir()
	goenv := map[string]string{}
	for _, k := range []string{"GOCACHE", "GOMODCACHE", "GOPATH", "GOFLAGS", "GOPROXY", "GONOSUMDB", "GOTOOLCHAIN"} {
		out, err := exec.Command("go", "env", k).Output()
		if err != nil {
			t.Fatal(err)
		}
		goenv[k] = strings.TrimSpace(string(out))
	}
	cmd := exec.Command("sh", "-eu", "-c", block)
	cmd.Dir = ".."
	cmd.Env = []string{"HOME=" + home, "XDG_DATA_HOME=" + filepath.Join(home, "data"),
		"PATH=" + filepath.Dir(foya) + string(os.PathListSeparator) + os.Getenv("PATH"), "LANG=C.UTF-8"}
	for k, v := range goenv {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("the README's commands failed: %v\n%s\n--- commands:\n%s", err, out.String(), block)
	}
	got := out.String()
	for _, want := range []string{"notes (user, stdio) ready", "2 tools"} {
		if !strings.Contains(got, want) {
			t.Errorf("the README's commands printed\n%s\nwant %q", got, want)
		}
	}
	if _, err := os.Stat(filepath.Join(home, ".local", "bin", "foya-notes")); err != nil {
		t.Errorf("the example server was not built where the README says: %v", err)
	}
}
