// Package tools holds the tool contract (Tool, Spec, Call, Result,
// RunContext), the Registry that maps names to tools and turns them into
// provider schemas, exposure, and the built-in tool_search. Built-in tools
// live in sub-packages and are registered explicitly by the kernel.
//
// It imports package llm and libraries only; never engine, store, provider
// or a front end. A Registry is safe for concurrent use once built: Add
// happens at start-up, lookups afterwards.
package tools
