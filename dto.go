package main

// The types of this file are what the window sends the Go App; tygo.yaml
// generates their TypeScript (frontend/src/backend/gen/app.ts) from this
// file alone.

// UIReport is what the front end rendered, sent once through UIReady.
type UIReport struct {
	Version  string `json:"version"`
	Sessions int    `json:"sessions"`
	// Error is the error the window shows instead of the sessions, if any.
	Error string `json:"error"`
	// Open is the session the window opened for the smoke test (SmokeOpen),
	// "" when none; Turns and Cards count the prompts and the tool cards its
	// conversation view rendered.
	Open  string `json:"open"`
	Turns int    `json:"turns"`
	Cards int    `json:"cards"`
	// Images counts the images of artifacts its cards show, decoded.
	Images int `json:"images"`
	// Setup means the window opened on the first-run setup (no provider
	// profile and no session).
	Setup bool `json:"setup"`
	// ShellPainted is when the window first painted index.html's static
	// shell, in milliseconds since the Unix epoch (boot-theme.js notes it
	// after the first frame); 0 when unknown.
	ShellPainted float64 `json:"shellPainted"`
}
