package provider_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"foya/backend/llm"
	"foya/backend/provider"
	"foya/backend/provider/providertest"
)

// newClient returns a client for srv with a tiny retry backoff.
func newClient(t testing.TB, baseURL string, mod ...func(*provider.Config)) *provider.Client {
	t.Helper()
	cfg := provider.Config{BaseURL: baseURL, APIKey: "sk-test", Model: "test-model"}
	for _, m := range mod {
		m(&cfg)
	}
	c, err := provider.New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	provider.SetBackoff(c, time.Millisecond)
	return c
}

// result is a stream collected by collect, with the invariants of
// llm.Delta checked on the way.
type result struct {
	Text      string
	Reasoning string
	Calls     []llm.ToolCall
	Withdrawn []llm.ToolCall // calls taken back (DeltaWithdraw)
	Usage     *llm.Usage
	Done      bool
	Finish    string
	Err       error
	Deltas    []llm.Delta
}

func collect(t testing.TB, c *provider.Client, req llm.Request) result {
	t.Helper()
	return collectCtx(t, context.Background(), c, req)
}

func collectCtx(t testing.TB, ctx context.Context, c *provider.Client, req llm.Request) result {
	t.Helper()
	var r result
	byIndex := map[int]int{} // Index -> position in r.Calls
	for d, err := range c.Stream(ctx, req) {
		if r.Err != nil {
			t.Fatalf("stream went on after its error %v: %+v, %v", r.Err, d, err)
		}
		if r.Done {
			t.Fatalf("stream went on after DeltaDone: %+v, %v", d, err)
		}
		if err != nil {
			if d != (llm.Delta{}) {
				t.Errorf("error %v came with a non-zero delta %+v", err, d)
			}
			r.Err = err
			continue
		}
		r.Deltas = append(r.Deltas, d)
		switch d.Kind {
		case llm.DeltaText:
			r.Text += d.Text
		case llm.DeltaReasoning:
			r.Reasoning += d.Text
		case llm.DeltaToolCall:
			pos, seen := byIndex[d.Index]
			if !seen {
				if d.ID == "" || d.Name == "" {
					t.Fatalf("first delta of call %d lacks its ID or name: %+v", d.Index, d)
				}
				byIndex[d.Index] = len(r.Calls)
				r.Calls = append(r.Calls, llm.ToolCall{ID: d.ID, Name: d.Name, Arguments: d.Args})
				continue
			}
			if d.ID != "" || d.Name != "" {
				t.Fatalf("later delta of call %d repeats ID or name: %+v", d.Index, d)
			}
			r.Calls[pos].Arguments += d.Args
		case llm.DeltaWithdraw:
			pos, seen := byIndex[d.Index]
			if !seen {
				t.Fatalf("withdraw of call %d, never announced", d.Index)
			}
			r.Withdrawn = append(r.Withdrawn, r.Calls[pos])
			r.Calls = append(r.Calls[:pos], r.Calls[pos+1:]...)
			delete(byIndex, d.Index)
			for k, p := range byIndex {
				if p > pos {
					byIndex[k] = p - 1
				}
			}
		case llm.DeltaUsage:
			u := d.Usage
			r.Usage = &u
		case llm.DeltaDone:
			r.Done, r.Finish = true, d.FinishReason
		default:
			t.Fatalf("unknown delta kind %d", d.Kind)
		}
	}
	if !r.Done && r.Err == nil {
		t.Fatalf("stream ended with neither DeltaDone nor an error")
	}
	return r
}

// userReq is a minimal request.
func userReq(text string) llm.Request {
	return llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: text}}}
}

// Raw SSE line builders for scripting what real servers send.

func textLine(s string) string {
	return fmt.Sprintf(`data: {"choices":[{"index":0,"delta":{"content":%q},"finish_reason":null}]}`, s)
}

func deltaLine(delta string) string {
	return `data: {"choices":[{"index":0,"delta":` + delta + `,"finish_reason":null}]}`
}

func finishLine(reason string) string {
	return `data: {"choices":[{"index":0,"delta":{},"finish_reason":"` + reason + `"}]}`
}

const doneLine = "data: [DONE]"

// callLine is one tool-call fragment; index < 0 leaves the index out.
func callLine(index int, id, name, args string) string {
	var b strings.Builder
	b.WriteString(`{`)
	if index >= 0 {
		fmt.Fprintf(&b, `"index":%d,`, index)
	}
	if id != "" {
		fmt.Fprintf(&b, `"id":%q,"type":"function",`, id)
	}
	b.WriteString(`"function":{`)
	if name != "" {
		fmt.Fprintf(&b, `"name":%q,`, name)
	}
	fmt.Fprintf(&b, `"arguments":%q}}`, args)
	return deltaLine(`{"tool_calls":[` + b.String() + `]}`)
}

// rawServer starts a scripted server whose one turn sends lines verbatim.
func rawServer(t testing.TB, lines ...string) *providertest.Server {
	t.Helper()
	return providertest.New(t, providertest.Turn{Raw: lines})
}
