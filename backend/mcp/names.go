package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// maxName is the longest tool name providers accept.
const maxName = 64

// sanitize replaces every character outside [a-zA-Z0-9_-] by '_'.
func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '_'
	}, s)
}

// ToolName returns the registry name of a server's tool:
// mcp__<server>__<tool>, sanitized to ^[a-zA-Z0-9_-]{1,64}$. A name that
// is too long, or that is taken already (two raw names that sanitize
// alike), is cut and given a suffix of 8 hex digits of the raw names'
// hash, so it stays stable from one connection to the next.
func ToolName(server, tool string, taken func(string) bool) string {
	name := "mcp__" + sanitize(server) + "__" + sanitize(tool)
	if len(name) <= maxName && (taken == nil || !taken(name)) {
		return name
	}
	sum := sha256.Sum256([]byte(server + "\x00" + tool))
	suffix := "_" + hex.EncodeToString(sum[:4])
	return name[:min(len(name), maxName-len(suffix))] + suffix
}
