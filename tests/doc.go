// Package tests holds integration tests of the whole kernel: a real SQLite
// file, real processes, and the model played by a scripted OpenAI-compatible
// server streaming real SSE (providertest), the only stand-in.
package tests
