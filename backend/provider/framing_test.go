package provider_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sync/atomic"
	"testing"

	"foya/backend/llm"
	"foya/backend/provider"
)

// bodyServer answers every request with the given content type and body.
func bodyServer(t *testing.T, contentType, body string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestSSEFraming(t *testing.T) {
	tests := []struct {
		name string
		body string
	}{
		{"CRLF line endings", "data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\r\n\r\ndata: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\r\n\r\ndata: [DONE]\r\n\r\n"},
		{"no space after data:", "data:{\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\n\ndata:{\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata:[DONE]\n\n"},
		{"no blank lines between events", "data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\ndata: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\ndata: [DONE]\n"},
		{"one event over two data lines", "data: {\"choices\":[{\"delta\":\ndata: {\"content\":\"Hi\"}}]}\n\ndata: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"},
		{"bare JSON lines", "{\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\n{\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n"},
		{"other choices ignored", "data: {\"choices\":[{\"index\":1,\"delta\":{\"content\":\"No\"}},{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\n\ndata: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n"},
		{"content as parts", "data: {\"choices\":[{\"delta\":{\"content\":[{\"type\":\"text\",\"text\":\"H\"},{\"type\":\"text\",\"text\":\"i\"}]}}]}\n\ndata: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := bodyServer(t, "text/event-stream; charset=utf-8", tt.body)
			r := collect(t, newClient(t, srv.URL+"/v1"), userReq("hi"))
			if r.Err != nil {
				t.Fatalf("Stream: %v", r.Err)
			}
			if r.Text != "Hi" || r.Finish != "stop" {
				t.Errorf("text %q finish %q; want Hi, stop", r.Text, r.Finish)
			}
		})
	}
}

func TestServerIgnoringStream(t *testing.T) {
	// A server that ignores stream=true answers with one JSON document;
	// some send the arguments as an object rather than a string.
	body := `{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"Reading.",
		"reasoning_content":"hmm","tool_calls":[{"id":"c1","type":"function","function":{"name":"read","arguments":{"path":"a"}}}]},
		"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":5,"completion_tokens":3}}`
	srv := bodyServer(t, "application/json", body)
	r := collect(t, newClient(t, srv.URL+"/v1"), userReq("hi"))
	if r.Err != nil {
		t.Fatalf("Stream: %v", r.Err)
	}
	want := []llm.ToolCall{{ID: "c1", Name: "read", Arguments: `{"path":"a"}`}}
	if r.Text != "Reading." || r.Reasoning != "hmm" || !reflect.DeepEqual(r.Calls, want) || r.Finish != "tool_calls" {
		t.Errorf("got %+v", r)
	}
	if r.Usage == nil || r.Usage.TotalTokens != 8 {
		t.Errorf("usage = %+v; want total computed as 8", r.Usage)
	}
}

func TestServerAnsweringJSONError200(t *testing.T) {
	srv := bodyServer(t, "application/json", `{"error":{"message":"model is loading","type":"server_error"}}`)
	c := newClient(t, srv.URL+"/v1", func(cfg *provider.Config) { cfg.MaxRetries = -1 })
	r := collect(t, c, userReq("hi"))
	if r.Err == nil || r.Err.Error() != "provider: stream error: model is loading" {
		t.Fatalf("err = %v; want provider: stream error: model is loading", r.Err)
	}
}

type countingTransport struct {
	n    atomic.Int32
	next http.RoundTripper
}

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return c.next.RoundTrip(r)
}

func TestCustomHTTPClient(t *testing.T) {
	srv := bodyServer(t, "text/event-stream", "data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"},\"finish_reason\":\"stop\"}]}\n\n")
	tr := &countingTransport{next: http.DefaultTransport}
	c := newClient(t, srv.URL+"/v1", func(cfg *provider.Config) { cfg.HTTPClient = &http.Client{Transport: tr} })
	if r := collect(t, c, userReq("hi")); r.Err != nil || r.Text != "Hi" {
		t.Fatalf("text %q err %v", r.Text, r.Err)
	}
	if tr.n.Load() != 1 {
		t.Errorf("custom client sent %d requests; want 1", tr.n.Load())
	}
}
