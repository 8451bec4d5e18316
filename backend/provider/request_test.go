package provider_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"foya/backend/llm"
	"foya/backend/provider"
	"foya/backend/provider/providertest"
)

var pngBytes = []byte("\x89PNG\r\n\x1a\n fake png body")

func historyRequest() llm.Request {
	return llm.Request{
		Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: "You are Foya."},
			{Role: llm.RoleUser, Content: "Look at the screenshots."},
			{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{
				{ID: "call_1", Name: "screenshot", Arguments: `{"n":1}`},
				{ID: "call_2", Name: "screenshot", Arguments: `{"n":2}`},
				{ID: "call_3", Name: "noop"},
			}},
			{Role: llm.RoleTool, ToolCallID: "call_1", ToolName: "screenshot", Content: "captured 1",
				Parts: []llm.Part{{Type: llm.PartImage, ArtifactID: "art1", MIME: "image/png"}}},
			{Role: llm.RoleTool, ToolCallID: "call_2", ToolName: "screenshot",
				Parts: []llm.Part{{Type: llm.PartImage, ArtifactID: "gone", MIME: "image/png"}, {Type: llm.PartImage, ArtifactID: "art2"}}},
			{Role: llm.RoleTool, ToolCallID: "call_3", Content: "ok", IsError: true},
			{Role: llm.RoleAssistant, Content: "I see two screenshots."},
			{Role: llm.RoleUser, Content: "And this one?", Parts: []llm.Part{{Type: llm.PartImage, ArtifactID: "art1", MIME: "image/png"}}},
		},
		Tools: []llm.ToolSchema{
			{Name: "zeta", Description: "Last by name, first by the caller's order.", Parameters: json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"}}}`)},
			{Name: "alpha", Description: "No parameters."},
		},
		Images: map[string][]byte{"art1": pngBytes, "art2": pngBytes},
	}
}

func TestRequestMapping(t *testing.T) {
	srv := providertest.New(t, providertest.Say("ok"))
	r := collect(t, newClient(t, srv.URL), historyRequest())
	if r.Err != nil {
		t.Fatalf("Stream: %v", r.Err)
	}
	got := srv.Requests()[0]
	dataURI := "data:image/png;base64," + base64.StdEncoding.EncodeToString(pngBytes)
	want := []providertest.Message{
		{Role: "system", Content: "You are Foya."},
		{Role: "user", Content: "Look at the screenshots."},
		{Role: "assistant", ToolCalls: []providertest.Call{
			{ID: "call_1", Name: "screenshot", Arguments: `{"n":1}`},
			{ID: "call_2", Name: "screenshot", Arguments: `{"n":2}`},
			{ID: "call_3", Name: "noop", Arguments: `{}`},
		}},
		{Role: "tool", ToolCallID: "call_1", Content: "captured 1"},
		{Role: "tool", ToolCallID: "call_2", Content: "(images follow in the next message)"},
		{Role: "tool", ToolCallID: "call_3", Content: "ok"},
		{Role: "user", Content: "Images returned by tool call call_1 (screenshot):\nImages returned by tool call call_2 (screenshot):\n[image gone is not available]",
			Images: []string{dataURI, dataURI}},
		{Role: "assistant", Content: "I see two screenshots."},
		{Role: "user", Content: "And this one?", Images: []string{dataURI}},
	}
	if !reflect.DeepEqual(got.Messages, want) {
		gj, _ := json.MarshalIndent(got.Messages, "", " ")
		t.Errorf("messages =\n%s", gj)
	}
	if !reflect.DeepEqual(got.Tools, []string{"zeta", "alpha"}) {
		t.Errorf("tools = %v; want the caller's order [zeta alpha]", got.Tools)
	}
	var body struct {
		Tools []struct {
			Type     string `json:"type"`
			Function struct {
				Name        string          `json:"name"`
				Description string          `json:"description"`
				Parameters  json.RawMessage `json:"parameters"`
			} `json:"function"`
		} `json:"tools"`
		Messages []map[string]json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(got.Raw, &body); err != nil {
		t.Fatal(err)
	}
	if body.Tools[0].Type != "function" || body.Tools[0].Function.Description == "" ||
		string(body.Tools[0].Function.Parameters) != `{"type":"object","properties":{"a":{"type":"string"}}}` {
		t.Errorf("tool 0 = %+v", body.Tools[0])
	}
	if string(body.Tools[1].Function.Parameters) != `{"type":"object","properties":{}}` {
		t.Errorf("tool without parameters sent %s; want an empty object schema", body.Tools[1].Function.Parameters)
	}
	// The user message with images names the order of the image parts.
	userParts := string(body.Messages[6]["content"])
	if i, j := strings.Index(userParts, "call_2"), strings.Index(userParts, "image_url"); i < 0 || j < 0 {
		t.Errorf("image message content = %s", userParts)
	}
}

func TestRequestIsByteStable(t *testing.T) {
	srv := providertest.New(t, providertest.Say("a"), providertest.Say("b"))
	c := newClient(t, srv.URL)
	for range 2 {
		if r := collect(t, c, historyRequest()); r.Err != nil {
			t.Fatal(r.Err)
		}
	}
	reqs := srv.Requests()
	if !bytes.Equal(reqs[0].Raw, reqs[1].Raw) {
		t.Errorf("the same request gave different bodies:\n%s\n%s", reqs[0].Raw, reqs[1].Raw)
	}
}

func TestRequestModel(t *testing.T) {
	srv := providertest.New(t, providertest.Say("a"), providertest.Say("b"))
	c := newClient(t, srv.URL)
	collect(t, c, userReq("hi"))
	req := userReq("hi")
	req.Model = "other-model"
	collect(t, c, req)
	reqs := srv.Requests()
	if reqs[0].Model != "test-model" || reqs[1].Model != "other-model" {
		t.Errorf("models = %q, %q; want the configured one, then the request's", reqs[0].Model, reqs[1].Model)
	}
	if c.Model() != "test-model" || c.Name() != "openai-compatible" {
		t.Errorf("Model() %q Name() %q", c.Model(), c.Name())
	}
}

func TestRequestBadInput(t *testing.T) {
	tests := []struct {
		name string
		req  llm.Request
		want string
	}{
		{"unknown role", llm.Request{Messages: []llm.Message{{Role: "robot", Content: "x"}}}, `message 0: unknown role "robot"`},
		{"tool message without call id", llm.Request{Messages: []llm.Message{{Role: llm.RoleTool, Content: "x"}}}, "message 0: tool message has no tool call id"},
		{"assistant call without id", llm.Request{Messages: []llm.Message{{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{Name: "read"}}}}}, "message 0: tool call 0 needs an id and a name"},
		{"tool without name", llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "x"}}, Tools: []llm.ToolSchema{{Description: "x"}}}, "tool 0 has no name"},
		{"tool with broken schema", llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "x"}}, Tools: []llm.ToolSchema{{Name: "t", Parameters: json.RawMessage(`{"type":`)}}}, `tool "t": parameters are not valid JSON`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := providertest.New(t, providertest.Say("unused"))
			r := collect(t, newClient(t, srv.URL), tt.req)
			if r.Err == nil || !strings.Contains(r.Err.Error(), tt.want) {
				t.Fatalf("err = %v; want one saying %q", r.Err, tt.want)
			}
			if n := len(srv.Requests()); n != 0 {
				t.Errorf("a bad request reached the server (%d requests)", n)
			}
		})
	}
}

func TestNew(t *testing.T) {
	tests := []struct {
		name string
		cfg  provider.Config
		want string // empty: valid
	}{
		{"defaults", provider.Config{Model: "gpt-4o"}, ""},
		{"local server", provider.Config{BaseURL: "http://127.0.0.1:8080/v1", Model: "qwen"}, ""},
		{"https with headers", provider.Config{BaseURL: "https://openrouter.example/api/v1", Model: "m", Headers: map[string]string{"HTTP-Referer": "https://foya.dev", "X-Title": "Foya"}}, ""},
		{"no model", provider.Config{BaseURL: "http://127.0.0.1:1/v1"}, "model is required"},
		{"blank model", provider.Config{Model: "  "}, "model is required"},
		{"not a URL", provider.Config{BaseURL: "::nope", Model: "m"}, "base URL"},
		{"ftp scheme", provider.Config{BaseURL: "ftp://host/v1", Model: "m"}, "want an http:// or https:// URL"},
		{"no host", provider.Config{BaseURL: "http:///v1", Model: "m"}, "want an http:// or https:// URL"},
		{"relative", provider.Config{BaseURL: "localhost:8080/v1", Model: "m"}, "want an http:// or https:// URL"},
		{"query", provider.Config{BaseURL: "http://h/v1?x=1", Model: "m"}, "query"},
		{"bad header name", provider.Config{Model: "m", Headers: map[string]string{"Bad Header": "x"}}, `header name "Bad Header"`},
		{"header value with newline", provider.Config{Model: "m", Headers: map[string]string{"X-A": "a\r\nX-B: b"}}, "line breaks"},
		{"key with newline", provider.Config{Model: "m", APIKey: "sk\n"}, "API key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := provider.New(tt.cfg)
			if tt.want == "" {
				if err != nil || c == nil {
					t.Fatalf("New(%+v) = %v; want a client", tt.cfg, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "provider: ") {
				t.Fatalf("New(%+v) error = %v; want one saying %q", tt.cfg, err, tt.want)
			}
		})
	}
}

func TestHeadersOverrideAndAreCopied(t *testing.T) {
	srv := providertest.New(t, providertest.Say("a"))
	headers := map[string]string{"Authorization": "Bearer other", "api-key": "k"}
	c := newClient(t, srv.URL, func(cfg *provider.Config) { cfg.Headers = headers })
	headers["Authorization"] = "changed after New"
	collect(t, c, userReq("hi"))
	h := srv.Requests()[0].Header
	if h.Get("Authorization") != "Bearer other" || h.Get("Api-Key") != "k" {
		t.Errorf("headers = %v", h)
	}
}
