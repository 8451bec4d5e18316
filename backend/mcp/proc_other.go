//go:build !unix

package mcp

import (
	"errors"
	"os"
	"os/exec"
)

func ownGroup(*exec.Cmd) {}

func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}

func fifos() (string, *os.File, *os.File, error) {
	return "", nil, nil, errors.New(`sandboxed MCP servers need Linux or macOS: remove "sandbox" from the entry to run it unconfined`)
}
