package event

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// TestTSEvents checks that the TypeScript copied into event.ts maps every
// event type and every notice type, and only those, to its payload type.
func TestTSEvents(t *testing.T) {
	var b strings.Builder
	b.WriteString("export interface EventDataByType {\n")
	for _, typ := range Types {
		fmt.Fprintf(&b, "  %q: %s;\n", typ, reflect.TypeOf(Payload(typ)).Elem().Name())
	}
	b.WriteString("}\n")
	if !strings.Contains(tsEvents, b.String()) {
		t.Errorf("tsEvents (ts.go) must hold, as it is:\n%s", b.String())
	}
	b.Reset()
	b.WriteString("export interface NoticeDataByType {\n")
	for _, typ := range Notices {
		fmt.Fprintf(&b, "  %q: %s;\n", typ, reflect.TypeOf(Payload(typ)).Elem().Name())
	}
	b.WriteString("}\n")
	if !strings.Contains(tsEvents, b.String()) {
		t.Errorf("tsEvents (ts.go) must hold, as it is:\n%s", b.String())
	}
	if n := strings.Count(tsEvents, "Data;\n"); n != len(Types)+len(Notices) {
		t.Errorf("tsEvents names %d payloads; want %d, one per type", n, len(Types)+len(Notices))
	}
}
