package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"foya/backend/kernel"
	"foya/backend/llm"
)

// TestAskWithoutScopes: a request that offers no session scope (a fetch of
// a private address) does not offer [s]; answered s all the same, the
// terminal says why and asks again instead of failing. Issue 21 item 5.
func TestAskWithoutScopes(t *testing.T) {
	p := kernel.Approval{ID: "apr_1", Request: kernel.ApprovalRequest{Why: "fetch http://intranet.test/",
		Action: kernel.Action{Kind: "fetch_private", Tool: "web_fetch", Host: "intranet.test", Addresses: []string{"10.0.0.7"}}}}
	data, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	var got []kernel.Answer
	a := &asker{in: bufio.NewReader(strings.NewReader("s\ny\n")), out: &out, answer: func(id string, ans kernel.Answer) error {
		got = append(got, ans)
		return nil
	}}
	a.ask(llm.Event{Data: data})
	text := out.String()
	if len(got) != 1 || got[0].Choice != kernel.AllowOnce {
		t.Fatalf("answers %+v; want allow once\n%s", got, text)
	}
	for _, want := range []string{"loopback or private address: 10.0.0.7", "cannot be allowed for the session, only once"} {
		if !strings.Contains(text, want) {
			t.Errorf("terminal shows:\n%s\nwant %q", text, want)
		}
	}
	if strings.Contains(text, "[s] for this session") {
		t.Errorf("terminal offers [s] with no scope:\n%s", text)
	}
}
