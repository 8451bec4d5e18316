package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"foya/backend/cli"
	"foya/backend/mcp/mcptest"
	"foya/backend/sandbox"
	"foya/backend/sandbox/sandboxtest"
	"foya/backend/tools"
)

// TestMain lets the test binary act as a foya exec child with test tools
// registered (FOYA_TEST_CHILD=exec), so crash tests can kill a real process
// in the middle of a tool call.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == sandbox.HelperArg {
		os.Exit(sandbox.HelperMain(os.Args[2:]))
	}
	mcptest.Main() // the test binary as an MCP server, when asked
	if os.Getenv("FOYA_TEST_CHILD") == "exec" {
		os.Exit(cli.Run(context.Background(), os.Args[1:], cli.Env{Tools: []tools.Tool{marker{}}}))
	}
	code := m.Run()
	if binPath != "" && buildErr == nil {
		os.RemoveAll(filepath.Dir(binPath))
	}
	if err := sandboxtest.CheckDevNull(); err != nil {
		fmt.Fprintln(os.Stderr, "tests:", err)
		code = 1
	}
	os.Exit(code)
}

// marker appends a line to a file, then blocks until cancelled: a tool
// with a side effect that is still running when its process dies.
type marker struct{}

func (marker) Spec() tools.Spec {
	return tools.Spec{Name: "mark", Description: "Marks a file.", Schema: json.RawMessage(
		`{"type":"object","properties":{"file":{"type":"string"}},"required":["file"]}`)}
}
func (marker) Run(ctx context.Context, rc *tools.RunContext, c tools.Call) (tools.Result, error) {
	var a struct{ File string }
	json.Unmarshal(c.Arguments, &a)
	f, err := os.OpenFile(a.File, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return tools.Errorf("mark: %v", err), nil
	}
	f.WriteString("ran\n")
	f.Close()
	select {
	case <-ctx.Done():
	case <-time.After(time.Hour):
	}
	return tools.Text("marked"), nil
}

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// foyaBinary builds the real foya binary once per test run.
func foyaBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "foya-bin-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "foya")
		if runtime.GOOS == "windows" {
			binPath += ".exe"
		}
		cmd := exec.Command("go", "build", "-o", binPath, "..")
		out, err := cmd.CombinedOutput()
		if err != nil {
			buildErr = err
			binPath = string(out)
		}
	})
	if buildErr != nil {
		t.Fatalf("go build: %v\n%s", buildErr, binPath)
	}
	return binPath
}
