// Package store keeps the kernel's whole state in one SQLite database
// (modernc.org/sqlite, no cgo): sessions, runs, the canonical history, the
// per-session event log, tool calls, content-addressed blobs, artifacts and
// settings.
//
// Blobs are keyed by the sha256 of their bytes and stored once: a blob
// already there is not written again, and blobs over 1 MiB are kept in
// 1 MiB chunks so that SQLite never copies a whole large value. Large
// tool-call arguments (llm.ArgsRef) are such blobs, shared by the call's
// row, the assistant message and, for a write, the file change.
//
// Only this package has SQL. Rows never leave it: callers get the types of
// package llm. Migrations are embedded and numbered and run at Open.
//
// It imports only package llm (and libraries). A Store is safe for
// concurrent use: writes go through a single connection in WAL mode, so there
// is one writer at a time, and reads use a separate pool.
package store
