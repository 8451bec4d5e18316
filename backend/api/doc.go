// Package api is the method set every graphical front end uses: Service's
// exported methods ARE the API. The desktop binds a *Service in Wails, and
// foya serve (backend/server) exposes the same methods over HTTP by
// reflection, so no method is written twice. The typed TypeScript client
// frontend/src/backend/gen/api.ts is generated from this package by
// `go run ./backend/api/gen` (a test fails when it is stale).
//
// Rules for a method, which the reflection layer and the generator rely
// on: it takes plain JSON values (no context: the Service holds the one it
// was built with) and returns (T, error) or error; every error it returns
// is an *Error, whose code comes from kernel.Code. Helpers that must not be
// bound (waiting for runs at shutdown) are package functions, not methods.
//
// api imports the kernel and its vocabulary packages; never a front end,
// net/http or the Wails runtime. A Service is safe for concurrent use; runs
// it starts belong to it and end with its context (Wait waits for them).
package api
