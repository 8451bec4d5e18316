package providertest

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"foya/backend/llm"
)

// Turn answers one POST /v1/chat/completions.
//
// A scripted turn (Raw empty) streams, one SSE data line each: the reasoning
// in up to three chunks, the text in up to three chunks, then for each call a
// chunk with its index, id and name followed by its arguments in up to three
// chunks, then a chunk with the finish reason, then the usage chunk if Usage
// is set, then "data: [DONE]". The first chunk also carries the role.
type Turn struct {
	// Text is the assistant's text, streamed in a few chunks.
	Text string
	// TextChunk, if > 0, streams Text in pieces of TextChunk bytes (cuts
	// moved back to a UTF-8 boundary), one SSE event each, as a server does
	// with a model that writes its tool calls as text.
	TextChunk int
	// Reasoning is streamed as delta.reasoning_content before the text.
	Reasoning string
	// Calls are tool calls, each with its arguments split into several
	// chunks. A call without ID gets "call_<turn>_<index>" (turn counted from
	// 1 over the server's life, index from 0 within the turn).
	Calls []Call
	// FinishReason defaults to "tool_calls" when there are Calls, else "stop".
	FinishReason string
	// Status, when set and not 200, answers with this status and an
	// OpenAI-style error body carrying ErrorMessage.
	Status       int
	ErrorMessage string
	// Header holds extra response headers, for example Retry-After.
	Header map[string]string
	// Raw, if set, is sent instead of the scripted chunks: each element is
	// one line ("data: ...", ": comment", "event: ..."), written with a
	// newline; a data line is followed by the blank line that ends an event.
	// Nothing is added: include "data: [DONE]" if the stream should have it.
	Raw []string
	// CutAfter, if > 0, ends the response after this many data lines,
	// without the rest and without [DONE].
	CutAfter int
	// Abort makes CutAfter drop the connection instead of ending the
	// response cleanly, as a crashing server or a broken network would.
	Abort bool
	// Delay is slept before each line after the first (the request's context
	// and Close cut it short).
	Delay time.Duration
	// Usage, if set, is sent in a last chunk with empty choices.
	Usage *llm.Usage
	// Hold, if set, makes the turn send its first line and then block until
	// Hold is closed, the client goes away, or the server closes.
	Hold <-chan struct{}
}

// Call is one scripted tool call.
type Call struct {
	ID        string
	Name      string
	Arguments string
	// Chunk, if > 0, streams Arguments in pieces of Chunk bytes (the last
	// one shorter, cuts moved back to a UTF-8 boundary), one SSE event
	// each, as servers do with a long answer; else in about three pieces.
	Chunk int
}

// Say returns a turn that answers with text.
func Say(text string) Turn { return Turn{Text: text} }

// Calls returns a turn that proposes tool calls.
func Calls(calls ...Call) Turn { return Turn{Calls: calls} }

// Request is one request the server received.
type Request struct {
	Model    string
	Stream   bool
	Messages []Message
	// Tools are the names of the offered tools, in the order sent.
	Tools  []string
	Header http.Header
	// Raw is the request body as received.
	Raw []byte
}

// Message is one decoded message of a request.
type Message struct {
	Role string
	// Content is the text; for content sent as parts, the text parts joined
	// with newlines.
	Content    string
	ToolCalls  []Call
	ToolCallID string
	// Images are the URLs of image parts (data URIs), in order.
	Images []string
}

// Server is a running scripted server. Besides the chat route it can
// list models (SetModels) and require a key (RequireKey).
type Server struct {
	// URL is the base URL to give a client, ending in /v1.
	URL string

	srv       *httptest.Server
	done      chan struct{}
	closeOnce sync.Once

	mu     sync.Mutex
	models []string // GET /v1/models lists these; nil: no such route
	key    string   // if set, every request must carry it as a bearer token
	turns  []Turn
	next   int // index of the next turn to serve
	reqs   []Request
	served int // turns served, for default call IDs
	routes []*route

	titles    []Turn // answers to title requests (IsTitle), in order
	nextTitle int
	titleReqs []Request
}

// route is a script of its own for the requests that match.
type route struct {
	match func(Request) bool
	turns []Turn
	next  int
}

// Route gives the requests that match a script of their own, served in
// order before the main script is looked at: for conversations whose
// requests arrive in no fixed order, such as sub-agents working at once,
// each scripted by what it says (see FirstUser). Routes are tried in the
// order they were added; a request that matches a route whose turns are
// all served gets a 500 "route exhausted".
func (s *Server) Route(match func(Request) bool, turns ...Turn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.routes = append(s.routes, &route{match: match, turns: append([]Turn(nil), turns...)})
}

// FirstUser matches requests whose first user message contains substr: the
// prompt of the run (or sub-agent) that asks.
func FirstUser(substr string) func(Request) bool {
	return func(r Request) bool {
		for _, m := range r.Messages {
			if m.Role == "user" {
				return strings.Contains(m.Content, substr)
			}
		}
		return false
	}
}

// IsTitle reports whether r asks for a session's title: its first message
// is the system prompt llm.TitlePrompt. The server answers such requests
// apart from the script (Titles).
func IsTitle(r Request) bool {
	return len(r.Messages) > 0 && r.Messages[0].Role == "system" && r.Messages[0].Content == llm.TitlePrompt
}

// IsCompact reports whether r asks a model to summarise the older part
// of a conversation (a compaction): its first message is the system
// prompt llm.CompactPrompt. Script its answers with a Route.
func IsCompact(r Request) bool {
	return len(r.Messages) > 0 && r.Messages[0].Role == "system" && r.Messages[0].Content == llm.CompactPrompt
}

// Titles scripts the answers to title requests (IsTitle), served in order
// and apart from the main script and the routes: a title request takes
// no turn of them, and Requests leaves it out (TitleRequests has it). A
// title request with no scripted answer left gets an empty answer, which
// leaves the session's title as it is; so a test that scripts none sees
// neither the request nor a title change.
func (s *Server) Titles(turns ...Turn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.titles = append(s.titles, turns...)
}

// TitleRequests returns the title requests received so far, in arrival
// order.
func (s *Server) TitleRequests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.titleReqs...)
}

// New starts a server for a test and closes it when the test ends.
func New(t testing.TB, turns ...Turn) *Server {
	t.Helper()
	s, err := Start(turns...)
	if err != nil {
		t.Fatalf("providertest: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

// Start starts a server on a loopback port, for use outside tests (a
// benchmark, or a binary pointed at it). Close stops it.
func Start(turns ...Turn) (*Server, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listen: %w", err)
	}
	s := &Server{done: make(chan struct{}), turns: append([]Turn(nil), turns...)}
	s.srv = &httptest.Server{Listener: l, Config: &http.Server{Handler: s}}
	s.srv.Start()
	s.URL = s.srv.URL + "/v1"
	return s, nil
}

// Close stops the server, cutting any response still streaming. It may be
// called more than once.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		close(s.done)
		s.srv.CloseClientConnections()
		s.srv.Close()
	})
}

// Append adds turns to the end of the script.
func (s *Server) Append(turns ...Turn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.turns = append(s.turns, turns...)
}

// Pending returns how many scripted turns are not served yet.
func (s *Server) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.turns) - s.next
}

// Requests returns every request received so far, in arrival order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// SetModels makes GET /v1/models list these model IDs, as OpenAI's
// servers do; without it that route answers 404.
func (s *Server) SetModels(ids ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.models = append([]string{}, ids...)
}

// RequireKey makes every request without "Authorization: Bearer key" get
// 401 with an OpenAI-style error that echoes the key it got, as some
// servers do (a test that a key is masked can then see it fail).
func (s *Server) RequireKey(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.key = key
}

// ServeHTTP answers a request with the next turn of the script.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	key, models := s.key, s.models
	s.mu.Unlock()
	if got, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); key != "" && got != key {
		writeError(w, http.StatusUnauthorized, "invalid_request_error", "Incorrect API key provided: "+got)
		return
	}
	if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/models") && models != nil {
		type model struct {
			ID     string `json:"id"`
			Object string `json:"object"`
		}
		list := struct {
			Object string  `json:"object"`
			Data   []model `json:"data"`
		}{Object: "list", Data: []model{}}
		for _, id := range models {
			list.Data = append(list.Data, model{ID: id, Object: "model"})
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(list)
		return
	}
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		writeError(w, http.StatusNotFound, "invalid_request_error",
			fmt.Sprintf("providertest: no route for %s %s; the server answers POST /v1/chat/completions", r.Method, r.URL.Path))
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "providertest: read body: "+err.Error())
		return
	}
	req, decodeErr := decodeRequest(body)
	req.Header = r.Header.Clone()
	req.Raw = body

	if decodeErr == nil && IsTitle(req) {
		s.mu.Lock()
		s.titleReqs = append(s.titleReqs, req)
		turn := Say("")
		if s.nextTitle < len(s.titles) {
			turn = s.titles[s.nextTitle]
			s.nextTitle++
		}
		s.mu.Unlock()
		s.serve(w, r, turn, 0, req.Model)
		return
	}

	s.mu.Lock()
	s.reqs = append(s.reqs, req)
	var turn Turn
	var n int
	var rt *route
	if decodeErr == nil {
		for _, c := range s.routes {
			if c.match(req) {
				rt = c
				break
			}
		}
	}
	ok := decodeErr == nil && s.next < len(s.turns)
	if rt != nil {
		ok = rt.next < len(rt.turns)
	}
	if ok {
		if rt != nil {
			turn = rt.turns[rt.next]
			rt.next++
		} else {
			turn = s.turns[s.next]
			s.next++
		}
		s.served++
		n = s.served
	}
	s.mu.Unlock()

	switch {
	case decodeErr != nil:
		writeError(w, http.StatusBadRequest, "invalid_request_error", "providertest: request body: "+decodeErr.Error())
	case !ok && rt != nil:
		writeError(w, http.StatusInternalServerError, "server_error", "providertest: route exhausted")
	case !ok:
		writeError(w, http.StatusInternalServerError, "server_error", "providertest: script exhausted")
	default:
		s.serve(w, r, turn, n, req.Model)
	}
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request, turn Turn, n int, model string) {
	for k, v := range turn.Header {
		w.Header().Set(k, v)
	}
	if turn.Status != 0 && turn.Status != http.StatusOK {
		msg := turn.ErrorMessage
		if msg == "" {
			msg = fmt.Sprintf("providertest: scripted %d %s", turn.Status, http.StatusText(turn.Status))
		}
		typ := "invalid_request_error"
		if turn.Status >= 500 {
			typ = "server_error"
		}
		writeError(w, turn.Status, typ, msg)
		return
	}
	lines := turn.Raw
	if lines == nil {
		lines = script(turn, n, model)
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	dataLines := 0
	for i, line := range lines {
		if i > 0 && turn.Delay > 0 && !s.sleep(r, turn.Delay) {
			return
		}
		io.WriteString(w, line+"\n")
		isData := strings.HasPrefix(line, "data:")
		if isData {
			io.WriteString(w, "\n")
			dataLines++
		}
		if flusher != nil {
			flusher.Flush()
		}
		if isData && turn.CutAfter > 0 && dataLines >= turn.CutAfter {
			if turn.Abort {
				panic(http.ErrAbortHandler) // drops the connection
			}
			return
		}
		if i == 0 && turn.Hold != nil && !s.wait(r, turn.Hold) {
			return
		}
	}
}

// wait blocks until ch is ready; false when the client went away or the
// server is closing.
func (s *Server) wait(r *http.Request, ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	case <-r.Context().Done():
		return false
	case <-s.done:
		return false
	}
}

// sleep waits for d; false when the client went away or the server is
// closing.
func (s *Server) sleep(r *http.Request, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	case <-s.done:
		return false
	}
}

func writeError(w http.ResponseWriter, status int, typ, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{
		"error": map[string]any{"message": msg, "type": typ, "code": nil},
	})
}
