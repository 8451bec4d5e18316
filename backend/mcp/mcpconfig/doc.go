// Package mcpconfig is the MCP servers a user configures and approves:
// the user's own file, a project's files, importing other tools' files,
// approving a project's servers, and the mcp.Manager that runs them
// (Servers). The kernel builds one Servers and hands it out (Kernel.MCP);
// front ends call it directly.
//
// MCP servers come from two places. The user's own are in File in the data
// folder, in the mcpServers format (foya mcp add, remove and import write
// it); they start without asking, unless the file lies in a session's
// workspace, where that session's agent could have written it
// (trust.Ledger.Exposed). A project's are in its .foya/mcp.json and
// .mcp.json (the first wins on a name): opening a project must not start
// its programs, so each runs only once the user approved what it runs: its
// entry and the content of the workspace code it runs or loads
// (mcp.Entry.Code). The approval is kept in the trust ledger, by the
// fingerprint of both, and checked before every start, restarts included:
// a changed entry or script is unapproved again. A project's stdio server
// runs inside the sandbox, the shell's own, unless the approval lifts it;
// for a server that runs workspace code, only with the user's confirmation
// of that risk.
//
// Its errors are marked with fault's kinds or store.ErrNotFound, which
// kernel.Code names for transports. It must not import the kernel or a
// front end. A Servers is safe for concurrent use.
package mcpconfig
