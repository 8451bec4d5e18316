package store

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// lockHolder names the process that holds a write lock on the database
// (its file, or the write-ahead log's index, where a WAL writer locks), from
// /proc/locks: "process 1234 (sqlite3)", or "" when none is seen (a process
// in another PID namespace shows no number). It never opens the database's
// files: closing a descriptor of one would drop this process's own locks.
func lockHolder(path string) string {
	inodes := map[uint64]bool{}
	for _, p := range []string{path, path + "-shm"} {
		var st syscall.Stat_t
		if syscall.Stat(p, &st) == nil {
			inodes[st.Ino] = true
		}
	}
	f, err := os.Open("/proc/locks")
	if err != nil {
		return ""
	}
	defer f.Close()
	self := os.Getpid()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// 1: POSIX  ADVISORY  WRITE 1234 08:02:1311 120 120
		fs := strings.Fields(sc.Text())
		if len(fs) < 6 || fs[1] != "POSIX" || fs[3] != "WRITE" {
			continue
		}
		pid, err := strconv.Atoi(fs[4])
		if err != nil || pid <= 0 || pid == self {
			continue
		}
		id := strings.Split(fs[5], ":")
		ino, err := strconv.ParseUint(id[len(id)-1], 10, 64)
		if err != nil || !inodes[ino] {
			continue
		}
		comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
		if name := strings.TrimSpace(string(comm)); name != "" {
			return fmt.Sprintf("process %d (%s)", pid, name)
		}
		return fmt.Sprintf("process %d", pid)
	}
	return ""
}
