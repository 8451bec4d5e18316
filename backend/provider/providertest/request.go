package providertest

import (
	"encoding/json"
	"fmt"
	"strings"
)

type wireRequest struct {
	Model    string        `json:"model"`
	Stream   bool          `json:"stream"`
	Messages []wireMessage `json:"messages"`
	Tools    []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
}

type wireMessage struct {
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	ToolCalls []struct {
		ID       string `json:"id"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
	ToolCallID string `json:"tool_call_id"`
}

type wirePart struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	ImageURL *struct {
		URL string `json:"url"`
	} `json:"image_url"`
}

// decodeRequest decodes a chat-completions body. The returned Request is
// filled as far as decoding went, even with an error.
func decodeRequest(body []byte) (Request, error) {
	var w wireRequest
	if err := json.Unmarshal(body, &w); err != nil {
		return Request{}, fmt.Errorf("not a JSON chat-completions request: %w", err)
	}
	req := Request{Model: w.Model, Stream: w.Stream}
	for _, t := range w.Tools {
		req.Tools = append(req.Tools, t.Function.Name)
	}
	for i, m := range w.Messages {
		msg := Message{Role: m.Role, ToolCallID: m.ToolCallID}
		for _, tc := range m.ToolCalls {
			msg.ToolCalls = append(msg.ToolCalls, Call{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
		}
		content := strings.TrimSpace(string(m.Content))
		switch {
		case content == "" || content == "null":
		case content[0] == '"':
			if err := json.Unmarshal(m.Content, &msg.Content); err != nil {
				return req, fmt.Errorf("message %d: content: %w", i, err)
			}
		case content[0] == '[':
			var parts []wirePart
			if err := json.Unmarshal(m.Content, &parts); err != nil {
				return req, fmt.Errorf("message %d: content parts: %w", i, err)
			}
			var texts []string
			for _, p := range parts {
				switch {
				case p.Type == "image_url" && p.ImageURL != nil:
					msg.Images = append(msg.Images, p.ImageURL.URL)
				case p.Type == "text":
					texts = append(texts, p.Text)
				}
			}
			msg.Content = strings.Join(texts, "\n")
		default:
			return req, fmt.Errorf("message %d: content is neither a string nor a list of parts", i)
		}
		req.Messages = append(req.Messages, msg)
	}
	return req, nil
}
