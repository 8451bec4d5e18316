// Package kernel is the facade every front end uses (desktop, foya serve,
// foya exec): it opens the store, builds the tool registry and the engine,
// recovers runs left behind by a crash (a run belongs to the kernel whose
// ownership lock it names, see owner.go; a kernel's lock dies with its
// process, so two processes may share a database), and offers sessions,
// runs, history and live events as plain Go types. It keeps the user's
// approvals of project rules files (ProjectRules, TrustProjectRules,
// RevokeProjectRules: in the trust ledger, package trust) and hands the
// engine, at each decision, the user's own rules and the project's, marked
// approved only when the file's bytes still have the approved fingerprint.
// It wires the provider profiles (backend/profiles, Profiles) to the store,
// the data folder and its secrets, so that the keys a run's model uses are
// masked and kept from commands, and builds each run's model from the
// session's profile. It wires the MCP servers
// (package mcpconfig, handed out by MCP) to its registry, shell and trust
// ledger. It says what the binary is (BuildInfo: version, and the commit
// and its date linked in at build time or recorded by go build); foya
// doctor (package doctor) says what works on this machine through the
// kernel's public API.
//
// Isolated sessions (isolate.go, docs/isolated-sessions.md) work in a git
// worktree or a copy of their folder that backend/isolate makes beside the
// data folder; the kernel records the isolation with the session, runs
// the folder's setup command in the copy (sandboxed, its output as
// isolation.setup events), applies and discards copies, removes them with
// their session and, at Open, removes those whose session is gone. A copy
// shares its folder's approvals of project files (trust.Ledger.MapDir).
//
// What shell commands change in a workspace and the watcher of outside
// changes are backend/capture's; the kernel wires it in Open and hands it
// the store, the engine and the shell as the small interfaces it declares.
//
// Its API speaks its own types (dto.go, dto_api.go), never an inner
// package's, except the domain services it hands out (Profiles), which
// speak theirs; every error it or they return wraps one of the sentinels of
// errors.go, which Code names for transports. Every event of a session, whoever makes
// it, is stored and published through the engine's one ordering point, so
// subscribers see each session's events in seq order; a revert is refused
// while the session has a run going.
//
// It must not import a front end or the Wails runtime. A Kernel is safe for
// concurrent use.
package kernel
