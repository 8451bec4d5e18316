package cli

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"foya/backend/event"
	"foya/backend/mcp"
)

// TestElicitAsk: --elicit ask asks each field on the terminal, takes the
// default on an empty line, asks again after a value that does not fit
// (saying why), and sends, declines or cancels as the last answer says;
// input that ends or a context that ends stops the wait.
// spec: M1
func TestElicitAsk(t *testing.T) {
	three := 3
	form := mcp.Elicitation{Server: "s", Message: "Who?", Mode: event.ElicitForm, Fields: []event.ElicitField{
		{Name: "name", Type: event.FieldString, Required: true, MinLength: &three},
		{Name: "age", Type: event.FieldInteger, Default: 30.0},
		{Name: "ok", Type: event.FieldBoolean},
		{Name: "color", Type: event.FieldString, Options: []event.ElicitOption{{Value: "r", Title: "Red"}, {Value: "g"}}},
	}}
	ask := func(in string, e mcp.Elicitation) (mcp.ElicitAnswer, string, error) {
		var errb bytes.Buffer
		fn := cliElicit(elicitAsk, Env{Stdin: strings.NewReader(in), Stderr: &errb})
		a, err := fn(context.Background(), nil, "", e)
		return a, errb.String(), err
	}
	a, out, err := ask("\nAd\nAda\n2.5\n\nmaybe\ny\nb\ng\ny\n", form)
	if err != nil || a.Action != mcp.Accept || a.Content["name"] != "Ada" || a.Content["age"] != 30.0 || a.Content["ok"] != true || a.Content["color"] != "g" {
		t.Errorf("answer %+v, %v", a, err)
	}
	for _, want := range []string{"name required; try again", "name must be at least 3 characters", "age must be a whole number",
		"ok must be y or n", "color must be one of the choices", "one of r (Red), g", "(default 30)"} {
		if !strings.Contains(out, want) {
			t.Errorf("the terminal does not say %q:\n%s", want, out)
		}
	}
	if a, _, _ := ask("Ada\n\n\n\nn\n", form); a.Action != mcp.Decline || a.Content != nil {
		t.Errorf("n at the end: %+v", a)
	}
	if a, _, _ := ask("Ada\n\n\n\nc\n", form); a.Action != mcp.Cancel {
		t.Errorf("c at the end: %+v", a)
	}
	if _, _, err := ask("Ada\n", form); err == nil || !strings.Contains(err.Error(), "standard input ended") {
		t.Errorf("input that ends: %v", err)
	}
	url := mcp.Elicitation{Server: "s", Mode: event.ElicitURL, URL: "https://example.com/x"}
	if a, out, _ := ask("y\n", url); a.Action != mcp.Accept || !strings.Contains(out, "https://example.com/x") {
		t.Errorf("url: %+v\n%s", a, out)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r, w := ioPipe(t)
	defer w.Close()
	fn := cliElicit(elicitAsk, Env{Stdin: r, Stderr: &bytes.Buffer{}})
	if _, err := fn(ctx, nil, "", form); err == nil {
		t.Error("a context that ended did not stop the wait")
	}
	if _, err := elicitMode("ask", Env{Stdin: strings.NewReader("")}); err == nil || !strings.Contains(err.Error(), "not one") {
		t.Errorf("ask with no terminal: %v", err)
	}
}

// ioPipe is an os pipe whose read end never sees input.
func ioPipe(t *testing.T) (*os.File, *os.File) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r, w
}
