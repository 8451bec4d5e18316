// Package llm is Foya's shared vocabulary: the canonical messages of a
// conversation, tool calls and their results, the stream items a model
// provider yields, and the records the store keeps. The events clients see,
// and what their payloads carry (usage, file changes, run and call states),
// are package event's; llm re-exports them under their old names.
//
// It imports the standard library and package event only, so every other
// package may depend on it. Values are plain data; nothing here does I/O or holds locks. The one
// piece of logic is how large arguments are cut into content-addressed
// pieces and put back together byte for byte (SplitArgs, JoinArgs), which
// the engine and the store must agree on.
package llm
