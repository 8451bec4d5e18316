// Package engine runs the agent loop: sessions, runs (turns), steps and
// batches of tool calls. It streams a model step, announces tool calls as
// soon as they are known (spec L1), runs only complete calls (L2) in a
// parallel lane of at most five and a serial lane (P1-P5), feeds results back
// in the model's order, and stores every event before any client sees it:
// every commit of a session's events, a run's or not (Record, Commit,
// recovery), goes through one publisher (publish.go) that stores it and
// publishes it before the session's next commit is stored. Hold keeps runs
// out of a session while the kernel reverts its files. A change lock per
// session (LockChanges, RunContext.LockChanges) keeps a look at the
// workspace and the commit of what it found, and a change Foya's tools make
// and the commit of its record, from interleaving; a call's end is stored
// before the lock it holds is released.
// At each turn's start it reads the project's instructions (AGENTS.md, else
// CLAUDE.md, beneath the working directory, bounded) into a system prompt
// that stays the same bytes for every step of the turn.
//
// The context compiler (context.go) projects old large tool results (spec
// O5) and, when a request would pass a share of the model's known window,
// compacts (compact.go): the model summarises the oldest messages, and the
// note that replaces them in requests (the summary, then the session's file
// changes and task list rendered from the records) is stored in a
// context.compacted event, whose bytes every later request sends (R2). The
// canonical history is never changed by either.
//
// Every tool's output passes Config.Mask on its way from the tool's Result
// to the stored Tool Message and its events (result text, display diff,
// file-change diffs, tool.update progress), so no tool can store or send a
// known secret value.
//
// It declares what it needs as small interfaces (Model, Store) and never
// imports store, provider or a front end. An Engine runs any number of
// sessions at once, one run per session; every goroutine it starts ends
// before the run that started it returns.
package engine
