package main

import (
	"os"
	"path/filepath"
	"testing"
)

// Uncached input is what each request adds after the longest prefix it
// shares with the previous request of its conversation, in prompt order
// (tools before messages, wherever the body puts them); a request without
// tools is a conversation of its own; cold counts the first request whole.
func TestMeasureCountsWhatEachRequestAdds(t *testing.T) {
	dir := t.TempDir()
	tools := `[{"type":"function","function":{"name":"read"}}]`
	sys := `{"role":"system","content":"S"}`
	call := `{"role":"assistant","tool_calls":[{"id":"c1"}]}`
	result := `{"role":"tool","content":"0123456789","tool_call_id":"c1"}`
	bodies := []string{
		`{"model":"m","messages":[` + sys + `],"stream":true,"tools":` + tools + `}`,
		`{"model":"m","messages":[` + sys + `,` + call + `,` + result + `],"stream":true,"tools":` + tools + `}`,
		`{"model":"m","messages":[{"role":"user","content":"title?"}]}`,
		``, // GET /models
	}
	for i, b := range bodies {
		if err := os.WriteFile(filepath.Join(dir, "req-000"+string(rune('1'+i))+"-x.json"), []byte(b), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var r Result
	if err := measure(&r, dir); err != nil {
		t.Fatal(err)
	}
	first := len(tools) + len(sys)
	added := len(call) + len(result)
	aux := len(`{"role":"user","content":"title?"}`)
	if r.Requests != 3 || r.First != int64(len(bodies[0])) || r.Total != int64(len(bodies[0])+len(bodies[1])+len(bodies[2])) {
		t.Fatalf("requests %d, first %d, total %d", r.Requests, r.First, r.Total)
	}
	if r.Cold != int64(first+added+aux) || r.Warm != int64(added+aux) {
		t.Fatalf("cold %d, warm %d; want %d and %d", r.Cold, r.Warm, first+added+aux, added+aux)
	}
}

// The floor is the files' bytes for reads and the expected line for
// commands; a command without an expectation (big-output) has none.
func TestFloor(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("12345\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	scn := filepath.Join(dir, "s.json")
	write := func(s string) {
		if err := os.WriteFile(scn, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(`{"steps":[{"calls":[{"op":"read","params":{"path":"a.txt"}},{"op":"shell","expect":"hello"},{"op":"edit"}]},{"text":"done"}]}`)
	if n, err := floor(scn, dir); err != nil || n != 6+6 {
		t.Fatalf("floor %d, %v; want 12", n, err)
	}
	write(`{"steps":[{"calls":[{"op":"shell"}]}]}`)
	if n, err := floor(scn, dir); err != nil || n != 0 {
		t.Fatalf("floor %d, %v; want 0", n, err)
	}
}
