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

// fileStep is an assistant call of tool on path and its result.
func fileStep(id, tool, path, result string, isError bool) []llm.Message {
	return []llm.Message{
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: id, Name: tool, Arguments: fmt.Sprintf(`{"path":%q}`, path)}}},
		{Role: llm.RoleTool, ToolCallID: id, ToolName: tool, Content: result, IsError: isError},
	}
}

// spec: O5, R2 (issue 28 item 5) — a read whose file a later edit, write or
// delete changed, or a whole read of a file read whole again, is sent as a
// one-line note from the next request on, when the messages between it and
// that call take less than the read saves; a read with much conversation
// after it, a failed change, a change of another file, a small read and a
// read of part of a file stay verbatim. The result is the same however the history
// grew, and each message changes once at most.
func TestStaleReadsAreNotes(t *testing.T) {
	file := strings.Repeat("a line of the file, as it was read\n", 120)
	h := []llm.Message{{Role: llm.RoleUser, Content: "edit them"}}
	h = append(h, fileStep("r1", "read", "a.go", file, false)...) // r3: stale (edited right after)
	h = append(h, fileStep("e1", "edit", "a.go", "Edited a.go.", false)...)
	h = append(h, fileStep("r2", "read", "b.go", file, false)...) // r7: the edit failed
	h = append(h, fileStep("e2", "edit", "b.go", "no match", true)...)
	h = append(h, fileStep("r3", "read", "c.go", file, false)...) // r11: another file changed
	h = append(h, fileStep("e3", "write", "d.go", "Wrote d.go.", false)...)
	h = append(h, fileStep("r4", "read", "e.go", "short\n", false)...) // r15: too small to matter
	h = append(h, fileStep("e4", "delete", "e.go", "Deleted e.go.", false)...)
	h = append(h, fileStep("r5", "read", "./f.go", file, false)...) // r19: much conversation after it
	h = append(h, session(3, 1500)[1:]...)
	h = append(h, fileStep("e5", "edit", "f.go", "Edited f.go.", false)...)
	h = append(h, fileStep("g1", "read", "g.go", file, false)...) // r29: read whole again
	h = append(h, llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "g2", Name: "read", Arguments: `{"path":"g.go","offset":100}`}}},
		llm.Message{Role: llm.RoleTool, ToolCallID: "g2", ToolName: "read", Content: file[:2100]}) // r31: a part, stays
	h = append(h, fileStep("g3", "read", "g.go", file, false)...) // r33: the newest, verbatim

	cfg := ContextConfig{}.withDefaults()
	whole, _ := (&projection{cfg: cfg}).compile(h)
	p := &projection{cfg: cfg}
	var grown []llm.Message
	for n := 1; n <= len(h); n++ {
		grown, _ = p.compile(h[:n])
	}
	if marshal(t, whole) != marshal(t, grown) {
		t.Fatal("the history compiled at once and step by step differ")
	}
	if p.made != len(h)+2 {
		t.Errorf("%d messages made for %d; want each once, and the two stale reads once more", p.made, len(h))
	}
	want := "[Stale: a.go as read before the edit at r5 (4,200 bytes); read it again for its text now.]"
	if whole[2].Content != want {
		t.Errorf("the read of a.go is sent as %.120q; want %q", whole[2].Content, want)
	}
	if want := "[Superseded: g.go was read again at r33 (this read: 4,200 bytes).]"; whole[28].Content != want {
		t.Errorf("the first whole read of g.go is sent as %.120q; want %q", whole[28].Content, want)
	}
	for _, i := range []int{6, 10, 14, 18, 30, 32} {
		if whole[i].Content != h[i].Content {
			t.Errorf("message r%d (%s) is sent as %.80q; want it verbatim", i+1, h[i].ToolName, whole[i].Content)
		}
	}
	if whole[2].ToolCallID != "r1" || whole[2].Role != llm.RoleTool {
		t.Errorf("the stale read lost its call: %+v", whole[2])
	}
}
