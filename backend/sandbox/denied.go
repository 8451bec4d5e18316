package sandbox

import (
	"bytes"
	"path/filepath"
	"strings"

	"foya/backend/fspath"
)

// Messages of refused writes, as programs print strerror(3).
// EXDEV and EBUSY are how a link or rename across the sandbox's mounts
// fails; like the others they count only for a path outside Writable.
var fsDenials = []string{
	"Permission denied", "Operation not permitted", "Read-only file system",
	"Invalid cross-device link", "Device or resource busy",
}

// Messages of network failures; while the network is cut they are the
// sandbox's doing (the loopback of a network namespace has only the
// command's own servers, and without namespaces seccomp refuses sockets
// with EACCES).
var netDenials = []string{
	"Network is unreachable", "Connection refused", "No route to host",
	"Temporary failure in name resolution", "Could not resolve host", "Name or service not known",
	"Address family not supported", "Cannot assign requested address", "getaddrinfo",
	"socket: Permission denied", "Couldn't connect to server", "Failed to connect to",
}

// looksDenied is the best-effort reading of Result.Denied: does the output
// report a write the sandbox refused, or a network failure while the
// network is cut?
// carved is true when the ReadOnly folders were carved out of Landlock rules
// (no namespaces), so that the folders on the way to them take no new
// entries.
func looksDenied(out []byte, sp *spec, carved bool) bool {
	for line := range bytes.Lines(out) {
		s := string(line)
		if !sp.Policy.Network && containsAny(s, netDenials) {
			return true
		}
		if !containsAny(s, fsDenials) {
			continue
		}
		paths := pathsIn(s, sp.Dir)
		if len(paths) == 0 && strings.Contains(s, "Read-only file system") {
			return true
		}
		for _, p := range paths {
			p = resolveExisting(p)
			if (!fspath.WithinAny(sp.writable, p) || fspath.WithinAny(sp.readOnly, p) || carved && onTheWay(p, sp.readOnly)) && writableUnconfined(p) {
				return true
			}
		}
	}
	return false
}

// onTheWay reports whether p's folder is on the path to a read-only folder,
// where Landlock without namespaces allows no new entries.
func onTheWay(p string, readOnly []string) bool {
	dir := filepath.Dir(p)
	for _, ro := range readOnly {
		if ro != dir && fspath.WithinAny([]string{dir}, ro) {
			return true
		}
	}
	return false
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// pathsIn finds the paths a message names: quoted ('…', ‘…’, "…", `…'),
// the fields of "program: [line N: ]path: error", and words that start with
// a slash. Relative ones are taken relative to dir.
func pathsIn(line, dir string) []string {
	var out []string
	add := func(p string) {
		p = strings.TrimSpace(p)
		if p == "" || strings.ContainsAny(p, "\n\x00") {
			return
		}
		if !filepath.IsAbs(p) {
			if dir == "" || strings.Contains(p, " ") {
				return
			}
			p = filepath.Join(dir, p)
		}
		out = append(out, filepath.Clean(p))
	}
	for _, q := range [][2]string{{"'", "'"}, {"‘", "’"}, {"\"", "\""}, {"`", "'"}} {
		rest := line
		for {
			i := strings.Index(rest, q[0])
			if i < 0 {
				break
			}
			rest = rest[i+len(q[0]):]
			j := strings.Index(rest, q[1])
			if j < 0 {
				break
			}
			add(rest[:j])
			rest = rest[j+len(q[1]):]
		}
	}
	fields := strings.Split(strings.TrimSpace(line), ": ")
	for i, f := range fields {
		switch {
		case i == 0 || i == len(fields)-1:
			// the program's name, and the error
		case strings.HasPrefix(f, "line ") || strings.ContainsAny(f, "'\"‘’`"):
		case !strings.Contains(f, " "):
			add(f)
		default:
			for _, w := range strings.Fields(f) {
				if strings.HasPrefix(w, "/") {
					add(w)
				}
			}
		}
	}
	return out
}
