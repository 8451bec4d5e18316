// Package trust keeps what the user trusted in a workspace, for the things
// Foya does not act on until the user approved them: a project's rules file
// (.foya/permissions.json), a project's hooks (.foya/hooks.json) and a
// project's MCP servers. Like direnv's allow
// or an editor's workspace trust, an approval is kept in Foya's database
// (the store's trust table), keyed by the workspace's real path (Dir) and a
// subject (Rules, Hooks, MCP(name)), and holds only while the Fingerprint of what
// is there now is the fingerprint approved: changed content is unapproved
// again, whoever changed it.
//
// One scheme for every subject: a fingerprint is the hex sha256 of the
// bytes that decide what runs. For a rules or hooks file those are the
// file's exact bytes (approval.Rules.Hash is the same sum); for an MCP server, its entry
// and the digest of the workspace code it runs, as package mcpconfig joins
// them. Approvals kept before this package hold as they were.
//
// It also says when one of Foya's own files (the user's rules, the user's
// MCP servers) lies in a session's workspace (Ledger.Exposed): that
// session's agent could have written it, so it is not the user's word.
//
// It imports store and nothing above it. A Ledger is safe for concurrent
// use.
package trust
