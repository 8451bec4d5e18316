package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	pt "foya/backend/provider/providertest"
)

// spec: K1, T4
// Issue 9 class 13: a write or edit whose content holds a lone UTF-16
// surrogate escape is refused with an error that says where, and nothing
// is written; encoding/json would have written U+FFFD in its place and
// reported success. A valid surrogate pair goes through unchanged.
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
