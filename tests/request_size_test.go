package tests

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"foya/backend/kernel"
	pt "foya/backend/provider/providertest"
)

// The first request's size: every request of a session sends the system
// prompt and the tools again (a prompt cache serves them, but they count
// as input every time, and a small local model's window holds them first).
// Issue 27 measured 17.7 KB with bash's entry alone 3.2 KB; shortened
// descriptions took it to about 10 KB (docs/benchmarks.md, "Context
// economy"). These bounds hold that: raise them only for something the
// model needs.
const (
	firstRequestMaxBytes = 10_500 // the whole body of a first request of "hi"
	toolEntryMaxBytes    = 1_900  // one tool's element of "tools", as sent
)

// spec: R2 — the tools go out as the provider's function schemas, sorted
// by name; this pins how many bytes each costs in the first request, and
// the whole request, through the kernel and the real provider. With -v it
// prints the bytes per tool.
func TestFirstRequestSizePerTool(t *testing.T) {
	h := newHarness(t, nil, pt.Say("ok"))
	run := h.runIn(t.Context(), h.session("auto").ID, "hi")
	if run.Status != kernel.RunCompleted {
		t.Fatalf("run %s: %s", run.Status, run.Error)
	}
	reqs := h.srv.Requests()
	if len(reqs) == 0 {
		t.Fatal("no request")
	}
	raw := reqs[0].Raw
	var body struct {
		Messages []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
		Tools []json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(raw, &body); err != nil {
		t.Fatalf("first request is not JSON: %v", err)
	}
	if len(body.Tools) < 10 || len(body.Messages) < 2 || body.Messages[0].Role != "system" {
		t.Fatalf("first request has %d tools and %d messages; want the built-in tools, a system prompt and the prompt", len(body.Tools), len(body.Messages))
	}
	toolBytes := 0
	var names []string
	for _, tl := range body.Tools {
		var f struct {
			Function struct {
				Name        string          `json:"name"`
				Description string          `json:"description"`
				Parameters  json.RawMessage `json:"parameters"`
			} `json:"function"`
		}
		if err := json.Unmarshal(tl, &f); err != nil {
			t.Fatal(err)
		}
		name := f.Function.Name
		names = append(names, name)
		toolBytes += len(tl)
		t.Logf("%-12s %5d bytes (description %4d, parameters %4d)", name, len(tl), len(f.Function.Description), len(f.Function.Parameters))
		if len(tl) > toolEntryMaxBytes {
			t.Errorf("tool %s takes %d bytes of the first request; the bound is %d", name, len(tl), toolEntryMaxBytes)
		}
		if strings.Contains(string(tl), `\u003c`) || strings.Contains(string(tl), `\u003e`) || strings.Contains(string(tl), `\u0026`) {
			t.Errorf("tool %s is sent with HTML escapes: %s", name, tl)
		}
	}
	if !slices.IsSorted(names) {
		t.Errorf("tools not sorted by name: %v", names)
	}
	t.Logf("%d tools: %d bytes; system prompt %d bytes; whole first request %d bytes", len(names), toolBytes, len(body.Messages[0].Content), len(raw))
	if len(raw) > firstRequestMaxBytes {
		t.Errorf("the first request is %d bytes (tools %d, system prompt %d); the bound is %d", len(raw), toolBytes, len(body.Messages[0].Content), firstRequestMaxBytes)
	}
}
