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

// parsedShape is the one field the approval.request payload adds to
// approval's JSON: the parsed command, which approval keeps out of its
// JSON (it is not stored with the request) and the payload carries.
const parsedShape = " parsed,omitempty:{simple:string deletes:string opaque:string}"

// The approval payloads mirror package approval's types field for field:
// same JSON names, order, options and shapes, so a field added to
// approval.Request without its mirror fails here, and the bytes are those
// approval's types marshal to, with the parsed command added to a shell
// action.
// spec: W3
func TestApprovalPayloadsMirrorApproval(t *testing.T) {
	for _, c := range []struct{ theirs, ours reflect.Type }{
		{reflect.TypeFor[approval.Pending](), reflect.TypeFor[event.ApprovalRequestData]()},
		{reflect.TypeFor[approval.Answer](), reflect.TypeFor[event.Answer]()},
	} {
		b := jsonShape(c.ours)
		if c.theirs == reflect.TypeFor[approval.Pending]() {
			if !strings.Contains(b, parsedShape) {
				t.Errorf("%v is\n%s\nwithout%s", c.ours, b, parsedShape)
			}
			b = strings.Replace(b, parsedShape, "", 1)
		}
		if a := jsonShape(c.theirs); a != b {
			t.Errorf("%v is\n%s\nbut %v is\n%s", c.ours, b, c.theirs, a)
		}
	}

	g := approval.Grant{Kind: approval.Shell, Tool: "bash", Prefix: []string{"go", "test"}, Host: "h", Folder: "/w"}
	p := approval.Pending{ID: "apr_1", SessionID: "ses_1", RunID: "run_1", Reason: "asks <why>", AskedAt: time.Unix(1, 2).UTC(),
		Scopes: []approval.Grant{g, {Kind: approval.Fetch, Host: "example.com"}},
		Request: approval.Request{CallID: "call_1", Why: "w & w", Preview: "$ ls",
			Action: approval.Action{Kind: approval.Shell, Tool: "bash", Paths: []string{"/w"}, Command: "ls", Host: "h", ReadOnly: true}}}
	// withParsed is approval's JSON of p with the parse of its command "ls".
	withParsed := func(p approval.Pending) []byte {
		b, _ := json.Marshal(p)
		return bytes.Replace(b, []byte(`"readOnly":true}`), []byte(`"readOnly":true,"parsed":{"simple":[["ls"]],"deletes":[],"opaque":[]}}`), 1)
	}
	want := withParsed(p)
	if got := event.Data(requestData(p)); !bytes.Equal(got, want) {
		t.Errorf("requestData marshals to\n%s\nwant\n%s", got, want)
	}
	p.Scopes = nil
	want = withParsed(p)
	if got := event.Data(requestData(p)); !bytes.Equal(got, want) {
		t.Errorf("requestData without scopes marshals to\n%s\nwant\n%s", got, want)
	}
	// An action with no command carries no parse.
	p.Request.Action.Command = ""
	want, _ = json.Marshal(p)
	if got := event.Data(requestData(p)); !bytes.Equal(got, want) {
		t.Errorf("requestData without a command marshals to\n%s\nwant\n%s", got, want)
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

// TestApprovalRequestCarriesParsedCommand: the approval.request of a shell
// call carries its command as the policy parsed it to decide (parsed once,
// by approval.ShellAction), so that the dialog shows every simple command,
// those hidden in sh -c too, what deletes for good and what Foya cannot
// read, without parsing it again.
// spec: A1
func TestApprovalRequestCarriesParsedCommand(t *testing.T) {
	ask := func(command string) *event.ParsedCommand {
		t.Helper()
		c, err := approval.ParseCommand(command)
		if err != nil {
			t.Fatal(err)
		}
		a := approval.ShellAction(approval.Shell, "bash", &c)
		d := requestData(approval.Pending{Request: approval.Request{CallID: "call_1", Action: a}})
		if d.Request.Action.Command != command {
			t.Errorf("command %q; want %q", d.Request.Action.Command, command)
		}
		return d.Request.Action.Parsed
	}
	for _, tc := range []struct {
		command string
		want    event.ParsedCommand
	}{
		{"go test ./...", event.ParsedCommand{Simple: [][]string{{"go", "test", "./..."}}, Deletes: []string{}, Opaque: []string{}}},
		{"cd 'my pkg' && go test -run X | tee out.txt", event.ParsedCommand{
			Simple: [][]string{{"cd", "my pkg"}, {"go", "test", "-run", "X"}, {"tee", "out.txt"}}, Deletes: []string{}, Opaque: []string{}}},
	} {
		if got := ask(tc.command); got == nil || !reflect.DeepEqual(*got, tc.want) {
			t.Errorf("parsed %q = %+v; want %+v", tc.command, got, tc.want)
		}
	}
	hidden := ask(`echo ok && sh -c "rm -rf build"`)
	if hidden == nil || !slices.ContainsFunc(hidden.Simple, func(s []string) bool { return slices.Equal(s, []string{"rm", "-rf", "build"}) }) ||
		len(hidden.Deletes) == 0 {
		t.Errorf("sh -c hiding rm = %+v; want rm -rf build among the commands and in the deletes", hidden)
	}
	if opaque := ask(`eval "$CMD"`); opaque == nil || len(opaque.Opaque) == 0 {
		t.Errorf("eval of a variable = %+v; want a reason it cannot be read", opaque)
	}
	// An action that is not a command carries no parse.
	d := requestData(approval.Pending{Request: approval.Request{Action: approval.Action{Kind: approval.WriteInside, Tool: "write", Paths: []string{"/w/a"}}}})
	if d.Request.Action.Parsed != nil {
		t.Errorf("a write's request carries %+v; want no parse", d.Request.Action.Parsed)
	}
}
