// Package doctor is foya doctor: it looks at what Foya needs on this
// machine (its folders, the database's size and integrity, what confines
// commands, the trash, whether each provider profile answers, how each MCP
// server starts, the workspace indexes' disk) and says, for every problem,
// what to do. A database that cannot be opened is one of the things it
// reports, so it is not a kernel method: it opens a kernel, through the
// kernel's public API, only on a sound database, and never creates one.
//
// It imports the kernel and the packages below it, never a front end.
package doctor
