package providertest_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"

	"foya/backend/llm"
	"foya/backend/provider/providertest"
)

const chatBody = `{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`

func post(t *testing.T, ctx context.Context, url, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url+"/chat/completions", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST: %v", err)
	}
	return resp
}

// lines reads a response body as lines, with the error that ended it.
func lines(t *testing.T, resp *http.Response) ([]string, error) {
	t.Helper()
	defer resp.Body.Close()
	var out []string
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	return out, sc.Err()
}

type chunk struct {
	Model   string `json:"model"`
	Choices []struct {
		Delta struct {
			Role             string `json:"role"`
			Content          string `json:"content"`
			ReasoningContent string `json:"reasoning_content"`
			ToolCalls        []struct {
				Index    int    `json:"index"`
				ID       string `json:"id"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		TotalTokens int `json:"total_tokens"`
	} `json:"usage"`
}

// dataChunks decodes the data lines of a stream; done reports [DONE].
func dataChunks(t *testing.T, ls []string) (chunks []chunk, done bool) {
	t.Helper()
	for _, l := range ls {
		data, ok := strings.CutPrefix(l, "data: ")
		if !ok {
			if l != "" {
				t.Errorf("unexpected line %q", l)
			}
			continue
		}
		if data == "[DONE]" {
			done = true
			continue
		}
		var c chunk
		if err := json.Unmarshal([]byte(data), &c); err != nil {
			t.Fatalf("data line %q: %v", data, err)
		}
		chunks = append(chunks, c)
	}
	return chunks, done
}

func TestScriptedTurn(t *testing.T) {
	srv := providertest.New(t, providertest.Turn{
		Reasoning: "think",
		Text:      "Hello ✓",
		Calls: []providertest.Call{
			{Name: "read", Arguments: `{"path":"a"}`},
			{ID: "mine", Name: "list", Arguments: `{}`},
		},
		Usage: &llm.Usage{PromptTokens: 1, CompletionTokens: 2, TotalTokens: 3},
	})
	resp := post(t, t.Context(), srv.URL, chatBody)
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("Content-Type = %q", ct)
	}
	ls, err := lines(t, resp)
	if err != nil {
		t.Fatal(err)
	}
	chunks, done := dataChunks(t, ls)
	if !done {
		t.Error("no [DONE]")
	}
	var reasoning, text []string
	args := map[int]string{}
	ids := map[int]string{}
	names := map[int]string{}
	var finish string
	for i, c := range chunks {
		if c.Model != "m" {
			t.Errorf("chunk %d model %q; want the request's", i, c.Model)
		}
		if (c.Usage != nil) != (i == len(chunks)-1) {
			t.Errorf("chunk %d usage %v; want usage on the last chunk only", i, c.Usage)
		}
		if len(c.Choices) == 0 {
			continue
		}
		d := c.Choices[0].Delta
		if (d.Role == "assistant") != (i == 0) {
			t.Errorf("chunk %d role %q; want the role on the first chunk only", i, d.Role)
		}
		if d.ReasoningContent != "" {
			reasoning = append(reasoning, d.ReasoningContent)
		}
		if d.Content != "" {
			text = append(text, d.Content)
		}
		for _, tc := range d.ToolCalls {
			args[tc.Index] += tc.Function.Arguments
			if tc.ID != "" {
				ids[tc.Index] = tc.ID
			}
			if tc.Function.Name != "" {
				names[tc.Index] = tc.Function.Name
			}
		}
		if c.Choices[0].FinishReason != nil {
			finish = *c.Choices[0].FinishReason
		}
	}
	if strings.Join(reasoning, "") != "think" || len(reasoning) != 3 {
		t.Errorf("reasoning pieces %q; want 3 making think", reasoning)
	}
	if strings.Join(text, "") != "Hello ✓" || len(text) != 3 {
		t.Errorf("text pieces %q; want 3 making Hello ✓", text)
	}
	wantArgs := map[int]string{0: `{"path":"a"}`, 1: `{}`}
	wantIDs := map[int]string{0: "call_1_0", 1: "mine"}
	wantNames := map[int]string{0: "read", 1: "list"}
	if !reflect.DeepEqual(args, wantArgs) || !reflect.DeepEqual(ids, wantIDs) || !reflect.DeepEqual(names, wantNames) {
		t.Errorf("calls: args %v ids %v names %v", args, ids, names)
	}
	if finish != "tool_calls" {
		t.Errorf("finish = %q; want tool_calls", finish)
	}
	if chunks[len(chunks)-1].Usage.TotalTokens != 3 {
		t.Errorf("usage = %+v", chunks[len(chunks)-1].Usage)
	}
}

func TestFinishReason(t *testing.T) {
	tests := []struct {
		turn providertest.Turn
		want string
	}{
		{providertest.Say("hi"), "stop"},
		{providertest.Turn{}, "stop"},
		{providertest.Calls(providertest.Call{Name: "x", Arguments: "{}"}), "tool_calls"},
		{providertest.Turn{Text: "cut", FinishReason: "length"}, "length"},
	}
	for _, tt := range tests {
		srv := providertest.New(t, tt.turn)
		ls, err := lines(t, post(t, t.Context(), srv.URL, chatBody))
		if err != nil {
			t.Fatal(err)
		}
		chunks, _ := dataChunks(t, ls)
		last := chunks[len(chunks)-1].Choices[0].FinishReason
		if last == nil || *last != tt.want {
			t.Errorf("turn %+v: finish %v; want %q", tt.turn, last, tt.want)
		}
	}
}

func TestStatusTurn(t *testing.T) {
	srv := providertest.New(t,
		providertest.Turn{Status: 429, ErrorMessage: "slow down", Header: map[string]string{"Retry-After": "2"}},
		providertest.Turn{Status: 503})
	for i, want := range []struct {
		status int
		msg    string
		typ    string
	}{{429, "slow down", "invalid_request_error"}, {503, "providertest: scripted 503 Service Unavailable", "server_error"}} {
		resp := post(t, t.Context(), srv.URL, chatBody)
		var body struct {
			Error struct {
				Message string `json:"message"`
				Type    string `json:"type"`
			} `json:"error"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want.status || body.Error.Message != want.msg || body.Error.Type != want.typ {
			t.Errorf("turn %d: %d %+v; want %d %q %q", i, resp.StatusCode, body.Error, want.status, want.msg, want.typ)
		}
		if i == 0 && resp.Header.Get("Retry-After") != "2" {
			t.Errorf("Retry-After = %q; want the scripted header", resp.Header.Get("Retry-After"))
		}
	}
}

func TestScriptExhausted(t *testing.T) {
	srv := providertest.New(t)
	resp := post(t, t.Context(), srv.URL, chatBody)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 500 || !strings.Contains(string(b), `"message":"providertest: script exhausted"`) {
		t.Errorf("%d %s; want 500 with the exhausted message", resp.StatusCode, b)
	}
	srv.Append(providertest.Say("more"))
	if srv.Pending() != 1 {
		t.Errorf("Pending = %d after Append; want 1", srv.Pending())
	}
	ls, _ := lines(t, post(t, t.Context(), srv.URL, chatBody))
	if chunks, done := dataChunks(t, ls); !done || chunks[0].Choices[0].Delta.Content == "" {
		t.Errorf("appended turn not served: %q", ls)
	}
}

func TestBadRequests(t *testing.T) {
	srv := providertest.New(t, providertest.Say("kept"))
	resp, err := http.Get(srv.URL + "/models")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 404 || !strings.Contains(string(b), "no route for GET /v1/models") {
		t.Errorf("GET /v1/models: %d %s", resp.StatusCode, b)
	}
	resp = post(t, t.Context(), srv.URL, `{"model": `)
	b, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 400 || !strings.Contains(string(b), "providertest: request body") {
		t.Errorf("broken JSON: %d %s", resp.StatusCode, b)
	}
	resp = post(t, t.Context(), srv.URL, `{"messages":[{"role":"user","content":42}]}`)
	resp.Body.Close()
	if resp.StatusCode != 400 {
		t.Errorf("content of the wrong type: %d; want 400", resp.StatusCode)
	}
	if srv.Pending() != 1 {
		t.Errorf("a bad request used up a turn: Pending = %d", srv.Pending())
	}
	if reqs := srv.Requests(); len(reqs) != 2 || string(reqs[0].Raw) != `{"model": ` {
		t.Errorf("bad requests not recorded as sent: %+v", reqs)
	}
}

func TestRequestsDecoded(t *testing.T) {
	srv := providertest.New(t, providertest.Say("ok"))
	body := `{"model":"m1","stream":true,"messages":[
		{"role":"system","content":"sys"},
		{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"read","arguments":"{}"}}]},
		{"role":"tool","tool_call_id":"c1","content":"file"},
		{"role":"user","content":[{"type":"text","text":"look"},{"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA"}},{"type":"text","text":"twice"}]}
	],"tools":[{"type":"function","function":{"name":"read"}},{"type":"function","function":{"name":"list"}}]}`
	resp := post(t, t.Context(), srv.URL, body)
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	got := reqs[0]
	want := []providertest.Message{
		{Role: "system", Content: "sys"},
		{Role: "assistant", ToolCalls: []providertest.Call{{ID: "c1", Name: "read", Arguments: "{}"}}},
		{Role: "tool", ToolCallID: "c1", Content: "file"},
		{Role: "user", Content: "look\ntwice", Images: []string{"data:image/png;base64,AAAA"}},
	}
	if got.Model != "m1" || !got.Stream || !reflect.DeepEqual(got.Messages, want) || !reflect.DeepEqual(got.Tools, []string{"read", "list"}) {
		t.Errorf("decoded %+v", got)
	}
	if string(got.Raw) != body || got.Header.Get("Content-Type") != "application/json" {
		t.Errorf("raw body or header not kept")
	}
}

func TestRawLines(t *testing.T) {
	srv := providertest.New(t, providertest.Turn{Raw: []string{": keep-alive", "event: message", `data: {"x":1}`, "data: [DONE]"}})
	resp := post(t, t.Context(), srv.URL, chatBody)
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	want := ": keep-alive\nevent: message\ndata: {\"x\":1}\n\ndata: [DONE]\n\n"
	if string(b) != want {
		t.Errorf("body %q; want %q", b, want)
	}
}

func TestCutAfter(t *testing.T) {
	tests := []struct {
		name    string
		abort   bool
		wantErr bool
	}{
		{"clean end", false, false},
		{"dropped connection", true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := providertest.New(t, providertest.Turn{Text: "one two three", CutAfter: 2, Abort: tt.abort})
			ls, err := lines(t, post(t, t.Context(), srv.URL, chatBody))
			if (err != nil) != tt.wantErr {
				t.Errorf("read error %v; want error %v", err, tt.wantErr)
			}
			chunks, done := dataChunks(t, ls)
			if len(chunks) != 2 || done {
				t.Errorf("%d data lines, done %v; want 2 and no [DONE]", len(chunks), done)
			}
		})
	}
}

func TestHoldAndDelay(t *testing.T) {
	hold := make(chan struct{})
	srv := providertest.New(t, providertest.Turn{Text: "abc", Hold: hold, Delay: 1})
	resp := post(t, t.Context(), srv.URL, chatBody)
	defer resp.Body.Close()
	r := bufio.NewReader(resp.Body)
	first, err := r.ReadString('\n')
	if err != nil || !strings.HasPrefix(first, "data: ") {
		t.Fatalf("first line %q, %v", first, err)
	}
	close(hold)
	rest, err := io.ReadAll(r)
	if err != nil || !strings.HasSuffix(string(rest), "data: [DONE]\n\n") {
		t.Errorf("rest %q, %v; want the stream to finish once released", rest, err)
	}
}

func TestHeldStreamEndsWhenClientLeavesOrServerCloses(t *testing.T) {
	hold := make(chan struct{}) // never closed
	srv, err := providertest.Start(
		providertest.Turn{Text: "abc", Hold: hold},
		providertest.Turn{Text: "abc", Delay: 1 << 62},
		providertest.Turn{Text: "abc", Hold: hold},
	)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 { // the client goes away while held, then during a delay
		ctx, cancel := context.WithCancel(t.Context())
		resp := post(t, ctx, srv.URL, chatBody)
		r := bufio.NewReader(resp.Body)
		if _, err := r.ReadString('\n'); err != nil {
			t.Fatal(err)
		}
		cancel()
		resp.Body.Close()
	}
	// The last one is still held when the server closes: Close must not hang.
	resp := post(t, t.Context(), srv.URL, chatBody)
	defer resp.Body.Close()
	r := bufio.NewReader(resp.Body)
	if _, err := r.ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	srv.Close()
	srv.Close() // twice is fine
	if _, err := io.ReadAll(r); err == nil {
		t.Log("held stream ended cleanly at Close")
	}
	if _, err := http.Post(srv.URL+"/chat/completions", "application/json", strings.NewReader(chatBody)); err == nil {
		t.Error("server still answers after Close")
	}
}

func TestConcurrentRequests(t *testing.T) {
	const n = 20
	srv := providertest.New(t)
	for i := range n {
		srv.Append(providertest.Say(fmt.Sprintf("answer %d", i)))
	}
	var wg sync.WaitGroup
	answers := make(chan string, n)
	for range n {
		wg.Go(func() {
			resp, err := http.Post(srv.URL+"/chat/completions", "application/json", strings.NewReader(chatBody))
			if err != nil {
				t.Error(err)
				return
			}
			ls, err := lines(t, resp)
			if err != nil {
				t.Error(err)
				return
			}
			chunks, _ := dataChunks(t, ls)
			var text string
			for _, c := range chunks {
				text += c.Choices[0].Delta.Content
			}
			answers <- text
			_ = srv.Requests()
			_ = srv.Pending()
		})
	}
	wg.Wait()
	close(answers)
	seen := map[string]bool{}
	for a := range answers {
		if seen[a] {
			t.Errorf("answer %q served twice", a)
		}
		seen[a] = true
	}
	if len(seen) != n || len(srv.Requests()) != n || srv.Pending() != 0 {
		t.Errorf("%d distinct answers, %d requests, %d pending; want %d, %d, 0", len(seen), len(srv.Requests()), srv.Pending(), n, n)
	}
}

func TestStartWithoutTest(t *testing.T) {
	srv, err := providertest.Start(providertest.Say("hi"))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	if !strings.HasSuffix(srv.URL, "/v1") || !strings.HasPrefix(srv.URL, "http://127.0.0.1:") {
		t.Errorf("URL = %q; want a loopback base URL ending in /v1", srv.URL)
	}
	ls, err := lines(t, post(t, t.Context(), srv.URL, chatBody))
	if _, done := dataChunks(t, ls); err != nil || !done {
		t.Errorf("stream %q, %v", ls, err)
	}
	if errors.Is(err, io.EOF) {
		t.Error("unexpected EOF error")
	}
}

func TestModelsAndRequiredKey(t *testing.T) {
	srv := providertest.New(t, providertest.Say("with the key"))
	srv.SetModels("a", "b")
	srv.RequireKey("sk-right-key")
	get := func(key string) (int, string) {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/models", nil)
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := get("sk-right-key"); code != 200 || !strings.Contains(body, `"id":"a"`) || !strings.Contains(body, `"id":"b"`) {
		t.Errorf("GET /models with the key: %d %s", code, body)
	}
	if code, body := get("sk-wrong"); code != 401 || !strings.Contains(body, "Incorrect API key provided: sk-wrong") {
		t.Errorf("GET /models with a wrong key: %d %s", code, body)
	}
	if code, _ := get(""); code != 401 {
		t.Errorf("GET /models without a key: %d", code)
	}
	resp := post(t, t.Context(), srv.URL, `{"model":"a","stream":true,"messages":[]}`)
	resp.Body.Close()
	if resp.StatusCode != 401 || srv.Pending() != 1 {
		t.Errorf("chat without the key: %d, %d turns pending; want 401 and the turn kept", resp.StatusCode, srv.Pending())
	}
}

// TestRouteByConversation scripts two conversations by their first user
// message, served whatever order their requests come in, beside the main
// script; a route whose turns are all served answers 500 (sub-agents'
// requests interleave).
func TestRouteByConversation(t *testing.T) {
	srv := providertest.New(t, providertest.Say("main"))
	srv.Route(providertest.FirstUser("alpha"), providertest.Say("from alpha"))
	srv.Route(providertest.FirstUser("beta"), providertest.Say("from beta 1"), providertest.Say("from beta 2"))
	body := func(user string) string {
		return `{"model":"m","stream":true,"messages":[{"role":"system","content":"alpha beta"},{"role":"user","content":"` + user + `"}]}`
	}
	text := func(b string) string {
		ls, _ := lines(t, post(t, t.Context(), srv.URL, b))
		chunks, _ := dataChunks(t, ls)
		var s strings.Builder
		for _, c := range chunks {
			if len(c.Choices) > 0 {
				s.WriteString(c.Choices[0].Delta.Content)
			}
		}
		return s.String()
	}
	for _, c := range []struct{ user, want string }{
		{"beta job", "from beta 1"}, {"alpha job", "from alpha"}, {"other", "main"}, {"beta again", "from beta 2"},
	} {
		if got := text(body(c.user)); got != c.want {
			t.Errorf("a request saying %q got %q; want %q", c.user, got, c.want)
		}
	}
	resp := post(t, t.Context(), srv.URL, body("alpha once more"))
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 500 || !strings.Contains(string(b), "route exhausted") {
		t.Errorf("%d %s; want 500 route exhausted", resp.StatusCode, b)
	}
}

// A title request (llm.TitlePrompt first) is answered from Titles, then
// with an empty answer, takes no turn of the script and is listed by
// TitleRequests only; a request that merely mentions the prompt later is
// the script's.
func TestTitleRequestsApart(t *testing.T) {
	srv := providertest.New(t, providertest.Say("scripted"))
	srv.Titles(providertest.Say("A title"))
	prompt, _ := json.Marshal(llm.TitlePrompt)
	title := `{"model":"m","stream":true,"messages":[{"role":"system","content":` + string(prompt) + `},{"role":"user","content":"fix it"}]}`
	text := func(resp *http.Response) string {
		ls, err := lines(t, resp)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for _, l := range ls {
			var c chunk
			if d, ok := strings.CutPrefix(l, "data: "); ok && json.Unmarshal([]byte(d), &c) == nil && len(c.Choices) > 0 {
				b.WriteString(c.Choices[0].Delta.Content)
			}
		}
		return b.String()
	}
	if got := text(post(t, context.Background(), srv.URL, title)); got != "A title" {
		t.Errorf("first title answer = %q; want the scripted one", got)
	}
	if got := text(post(t, context.Background(), srv.URL, title)); got != "" {
		t.Errorf("a title request past Titles answered %q; want nothing", got)
	}
	late := `{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"},{"role":"system","content":` + string(prompt) + `}]}`
	if got := text(post(t, context.Background(), srv.URL, late)); got != "scripted" {
		t.Errorf("a conversation request answered %q; want the script's turn", got)
	}
	if n, m, p := len(srv.TitleRequests()), len(srv.Requests()), srv.Pending(); n != 2 || m != 1 || p != 0 {
		t.Errorf("title requests %d, requests %d, pending %d; want 2, 1, 0", n, m, p)
	}
	if !providertest.IsTitle(srv.TitleRequests()[0]) || providertest.IsTitle(srv.Requests()[0]) {
		t.Error("IsTitle does not tell the title request from the conversation's")
	}
}
