package kernel

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// processOwner identifies this process in the runs it drives: its PID and,
// where the OS tells, its start time, so a recycled PID is not mistaken for
// it.
func processOwner() string {
	pid := os.Getpid()
	return fmt.Sprintf("%d:%s", pid, startTime(pid))
}

// ownerAlive reports whether the process that wrote owner still runs.
func ownerAlive(owner string) bool {
	pidText, start, ok := strings.Cut(owner, ":")
	pid, err := strconv.Atoi(pidText)
	if !ok || err != nil || pid <= 0 {
		return false
	}
	if pid == os.Getpid() {
		return start == startTime(pid)
	}
	if st := startTime(pid); st != "" || start != "" {
		return st == start
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	return p.Signal(syscall.Signal(0)) == nil
}

// startTime returns a process's start time in clock ticks since boot from
// /proc (Linux), or "" where /proc is missing or the process is gone.
func startTime(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	// The command name (field 2) may hold spaces and parentheses: skip
	// past its closing parenthesis.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return ""
	}
	fields := strings.Fields(s[i+1:])
	// Fields after the name start at field 3 (the state); starttime is
	// field 22. A zombie has ended: it only waits to be reaped.
	if len(fields) < 20 || fields[0] == "Z" || fields[0] == "X" {
		return ""
	}
	return fields[19]
}
