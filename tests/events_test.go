package tests

import (
	"bytes"
	"encoding/json"
	"fmt"

	"foya/backend/event"
	"foya/backend/llm"
)

// typedRoundTrip checks that an event's payload is exactly its type's
// payload struct (backend/event): it decodes with no unknown field, and
// marshals back to the very bytes stored. Every event a harness sees goes
// through it (issue 11 item 1), so the typed payloads are held to the bytes
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
