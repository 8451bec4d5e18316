package tests

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"foya/backend/kernel"
	pt "foya/backend/provider/providertest"
)

// spec: K1, T4
// Content is never changed silently: a write or edit whose content holds
// a lone UTF-16 surrogate escape is refused with an error that says where,
// and nothing is written; encoding/json would have written U+FFFD in its
// place and reported success. A valid surrogate pair goes through unchanged.
func TestWriteRefusesLoneSurrogates(t *testing.T) {
	h := newHarness(t, nil, pt.Calls(
		call("high", "write", `{"path":"high.txt","content":"one\ntwo\nab\ud800cd"}`),
		call("low", "write", `{"path":"low.txt","content":"\udc00"}`),
		call("reversed", "write", `{"path":"rev.txt","content":"\ude00\ud83d"}`),
		call("read", "read", `{"path":"e.txt"}`),
		call("edit", "edit", `{"path":"e.txt","old_string":"keep","new_string":"x\ud800"}`),
		call("pair", "write", `{"path":"pair.txt","content":"\ud83d\ude00"}`),
	), pt.Say("done"))
	writeFile(t, filepath.Join(h.dir, "e.txt"), "keep\n", 0o644)
	res := h.results(h.run("write").ID)
	for id, want := range map[string][]string{
		"high":     {`argument "content"`, `\ud800`, "line 3, column 3"},
		"low":      {`\udc00`, "line 1, column 1"},
		"reversed": {`\ude00`},
		"edit":     {`argument "new_string"`, `\ud800`},
	} {
		r := res[id]
		if r == nil || !r.IsError {
			t.Errorf("%s: %+v; want an error", id, r)
			continue
		}
		for _, w := range want {
			if !strings.Contains(r.Text, w) {
				t.Errorf("%s: %q; want it to say %q", id, r.Text, w)
			}
		}
	}
	for _, name := range []string{"high.txt", "low.txt", "rev.txt"} {
		if _, err := os.Lstat(filepath.Join(h.dir, name)); err == nil {
			t.Errorf("%s was written", name)
		}
	}
	if got := readFile(t, filepath.Join(h.dir, "e.txt")); got != "keep\n" {
		t.Errorf("e.txt = %q; the refused edit changed it", got)
	}
	if r := res["pair"]; r == nil || r.IsError || readFile(t, filepath.Join(h.dir, "pair.txt")) != "😀" {
		t.Errorf("pair: %+v", r)
	}
}

// rawCallTurn is a turn whose one tool call's arguments are argsLiteral, a
// JSON string literal as the server wrote it (escapes and bytes as given).
func rawCallTurn(id, name, argsLiteral string) pt.Turn {
	return pt.Turn{Raw: []string{
		`data: {"id":"x","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"` +
			id + `","type":"function","function":{"name":"` + name + `","arguments":` + argsLiteral + `}}]},"finish_reason":"tool_calls"}]}`,
		"data: [DONE]",
	}}
}

// spec: K1, T4
// Found by the second review: invalid UTF-8 and lone surrogate
// escapes in the server's own JSON (the string that carries the arguments,
// not the arguments' JSON inside it) reached the tools as U+FFFD, so a
// write reported success for content the model never sent and bash ran
// another command than it sent. Now each is refused, saying where, and
// nothing is written or run.
func TestStreamLevelInvalidUnicodeIsRefused(t *testing.T) {
	h := newHarness(t, nil,
		rawCallTurn("w1", "write", `"{\"path\":\"a.txt\",\"content\":\"ab\ud800cd\"}"`), pt.Say("1"),
		rawCallTurn("w2", "write", "\"{\\\"path\\\":\\\"b.txt\\\",\\\"content\\\":\\\"a\xffb\\\"}\""), pt.Say("2"),
		rawCallTurn("b1", "bash", `"{\"command\":\"echo \udc00 > c.txt\"}"`), pt.Say("3"),
		rawCallTurn("w3", "write", `"{\"path\":\"d.txt\",\"content\":\"\ud83d\ude00\"}"`), pt.Say("4"),
	)
	s := h.session("auto")
	got := map[string]*kernel.ToolResult{}
	for range 4 {
		maps.Copy(got, h.results(h.runIn(context.Background(), s.ID, "go").ID))
	}
	for _, id := range []string{"w1", "w2", "b1"} {
		if r := got[id]; r == nil || !r.IsError || !strings.Contains(r.Text, `argument "`) {
			t.Errorf("%s: %+v; want an error that names the argument", id, r)
		}
	}
	for _, name := range []string{"a.txt", "b.txt", "c.txt"} {
		if _, err := os.Lstat(filepath.Join(h.dir, name)); err == nil {
			t.Errorf("%s was written: %q", name, readFile(t, filepath.Join(h.dir, name)))
		}
	}
	if r := got["w3"]; r == nil || r.IsError || readFile(t, filepath.Join(h.dir, "d.txt")) != "😀" {
		t.Errorf("a surrogate pair: %+v", r)
	}
}
