// Package web is the built-in web_fetch tool (spec R1):
// one http or https URL, fetched with bounded redirects, size and time,
// approved per host, with loopback and private addresses a question of
// their own (approval.FetchPrivate) that no grant answers, and refused at
// dial time unless an answer of the call named them. HTML becomes
// Markdown, text and JSON stay as they are, images go to the artifact
// store, other binaries are refused with their type and size.
package web
