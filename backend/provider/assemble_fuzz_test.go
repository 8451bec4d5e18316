package provider

import (
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
