package provider

import (
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"foya/backend/llm"
)

// growing returns the request of step n of a session: a system prompt, a
// user message, then per earlier step an assistant call and its result.
func growing(n int) llm.Request {
	req := llm.Request{
		Messages: []llm.Message{{Role: llm.RoleSystem, Content: "You are Foya <b>&</b>."}, {Role: llm.RoleUser, Content: "go"}},
		Tools: []llm.ToolSchema{
			{Name: "read", Description: "Reads.", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)},
			{Name: "noop", Description: "No parameters."},
		},
	}
	for i := range n {
		id := fmt.Sprintf("c%d", i)
		req.Messages = append(req.Messages,
			llm.Message{Role: llm.RoleAssistant, Content: "reading", ToolCalls: []llm.ToolCall{{ID: id, Name: "read", Arguments: `{"path":"a.go"}`}}},
			llm.Message{Role: llm.RoleTool, ToolCallID: id, ToolName: "read", Content: strings.Repeat(fmt.Sprintf("line %d \"quoted\" <tag>\n", i), 50)})
	}
	return req
}

func bodyBytes(t *testing.T, b *body) string {
	t.Helper()
	data, err := io.ReadAll(b.reader())
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(data)) != b.size {
		t.Fatalf("body of %d bytes says %d", len(data), b.size)
	}
	return string(data)
}

// The body is what go-openai would have sent for the same request, byte for
// byte, except that <, > and & are sent as themselves instead of as
// go-openai's HTML-safe \u003c, \u003e and \u0026: the same JSON document
// (servers decode the same values), five bytes shorter for each.
func TestRequestBodyIsGoOpenAIs(t *testing.T) {
	req := growing(3)
	b, err := requestBody("m", req)
	if err != nil {
		t.Fatal(err)
	}
	want := openai.ChatCompletionRequest{Model: "m", Stream: true, StreamOptions: &openai.StreamOptions{IncludeUsage: true}}
	for i, m := range req.Messages {
		msg, _, err := chatMessage(i, m, nil)
		if err != nil {
			t.Fatal(err)
		}
		want.Messages = append(want.Messages, msg)
	}
	want.Tools, _ = chatTools(req.Tools)
	ref, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	got := bodyBytes(t, b)
	var g, w any
	if err := json.Unmarshal([]byte(got), &g); err != nil {
		t.Fatalf("body is not JSON: %v\n%.300s", err, got)
	}
	if err := json.Unmarshal(ref, &w); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Fatalf("body differs from go-openai's encoding:\n got %.300s\nwant %.300s", got, ref)
	}
	escapes := strings.Count(string(ref), `\u003c`) + strings.Count(string(ref), `\u003e`) + strings.Count(string(ref), `\u0026`)
	if escapes < 8 || strings.Contains(got, `\u003c`) || strings.Contains(got, `\u003e`) || strings.Contains(got, `\u0026`) ||
		len(got) != len(ref)-5*escapes {
		t.Fatalf("want go-openai's %d bytes less its %d HTML escapes (5 bytes each), got %d bytes:\n%.300s", len(ref), escapes, len(got), got)
	}
	// Everything else is go-openai's bytes.
	unescaped := strings.NewReplacer(`\u003c`, "<", `\u003e`, ">", `\u0026`, "&").Replace(string(ref))
	if got != unescaped {
		t.Fatalf("body differs from go-openai's encoding beyond the HTML escapes:\n got %.300s\nwant %.300s", got, unescaped)
	}
}

// unescapeHTML undoes only the HTML-safe escapes encoding/json writes: a
// literal backslash followed by "u003c" in a string, other \u escapes and
// every other escape stay, and every string decodes to what was encoded.
func TestUnescapeHTMLKeepsTheDocument(t *testing.T) {
	for _, s := range []string{
		"a < b && c > d", `a\u003cb`, `\\u003c`, "\\<", "x\u2028y", "\u0001<\x7f>", "quote\" & <", `\`, "<", "&&&",
		"ends in a backslash \\", "\"\u003c\"", "ü < 𝄞",
	} {
		enc, err := json.Marshal(map[string]any{"k<": s, "n": []any{s, 1}})
		if err != nil {
			t.Fatal(err)
		}
		got := unescapeHTML(enc)
		var back map[string]any
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatalf("%q: %s is not JSON: %v", s, got, err)
		}
		if back["k<"] != s || back["n"].([]any)[0] != s {
			t.Fatalf("%q: decoded %q from %s", s, back, got)
		}
		if strings.Contains(s, "<") == strings.Contains(string(got), `\u003c`) && strings.Contains(s, "<") {
			t.Fatalf("%q: < still escaped in %s", s, got)
		}
	}
	if b := []byte(`{"a":"plain"}`); &unescapeHTML(b)[0] != &b[0] {
		t.Fatal("a document without escapes is copied")
	}
}

// spec: R2 — a step encodes only the messages that are new
// since the previous step; the others are sent from their kept encodings,
// and the bytes are those of encoding everything anew.
func TestRequestBodyEncodesOnlyNewMessages(t *testing.T) {
	enc := &llm.Encodings{}
	for step := range 40 {
		req := growing(step)
		req.Keys = make([]uint64, len(req.Messages))
		for i := range req.Keys {
			req.Keys[i] = 1
		}
		req.Encodings = enc
		before := enc.Kept()
		b, err := requestBody("m", req)
		if err != nil {
			t.Fatal(err)
		}
		// The previous step's call and result; at first, the system
		// prompt and the user's message.
		want := 2
		if got := enc.Kept() - before; got != want {
			t.Fatalf("step %d (%d messages) encoded %d messages; want %d", step, len(req.Messages), got, want)
		}
		fresh, err := requestBody("m", growing(step))
		if err != nil {
			t.Fatal(err)
		}
		if bodyBytes(t, b) != bodyBytes(t, fresh) {
			t.Fatalf("step %d: the body from kept encodings differs from a fresh one", step)
		}
	}
	// Other tools than the previous step's are encoded anew.
	req := growing(3)
	req.Tools = append(req.Tools, llm.ToolSchema{Name: "grep", Description: "Searches."})
	req.Encodings = enc
	b, err := requestBody("m", req)
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := requestBody("m", llm.Request{Messages: req.Messages, Tools: req.Tools})
	if err != nil {
		t.Fatal(err)
	}
	if got := bodyBytes(t, b); got != bodyBytes(t, fresh) || !strings.Contains(got, `"name":"grep"`) {
		t.Fatalf("a step with another tool sent the kept tools: %.300s", got)
	}
	// A message whose key changed (a projected result) is encoded again.
	req = growing(10)
	req.Keys = make([]uint64, len(req.Messages))
	for i := range req.Keys {
		req.Keys[i] = 1
	}
	req.Keys[3], req.Messages[3].Content = 2, "projected"
	req.Encodings = enc
	before := enc.Kept()
	b, err = requestBody("m", req)
	if err != nil {
		t.Fatal(err)
	}
	if got := enc.Kept() - before; got != 1 || !strings.Contains(bodyBytes(t, b), `"content":"projected"`) {
		t.Fatalf("a changed key encoded %d messages (want 1), body has the new content: %v", got, strings.Contains(bodyBytes(t, b), "projected"))
	}
}

// BenchmarkRequestBody measures what the provider does for a step's request
// before writing it: at steps 10, 100 and 1,000 of a session of 1.2 KB
// results, with every earlier message's encoding kept, so that only two
// messages are encoded (their keys change at each iteration). Writing the
// body is left out.
func BenchmarkRequestBody(b *testing.B) {
	for _, steps := range []int{10, 100, 1000} {
		b.Run(fmt.Sprintf("step=%d", steps), func(b *testing.B) {
			req := growing(steps)
			req.Keys = make([]uint64, len(req.Messages))
			for i := range req.Keys {
				req.Keys[i] = 1
			}
			req.Encodings = &llm.Encodings{}
			if _, err := requestBody("m", req); err != nil {
				b.Fatal(err)
			}
			n := len(req.Keys)
			for b.Loop() {
				req.Keys[n-1]++
				req.Keys[n-2]++
				if _, err := requestBody("m", req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
