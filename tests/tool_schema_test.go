package tests

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"foya/backend/tools"
)

// toolSchemasFile pins the argument schema of every built-in tool, as the
// model sees it. It was written from the hand-written schemas before they
// were derived from the argument structs, so that deriving them changed
// nothing the model reads.
var toolSchemasFile = filepath.Join("testdata", "tool_schemas.json")

// spec: K1 — each built-in tool's schema, now derived
// from its argument struct, means what the hand-written one meant: the same
// properties, types, bounds, enums, descriptions, required fields and
// additionalProperties: false, compared as JSON values (key order and
// spacing aside). A tool added without a pinned schema fails until the file
// is rewritten with -update.
func TestToolSchemasArePinned(t *testing.T) {
	h := newHarness(t, nil)
	reg := h.k.Registry()
	names := reg.Visible(tools.Filter{State: tools.State{Deferred: 1, Refs: 1}})
	got := map[string]json.RawMessage{}
	for _, name := range names {
		_, spec, _ := reg.Lookup(name)
		var buf bytes.Buffer
		if err := json.Compact(&buf, spec.Schema); err != nil {
			t.Fatalf("%s: schema is not JSON: %v", name, err)
		}
		got[name] = buf.Bytes()
	}
	if *update {
		b, err := json.MarshalIndent(got, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(toolSchemasFile, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	raw, err := os.ReadFile(toolSchemasFile)
	if err != nil {
		t.Fatalf("read %s: %v (write it with -update)", toolSchemasFile, err)
	}
	var want map[string]any
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatalf("%s: %v", toolSchemasFile, err)
	}
	for name, schema := range got {
		var g any
		if err := json.Unmarshal(schema, &g); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		w, ok := want[name]
		switch {
		case !ok:
			t.Errorf("tool %s has no pinned schema in %s: run go test ./tests -run ToolSchemas -update and review the diff", name, toolSchemasFile)
		case !reflect.DeepEqual(g, w):
			wb, _ := json.Marshal(w)
			t.Errorf("tool %s: schema\n%s\nwant (pinned)\n%s", name, schema, wb)
		}
	}
	for name := range want {
		if _, ok := got[name]; !ok {
			t.Errorf("pinned tool %s is not registered (registered: %v)", name, slices.Sorted(maps.Keys(got)))
		}
	}
	if len(got) < 14 {
		t.Errorf("only %d tools registered: %v; want every built-in tool", len(got), names)
	}
}
