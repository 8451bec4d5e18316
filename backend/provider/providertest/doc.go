// Package providertest is a scripted OpenAI-compatible chat-completions
// server for tests: a real HTTP server that streams real server-sent events,
// so the code under test runs its real client, SSE reader and tool-call
// assembly against it.
//
// A script is a list of Turns; each POST to /v1/chat/completions answers with
// the next one, in order. Every request is recorded, decoded, for assertions.
//
//	srv := providertest.New(t,
//		providertest.Calls(providertest.Call{Name: "read", Arguments: `{"path":"a.txt"}`}),
//		providertest.Say("done"),
//	)
//	client, _ := provider.New(provider.Config{BaseURL: srv.URL, Model: "test"})
//
// Requests that ask for a session's title (IsTitle: the kernel sends one
// after a session's first run) are answered apart, from Titles, and take
// no turn of the script: scripts need not know of them.
//
// When the script runs out, the server answers 500 with the message
// "providertest: script exhausted"; a provider client retries 5xx answers,
// so Requests then shows the retries too.
//
// A Server is safe for concurrent requests and concurrent calls of its
// methods. It imports backend/llm and the standard library only.
package providertest
