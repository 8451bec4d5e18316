package providertest

import (
	"encoding/json"
	"fmt"
	"time"
	"unicode/utf8"
)

type chunk struct {
	ID      string      `json:"id"`
	Object  string      `json:"object"`
	Created int64       `json:"created"`
	Model   string      `json:"model"`
	Choices []choice    `json:"choices"`
	Usage   *chunkUsage `json:"usage,omitempty"`
}

type choice struct {
	Index        int     `json:"index"`
	Delta        delta   `json:"delta"`
	FinishReason *string `json:"finish_reason"`
}

type delta struct {
	Role             string     `json:"role,omitempty"`
	Content          string     `json:"content,omitempty"`
	ReasoningContent string     `json:"reasoning_content,omitempty"`
	ToolCalls        []toolCall `json:"tool_calls,omitempty"`
}

type toolCall struct {
	Index    int      `json:"index"`
	ID       string   `json:"id,omitempty"`
	Type     string   `json:"type,omitempty"`
	Function function `json:"function"`
}

type function struct {
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments"`
}

type chunkUsage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// created is a fixed timestamp, so scripted streams are byte-for-byte stable.
var created = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).Unix()

// pieces is how many chunks text and arguments are split into, at most.
const pieces = 3

// script renders a turn as SSE data lines.
func script(t Turn, n int, model string) []string {
	id := fmt.Sprintf("chatcmpl-providertest-%d", n)
	var lines []string
	first := true
	add := func(d delta, finish *string) {
		if first {
			d.Role = "assistant"
			first = false
		}
		lines = append(lines, dataLine(chunk{
			ID: id, Object: "chat.completion.chunk", Created: created, Model: model,
			Choices: []choice{{Delta: d, FinishReason: finish}},
		}))
	}
	for _, p := range split(t.Reasoning, pieces) {
		add(delta{ReasoningContent: p}, nil)
	}
	textParts := split(t.Text, pieces)
	if t.TextChunk > 0 {
		textParts = chunks(t.Text, t.TextChunk)
	}
	for _, p := range textParts {
		add(delta{Content: p}, nil)
	}
	for i, c := range t.Calls {
		callID := c.ID
		if callID == "" {
			callID = fmt.Sprintf("call_%d_%d", n, i)
		}
		add(delta{ToolCalls: []toolCall{{Index: i, ID: callID, Type: "function", Function: function{Name: c.Name}}}}, nil)
		var parts []string
		if c.Chunk > 0 {
			parts = chunks(c.Arguments, c.Chunk)
		} else {
			parts = split(c.Arguments, pieces)
		}
		for _, p := range parts {
			add(delta{ToolCalls: []toolCall{{Index: i, Function: function{Arguments: p}}}}, nil)
		}
	}
	finish := t.FinishReason
	if finish == "" {
		finish = "stop"
		if len(t.Calls) > 0 {
			finish = "tool_calls"
		}
	}
	add(delta{}, &finish)
	if u := t.Usage; u != nil {
		lines = append(lines, dataLine(chunk{
			ID: id, Object: "chat.completion.chunk", Created: created, Model: model,
			Choices: []choice{},
			Usage:   &chunkUsage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, TotalTokens: u.TotalTokens},
		}))
	}
	return append(lines, "data: [DONE]")
}

func dataLine(c chunk) string {
	b, err := json.Marshal(c)
	if err != nil {
		panic(err) // plain structs of strings and numbers always marshal
	}
	return "data: " + string(b)
}

// split cuts s into at most n pieces of about the same number of runes.
func split(s string, n int) []string {
	if s == "" {
		return nil
	}
	r := []rune(s)
	if len(r) < n {
		n = len(r)
	}
	out := make([]string, 0, n)
	for i := range n {
		out = append(out, string(r[i*len(r)/n:(i+1)*len(r)/n]))
	}
	return out
}

// chunks cuts s into pieces of at most n bytes, each cut moved back to the
// start of a UTF-8 sequence (a piece gets at least one character).
func chunks(s string, n int) []string {
	var out []string
	for len(s) > 0 {
		end := min(n, len(s))
		for end < len(s) && end > 1 && !utf8.RuneStart(s[end]) {
			end--
		}
		if end < len(s) && !utf8.RuneStart(s[end]) {
			_, size := utf8.DecodeRuneInString(s)
			end = size
		}
		out = append(out, s[:end])
		s = s[end:]
	}
	return out
}
