package engine

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"foya/backend/llm"
)

// session builds a history of n steps: a user message, then per step an
// assistant call and a tool result of size bytes.
func session(steps, size int) []llm.Message {
	h := []llm.Message{{Role: llm.RoleUser, Content: "build it"}}
	for i := range steps {
		id := fmt.Sprintf("c%d", i)
		h = append(h, llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: id, Name: "bash", Arguments: `{"command":"make"}`}}})
		var b strings.Builder
		for b.Len() < size {
			fmt.Fprintf(&b, "step %d output line %d\n", i, b.Len())
		}
		h = append(h, llm.Message{Role: llm.RoleTool, ToolCallID: id, ToolName: "bash", Content: b.String()})
	}
	return h
}

func marshal(t testing.TB, msgs []llm.Message) string {
	b, err := json.Marshal(msgs)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// spec: O5, R2 — the projection is a function of the history: two
// compilations give byte-identical requests, the canonical history is not
// touched, and the newest results stay verbatim.
func TestProjectionIsDeterministic(t *testing.T) {
	cfg := ContextConfig{Budget: 40_000}
	h := session(60, 6000)
	before := marshal(t, h)
	a, refsA := (&projection{cfg: cfg.withDefaults()}).compile(h)
	b, refsB := (&projection{cfg: cfg.withDefaults()}).compile(h)
	if marshal(t, a) != marshal(t, b) || refsA != refsB || refsA == 0 {
		t.Fatalf("two compilations differ (refs %d, %d)", refsA, refsB)
	}
	if marshal(t, h) != before {
		t.Fatal("compiling changed the canonical history")
	}
	last := a[len(a)-1]
	if last.Content != h[len(h)-1].Content {
		t.Fatal("the newest result was projected")
	}
	if !strings.Contains(a[2].Content, `history_read_tool_result with ref "r3"`) {
		t.Fatalf("first result not projected with its ref: %.200s", a[2].Content)
	}
	total := 0
	for _, m := range a {
		total += estimate(m)
	}
	if total > cfg.withDefaults().Budget {
		t.Fatalf("projected history is %d tokens; budget %d", total, cfg.withDefaults().Budget)
	}
}

// spec: O5, R2 — as a session grows one step at a time, each request
// extends the previous one (so prompt caches hit) except at the rare steps
// where the watermark moves; it never moves back. The rate is what
// docs/limits.md reports.
func TestProjectionMovesForwardRarely(t *testing.T) {
	cfg := ContextConfig{Budget: 60_000}
	full := session(300, 20_000)
	p := &projection{cfg: cfg.withDefaults()}
	var prev string
	var prevW, moves, steps int
	for n := 3; n <= len(full); n += 2 { // one step = one call and its result
		msgs, _ := p.compile(full[:n])
		w := p.watermark(n)
		if w < prevW {
			t.Fatalf("watermark moved back from %d to %d at %d messages", prevW, w, n)
		}
		cur := marshal(t, msgs)
		prefix := strings.TrimSuffix(prev, "]")
		if w == prevW && prev != "" && !strings.HasPrefix(cur, prefix) {
			t.Fatalf("at %d messages the request changed before its tail without the watermark moving", n)
		}
		if w != prevW {
			moves++
		}
		prev, prevW = cur, w
		steps++
	}
	if moves == 0 || moves*10 > steps {
		t.Fatalf("the watermark moved at %d of %d steps; want rare but some", moves, steps)
	}
	t.Logf("watermark moved at %d of %d steps (%.1f%%)", moves, steps, 100*float64(moves)/float64(steps))
}

// BenchmarkCompile compiles the request of a session of 10,000 messages and
// more (4 KB results, projection active) for its next step, as the engine
// does at every step: one call and its result more each time.
func BenchmarkCompile(b *testing.B) {
	h := session(5000, 4000)
	out := h[len(h)-1].Content
	p := &projection{cfg: ContextConfig{}.withDefaults()}
	p.compile(h)
	i := 0
	for b.Loop() {
		id := fmt.Sprintf("n%d", i)
		i++
		h = append(h, llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: id, Name: "bash", Arguments: `{"command":"make"}`}}},
			llm.Message{Role: llm.RoleTool, ToolCallID: id, ToolName: "bash", Content: out})
		p.compile(h)
	}
}

// spec: O5, R2 — the projection compiled step by step, as
// the engine does (it never starts over), gives at every step the very
// request a projection compiling the whole history at once gives, and puts
// each message in the request at most twice (verbatim, then projected): a
// step's work does not grow with the history.
func TestIncrementalProjectionIsTheOneShot(t *testing.T) {
	cfg := ContextConfig{Budget: 40_000}
	full := session(400, 6000)
	p := &projection{cfg: cfg.withDefaults()}
	p.setLead(llm.Message{Role: llm.RoleSystem, Content: "system"})
	moves, prevRefs := 0, 0
	for n := 3; n <= len(full); n += 2 {
		made := p.made
		got, keys, refs := p.request(full[:n])
		want, wantRefs := (&projection{cfg: cfg.withDefaults()}).compile(full[:n])
		if refs != wantRefs || len(got) != len(want)+1 || marshal(t, got[1:]) != marshal(t, want) {
			t.Fatalf("at %d messages the step-by-step request differs from the one-shot one (refs %d, %d)", n, refs, wantRefs)
		}
		if len(keys) != len(got) {
			t.Fatalf("%d keys for %d messages", len(keys), len(got))
		}
		if refs != prevRefs {
			moves++
		} else if n > 3 && p.made-made != 2 {
			t.Fatalf("at %d messages a step without a move put %d messages in the request; want 2", n, p.made-made)
		}
		prevRefs = refs
	}
	if moves == 0 || p.made > 2*len(full)+1 {
		t.Fatalf("%d moves; %d messages made for a history of %d", moves, p.made, len(full))
	}
}
