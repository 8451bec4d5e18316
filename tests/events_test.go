package tests

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"foya/backend/event"
	"foya/backend/kernel"
	"foya/backend/llm"
	pt "foya/backend/provider/providertest"
)

// typedRoundTrip checks that an event's payload is exactly its type's
// payload struct (backend/event): it decodes with no unknown field, and
// marshals back to the very bytes stored. Every event a harness sees goes
// through it, so the typed payloads are held to the bytes
// of every scenario the suite runs, not only to the golden file.
func typedRoundTrip(ev llm.Event) error {
	p := event.Payload(ev.Type)
	if p == nil {
		return fmt.Errorf("event %d: type %q is not in backend/event", ev.Seq, ev.Type)
	}
	dec := json.NewDecoder(bytes.NewReader(ev.Data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(p); err != nil {
		return fmt.Errorf("event %d (%s): %s does not decode into %T: %v", ev.Seq, ev.Type, ev.Data, p, err)
	}
	// Invalid UTF-8 was stored as \ufffd escapes, which decode to U+FFFD
	// and marshal as the character itself: the same text.
	stored := bytes.ReplaceAll(ev.Data, []byte(`\ufffd`), []byte("\uFFFD"))
	if again := event.Data(p); !bytes.Equal(again, stored) {
		return fmt.Errorf("event %d (%s): %T marshals to\n%s\nbut the stored bytes are\n%s", ev.Seq, ev.Type, p, again, ev.Data)
	}
	return nil
}

// spec: I2, L4
// TestStoredEventsAreThePublishedBytes runs a turn with reasoning, text, a
// write and its file change, switches the mode and reverts the write, then
// reads the session's events back from SQLite: each is, byte for byte as
// `foya exec --json` prints it, the event subscribers got, and its payload
// is its typed struct.
func TestStoredEventsAreThePublishedBytes(t *testing.T) {
	privateTrash(t)
	h := newHarness(t, nil,
		pt.Turn{Reasoning: "plan <first> & then", Calls: []pt.Call{call("w", "write", `{"path":"a.txt","content":"x <y> & z\n"}`)}},
		pt.Say("wrote it: <done> & dusted"),
	)
	ctx := context.Background()
	sess := h.session("auto")
	run := h.runIn(ctx, sess.ID, "write a <file>")
	if run.Status != llm.RunCompleted {
		t.Fatalf("run %s: %s", run.Status, run.Error)
	}
	if err := h.k.SetMode(ctx, sess.ID, "full-access"); err != nil {
		t.Fatal(err)
	}
	if _, err := h.k.Revert(ctx, kernel.RevertRequest{RunID: run.ID}); err != nil {
		t.Fatal(err)
	}
	stored, err := h.k.Events(ctx, sess.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	var published []llm.Event
	for _, ev := range h.eventList() {
		if ev.SessionID == sess.ID {
			published = append(published, ev)
		}
	}
	line := func(ev llm.Event) string {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false) // as foya exec --json
		enc.Encode(ev)
		return b.String()
	}
	if len(stored) != len(published) {
		t.Fatalf("%d events stored, %d published", len(stored), len(published))
	}
	seen := map[string]bool{}
	for i, ev := range stored {
		if got, want := line(ev), line(published[i]); got != want {
			t.Errorf("event %d as stored:\n%s\nas published:\n%s", i+1, got, want)
		}
		if err := typedRoundTrip(ev); err != nil {
			t.Error(err)
		}
		seen[ev.Type] = true
	}
	for _, typ := range []string{event.TypeRunStart, event.TypeStepStart, event.TypeReasoningDelta, event.TypeTextDelta,
		event.TypeToolBegin, event.TypeToolUpdate, event.TypeToolEnd, event.TypeStepEnd, event.TypeRunEnd,
		event.TypeSessionMode, event.TypeFileReverted} {
		if !seen[typ] {
			t.Errorf("no %s event stored", typ)
		}
	}
}
