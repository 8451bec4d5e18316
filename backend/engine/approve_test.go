package engine

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"foya/backend/approval"
	"foya/backend/event"
)

// jsonShape lists the JSON fields of t, in order, with the shapes of the
// structs they hold: "name,omitempty:kind" per field, nested in braces.
func jsonShape(t reflect.Type) string {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || t == reflect.TypeFor[time.Time]() {
		return t.Kind().String()
	}
	var parts []string
	for f := range t.Fields() {
		tag := f.Tag.Get("json")
		if !f.IsExported() || tag == "-" {
			continue
		}
		parts = append(parts, tag+":"+jsonShape(f.Type))
	}
	return "{" + strings.Join(parts, " ") + "}"
}

// The approval payloads mirror package approval's types field for field:
// same JSON names, order, options and shapes, so a field
// added to approval.Request without its mirror fails here, and the bytes are
// those approval's types marshal to.
// spec: W3
func TestApprovalPayloadsMirrorApproval(t *testing.T) {
	for _, c := range []struct{ theirs, ours reflect.Type }{
		{reflect.TypeFor[approval.Pending](), reflect.TypeFor[event.ApprovalRequestData]()},
		{reflect.TypeFor[approval.Answer](), reflect.TypeFor[event.Answer]()},
	} {
		if a, b := jsonShape(c.theirs), jsonShape(c.ours); a != b {
			t.Errorf("%v is\n%s\nbut %v is\n%s", c.ours, b, c.theirs, a)
		}
	}

	g := approval.Grant{Kind: approval.Shell, Tool: "bash", Prefix: []string{"go", "test"}, Host: "h", Folder: "/w"}
	p := approval.Pending{ID: "apr_1", SessionID: "ses_1", RunID: "run_1", Reason: "asks <why>", AskedAt: time.Unix(1, 2).UTC(),
		Scopes: []approval.Grant{g, {Kind: approval.Fetch, Host: "example.com"}},
		Request: approval.Request{CallID: "call_1", Why: "w & w", Preview: "$ ls",
			Action: approval.Action{Kind: approval.Shell, Tool: "bash", Paths: []string{"/w"}, Command: "ls", Host: "h", ReadOnly: true}}}
	want, _ := json.Marshal(p)
	if got := event.Data(requestData(p)); !bytes.Equal(got, want) {
		t.Errorf("requestData marshals to\n%s\nwant\n%s", got, want)
	}
	p.Scopes = nil
	want, _ = json.Marshal(p)
	if got := event.Data(requestData(p)); !bytes.Equal(got, want) {
		t.Errorf("requestData without scopes marshals to\n%s\nwant\n%s", got, want)
	}
	for _, a := range []approval.Answer{{Choice: approval.AllowSession, Scope: &g}, {Choice: approval.Deny, Message: "no"}, {}} {
		want, _ := json.Marshal(a)
		if got := event.Data(answerData(a)); !bytes.Equal(got, want) {
			t.Errorf("answerData(%+v) marshals to %s; want %s", a, got, want)
		}
	}

	kinds := make([]string, len(approval.Kinds))
	for i, k := range approval.Kinds {
		kinds[i] = string(k)
	}
	if !slices.Equal(kinds, event.Kinds) {
		t.Errorf("event.Kinds = %v; want approval.Kinds %v", event.Kinds, kinds)
	}
	modes := make([]string, len(approval.Modes))
	for i, m := range approval.Modes {
		modes[i] = string(m)
	}
	if !slices.Equal(modes, event.Modes) {
		t.Errorf("event.Modes = %v; want approval.Modes %v", event.Modes, modes)
	}
	for _, c := range event.Choices {
		if _, err := approval.ParseChoice(c); err != nil {
			t.Errorf("event choice %q: %v", c, err)
		}
	}
}
