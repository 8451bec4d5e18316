// Package lockfile holds advisory locks on files that the operating system
// releases when the process holding them ends, however it ends (kill -9
// included): flock(2) on Unix, LockFileEx on Windows.
//
// Foya uses them to tell whether another Foya process is alive without
// comparing process IDs, which differ across PID namespaces and are
// recycled: a process is alive while its lock is held. A lock belongs to
// the open file, not to the process, so two holders in one process
// exclude each other like two processes do; the descriptor is close-on-exec,
// so children never inherit it.
//
// A lock file may be removed by whoever holds its lock exclusively; Create
// and the Current check make sure nobody ends up holding a lock on a file
// that was removed meanwhile.
//
// It imports only the standard library and golang.org/x/sys. A File is safe
// for use by one goroutine at a time.
package lockfile
