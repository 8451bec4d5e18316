package provider

import (
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"foya/backend/llm"
)

// FuzzStreamAssembly feeds arbitrary bodies through the SSE reader and the
// assembler, as readStream does, and checks the llm.Delta contract whatever
// the server sends: every call opens once, with an ID and a name, under an
// Index no other call holds; later pieces name no ID; DeltaDone is last.
func FuzzStreamAssembly(f *testing.F) {
	seeds := []string{
		`data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"b","function":{"name":"w","arguments":"{\"p\":"}},{"index":0,"id":"a","function":{"name":"r","arguments":"{}"}}]}}]}` + "\n\n" +
			`data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"1}"}}]},"finish_reason":"tool_calls"}]}` + "\n\ndata: [DONE]\n\n",
		`data: {"choices":[{"delta":{"tool_calls":[{"index":-1,"id":"a","function":{"name":"r"}},{"index":1e9,"function":{"name":"s"}},{"index":"2","id":"c","function":{"name":"t"}},{"id":"a","function":{"arguments":"{}"}}]}}]}` + "\n\ndata: [DONE]\n\n",
		`data: {"choices":[{"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"r"}},{"index":0,"id":"b","function":{"name":"r"}},{"function":{"name":"s"}},{"index":0,"function":{"arguments":"x"}}]}}]}` + "\n\ndata: [DONE]\n\n",
		"data: {\"choices\":[{\"delta\":{\"role\":\"assistant\"}}]}\n\nerror: {\"code\":500,\"message\":\"m\"}\n\ndata: [DONE]\n\n",
		"error: not json\ndata: [DONE]\n",
		"data: [DONE]\n\n",
	}
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		r := newSSEReader(strings.NewReader(body))
		a := newAssembler()
		var out []llm.Delta
		var err error
		for {
			ev, rerr := r.Next()
			if rerr != nil {
				if a.sawFinish {
					err = a.end()
				} else {
					err = a.cutError(rerr)
				}
				break
			}
			var done bool
			if done, err = a.feed(ev); err != nil {
				break
			}
			if done {
				err = a.end()
				break
			}
		}
		out = append(out, a.out...)
		ids := map[string]bool{}
		open := map[int]bool{}
		for i, d := range out {
			switch d.Kind {
			case llm.DeltaToolCall:
				if !open[d.Index] {
					if d.ID == "" || d.Name == "" || ids[d.ID] {
						t.Fatalf("delta %d opens call %d without a unique ID and a name: %+v", i, d.Index, d)
					}
					open[d.Index], ids[d.ID] = true, true
				} else if d.ID != "" || d.Name != "" {
					t.Fatalf("delta %d reopens call %d: %+v", i, d.Index, d)
				}
			case llm.DeltaDone:
				if i != len(out)-1 || err != nil {
					t.Fatalf("DeltaDone at %d of %d, err %v", i, len(out), err)
				}
			}
		}
		if err == nil && (len(out) == 0 || out[len(out)-1].Kind != llm.DeltaDone) {
			t.Fatalf("a stream without error did not end with DeltaDone: %+v", out)
		}
		if err != nil && errors.Is(err, io.EOF) {
			t.Fatalf("a bare io.EOF leaked out: %v", err)
		}
	})
}

// assemble runs body through the SSE reader and the assembler as
// readStream does and returns the deltas and the error.
func assemble(body io.Reader) ([]llm.Delta, error) {
	r := newSSEReader(body)
	a := newAssembler()
	var err error
	for {
		ev, rerr := r.Next()
		if rerr != nil {
			if a.sawFinish {
				err = a.end()
			} else {
				err = a.cutError(rerr)
			}
			break
		}
		var done bool
		if done, err = a.feed(ev); err != nil {
			break
		}
		if done {
			err = a.end()
			break
		}
	}
	return a.out, err
}

// chunks hands out its data in pieces of the sizes it is given, as a
// network does.
type chunks struct {
	data  []byte
	sizes []byte
	n     int
}

func (c *chunks) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	size := 1
	if len(c.sizes) > 0 {
		size = int(c.sizes[c.n%len(c.sizes)])%64 + 1
	}
	c.n++
	size = min(size, len(p), len(c.data))
	copy(p, c.data[:size])
	c.data = c.data[size:]
	return size, nil
}

// FuzzStreamRoundTrip builds a well-formed stream from any text and
// argument pieces (written as a server writes them: JSON-escaped, with
// CRLF or LF line ends, comments and keep-alives between events) and
// delivers it in any chunking: the text the assembler gives is the pieces'
// text, each call's arguments are its pieces joined, byte for byte, and
// the stream ends with DeltaDone.
//
// spec: K1, O4
func FuzzStreamRoundTrip(f *testing.F) {
	f.Add("Hello, ", "wörld\n", `{"path":`, `"a.txt"}`, true, []byte{1, 7, 3})
	f.Add("", "\x00\"\\\u2028", "", "{}", false, []byte{63})
	f.Add("data: [DONE]\n\n", "\r\n", `{"x":"\n\n"}`, "", true, []byte{0})
	f.Fuzz(func(t *testing.T, text1, text2, args1, args2 string, crlf bool, sizes []byte) {
		nl := "\n"
		if crlf {
			nl = "\r\n"
		}
		var b strings.Builder
		event := func(delta any, finish any) {
			chunk := map[string]any{"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
			data, err := json.Marshal(chunk)
			if err != nil {
				t.Fatal(err)
			}
			b.WriteString(": keep-alive" + nl + nl + "data: " + string(data) + nl + nl)
		}
		event(map[string]any{"role": "assistant", "content": text1}, nil)
		event(map[string]any{"content": text2}, nil)
		event(map[string]any{"tool_calls": []any{map[string]any{"index": 0, "id": "call_1", "type": "function",
			"function": map[string]any{"name": "write", "arguments": args1}}}}, nil)
		event(map[string]any{"tool_calls": []any{map[string]any{"index": 0, "function": map[string]any{"arguments": args2}}}}, "tool_calls")
		b.WriteString("data: [DONE]" + nl + nl)

		out, err := assemble(&chunks{data: []byte(b.String()), sizes: sizes})
		if err != nil {
			t.Fatalf("a well-formed stream failed: %v\n%s", err, b.String())
		}
		var text, args strings.Builder
		calls := 0
		for _, d := range out {
			switch d.Kind {
			case llm.DeltaText:
				text.WriteString(d.Text)
			case llm.DeltaToolCall:
				if d.ID != "" {
					calls++
				}
				args.WriteString(d.Args)
			}
		}
		// What the server sent: json.Marshal writes U+FFFD for bytes that
		// are not UTF-8.
		sent := func(s string) string {
			data, _ := json.Marshal(s)
			var out string
			json.Unmarshal(data, &out)
			return out
		}
		if want := sent(text1) + sent(text2); text.String() != want {
			t.Fatalf("text %q; want %q", text.String(), want)
		}
		if want := sent(args1) + sent(args2); args.String() != want || calls != 1 {
			t.Fatalf("%d calls with arguments %q; want 1 with %q", calls, args.String(), want)
		}
		if len(out) == 0 || out[len(out)-1].Kind != llm.DeltaDone {
			t.Fatalf("the stream did not end with DeltaDone: %+v", out)
		}
	})
}
