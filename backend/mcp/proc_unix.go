//go:build unix

package mcp

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
)

func ownGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}

// fifos makes a private folder with two FIFOs, in and out, and opens our
// ends read-write so that neither open blocks before the server opens its
// own.
func fifos() (dir string, in, out *os.File, err error) {
	dir, err = os.MkdirTemp("", "foya-mcp-")
	if err != nil {
		return "", nil, nil, fmt.Errorf("sandboxed server: %w", err)
	}
	fail := func(err error) (string, *os.File, *os.File, error) {
		if in != nil {
			in.Close()
		}
		os.RemoveAll(dir)
		return "", nil, nil, fmt.Errorf("sandboxed server: %w", err)
	}
	for _, n := range []string{"in", "out"} {
		if err := syscall.Mkfifo(filepath.Join(dir, n), 0o600); err != nil {
			return fail(err)
		}
	}
	if in, err = os.OpenFile(filepath.Join(dir, "in"), os.O_RDWR, 0); err != nil {
		return fail(err)
	}
	if out, err = os.OpenFile(filepath.Join(dir, "out"), os.O_RDWR, 0); err != nil {
		return fail(err)
	}
	return dir, in, out, nil
}
