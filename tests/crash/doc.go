// Package crash is the crash harness: it builds foya,
// runs `foya exec` against a scripted model whose calls write, edit and
// delete files and run shell commands (one in the background), kills it
// with SIGKILL at a random moment, opens a kernel on what it left (so
// recovery runs, as when the app starts) and checks what a user relies on:
// the database is sound, no call ran twice, unfinished runs are
// interrupted, every File Change matches the disk or says it is
// unconfirmed, no temporary file is left, and revert still works.
//
// The script's bash calls change the tracked files too (append, rm, mv,
// chmod, truncate), so the checks hold for shell changes too;
// background commands do as well (-bg-tracked, on by default).
//
// `go test ./tests/crash` kills 10 times; `make crash` 100 times
// (-kills). Every kill has its own seed, printed, so a failure replays with
// -seed and -kills 1.
package crash
