// Package event owns what clients see of a session: the envelope Event of
// the session's append-only log, the list of event types (Types), one
// payload struct per type (RunStartData, ToolEndData, ...) and one
// constructor per type (RunStart, ToolEnd, ...) that marshals the payload
// into Event.Data. docs/events.md describes the types in words; the front
// end's TypeScript types are generated from this package (tygo.yaml, make
// bindings), so a payload is written once, here.
//
// The vocabulary payloads carry lives here too (Usage, FileChange,
// Instructions, RunStatus, CallState); package llm re-exports it under its
// old names. The approval types a payload carries (Action, Ask, Grant,
// Answer) mirror package approval's, field for field, because approval
// imports llm, which imports this package; the engine converts, and a test
// there checks that both marshal to the same bytes.
//
// The bytes are a contract: `foya exec --json` prints them and SQLite keeps
// them, and before this package most payloads were maps, which encoding/json
// writes with sorted keys. So the fields of the payloads that were maps are
// declared in the order of their JSON names, and a field that was written
// only sometimes is omitempty (or a pointer, where its zero value was
// written too). testdata/golden/events.jsonl pins one event of each type,
// byte for byte (go test ./backend/event -update rewrites it).
//
// It imports the standard library only; no other Foya package. Values are
// plain data, safe to share once built.
package event
