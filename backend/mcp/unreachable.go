package mcp

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"
	"time"
)

// unreachable says, for an HTTP server, why an error means the server
// stopped or cannot be reached (nothing listens, the connection closed,
// its event stream ended before the answer), in words a person reads: ok
// is false for other errors (the server answered, with an error). mcp-go
// words these as "transport error: unexpected nil response" or "failed
// to send request: failed to send request: Post ...", which say nothing
// to a user.
func unreachable(err error) (why string, ok bool) {
	var op *net.OpError
	var ue *url.Error
	switch {
	case err == nil:
		return "", false
	case errors.As(err, &op):
		var dns *net.DNSError
		if errors.As(err, &dns) {
			return "its host name does not resolve: " + dns.Err, true
		}
		if op.Op == "dial" {
			return "nothing answers there: " + strings.TrimPrefix(op.Err.Error(), "connect: "), true
		}
		return "the connection broke: " + op.Err.Error(), true
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "the connection closed before the answer", true
	case strings.Contains(err.Error(), "unexpected nil response"):
		// mcp-go v1.2.1 (client/transport/streamable_http.go): the
		// call's event stream ended before its result.
		return "its event stream ended before the answer", true
	case errors.As(err, &ue) && ue.Timeout():
		return "the connection timed out", true
	}
	return "", false
}

// stoppedHTTP words a call's end when an HTTP server went away during it.
func (s *server) stoppedHTTP(why string) string {
	return fmt.Sprintf("MCP server %s at %s stopped answering during the call: it has stopped or cannot be reached (%s). "+
		"Foya reconnects to it on its own; the call may or may not have taken effect", s.entry.Name, s.entry.URL, why)
}

// handshakeSilence words a handshake that got no answer within timeout:
// for a stdio server, its standard output is where the answer was due;
// an HTTP or SSE server is named by its URL, which answered nothing that
// completes the handshake.
func handshakeSilence(e Entry, timeout time.Duration) error {
	if e.Transport() == Stdio {
		return fmt.Errorf("the server did not complete the MCP handshake within %v (is it an MCP server speaking JSON-RPC on its standard output?)", timeout)
	}
	kind := "streamable HTTP"
	if e.Transport() == SSE {
		kind = "SSE"
	}
	return fmt.Errorf("the server at %s did not complete the MCP handshake within %v (is it an MCP server speaking %s at that URL?)", e.URL, timeout, kind)
}
