// Package capture records what shell commands change in a session's
// workspace as File Changes, and watches the workspace for changes made
// outside Foya. It owns the policy over the workspace indexes
// (backend/workspace): who a change found by a look is blamed on (the
// command that ran, a live background command, Foya's own tools, or
// someone outside Foya), the watcher of each session and what it holds
// back while commands run, and the background commands on record for
// recovery after a crash.
//
// A Capture is the shell's Capture, Locker and recovery (tools/shell),
// the shell's Jobs (Capture.Jobs), and the engine's Changing hook
// (Capture.Changing). It is handed what it needs as small interfaces
// (Deps): the session's File Changes and kept contents, its stale-read
// records, the engine's ordering point (Record, Commit, LockChanges) and
// the shell's background commands. The kernel wires it in one place.
//
// Invariants:
//   - The saved workspace index never runs ahead of the stored records: a
//     look that finds a live background command's changes saves the index
//     only once they are stored, so a crash before that leaves them to
//     recovery (Recover, RecoverJobs) instead of losing them.
//   - The session's change lock is held from a look until the records of
//     what it found are stored: the shell holds it for Before and, through
//     the call, from After until the call's result is stored; Lock takes
//     it for a background command's capture at its end, and the engine
//     calls Changing under it. No tool changes a path between a look and
//     its records, and no look records a change twice.
//   - A live background command's change is recorded, against its call,
//     before a file tool (or a revert) changes the same path (Changing),
//     so each path's records have no hole.
//   - What a shell command changes is the command's, not an outside
//     change: the watcher holds back the paths it sees change while a
//     command runs and checks them after its After, once the command's
//     own changes are known. A change Foya's own tools made is never
//     blamed on a command nor reported as outside.
//   - Every event and record goes through the engine's ordering point
//     (Timeline), so each session's events keep their seq order.
//
// It imports workspace, tools (files, shell), event and llm, and
// libraries; never engine, store or kernel. A Capture is safe for
// concurrent use; its watches end with Close.
package capture
