// Package provider streams model answers from OpenAI-compatible servers
// (OpenAI, Ollama, LM Studio, vLLM, llama.cpp, OpenRouter and the like) and
// normalises them into llm.Delta values.
//
// A Client encodes chat-completions requests with go-openai's message and
// tool types, byte for byte as go-openai would, but writes the body itself
// from the encodings of each message, which a run keeps across its steps
// (llm.Encodings): a step encodes its new messages only, not the history
// again. go-openai's client sends the request and maps error answers; the
// response body is then read by this
// package's own SSE reader, because servers differ in ways go-openai's stream
// reader does not cope with: unbounded runs of keep-alive comments, the
// non-standard "reasoning" field, error objects in the middle of a stream
// (llama.cpp's "error:" field line among them), and telling a stream that
// ended with [DONE] from one that was cut or that carried no answer at all.
// Streamed tool-call fragments are assembled here into calls with a stable
// Index that orders them as the model did, and a non-empty ID (spec L1, T2,
// P4); a stream that did not complete never ends with llm.DeltaDone (spec L2).
// Tool calls that a server left in the text, because it does not parse the
// model's calls (Hermes/Qwen <tool_call>, Qwen3-Coder's XML, Mistral's
// [TOOL_CALLS], Llama 3's <|python_tag|>, a fenced call object), are read
// from the text as it streams (textcalls.go), as Config.ToolCalls says: each
// opens as soon as its name is known, and one the answer ended in gets
// arguments that are not JSON, so it never runs.
// A request during which the server sends nothing for Config.IdleTimeout
// (120 s unless set; no headers, no byte of the stream) is stopped and ends
// with an *IdleError that names the setting, provider.idleTimeout; it is not
// retried.
//
// The package imports backend/llm and libraries only; it must not import
// engine, store or kernel. A Client is safe for concurrent use: each Stream
// call has its own request, response and assembly state. The iterator
// returned by Stream must be consumed by one goroutine.
//
// Sub-package providertest is a scripted OpenAI-compatible HTTP server that
// streams real SSE, for tests across the repository.
package provider
