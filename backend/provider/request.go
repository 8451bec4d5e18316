package provider

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"

	openai "github.com/sashabaranov/go-openai"

	"foya/backend/llm"
)

// emptyParameters is the schema sent for a tool that declares none: servers
// reject a function without a parameters object.
var emptyParameters = json.RawMessage(`{"type":"object","properties":{}}`)

// chatRequest maps an llm.Request onto go-openai's request type. The mapping
// is a pure function of req: the same request gives the same bytes, which
// prompt caches rely on; tools keep the caller's order.
func chatRequest(model string, req llm.Request) (openai.ChatCompletionRequest, error) {
	msgs, err := chatMessages(req)
	if err != nil {
		return openai.ChatCompletionRequest{}, err
	}
	out := openai.ChatCompletionRequest{
		Model:         model,
		Messages:      msgs,
		Stream:        true,
		StreamOptions: &openai.StreamOptions{IncludeUsage: true},
	}
	if len(req.Tools) > 0 {
		out.Tools = make([]openai.Tool, 0, len(req.Tools))
		for i, t := range req.Tools {
			if t.Name == "" {
				return openai.ChatCompletionRequest{}, fmt.Errorf("provider: tool %d has no name", i)
			}
			params := t.Parameters
			if len(params) == 0 {
				params = emptyParameters
			} else if !json.Valid(params) {
				return openai.ChatCompletionRequest{}, fmt.Errorf("provider: tool %q: parameters are not valid JSON", t.Name)
			}
			out.Tools = append(out.Tools, openai.Tool{
				Type: openai.ToolTypeFunction,
				Function: &openai.FunctionDefinition{
					Name:        t.Name,
					Description: t.Description,
					Parameters:  params,
				},
			})
		}
	}
	return out, nil
}

// chatMessages maps the history. Tool messages carry text only; the images of
// a run of tool messages follow it in one user message (OpenAI's tool role
// takes no images).
func chatMessages(req llm.Request) ([]openai.ChatCompletionMessage, error) {
	out := make([]openai.ChatCompletionMessage, 0, len(req.Messages)+1)
	var pending []openai.ChatMessagePart // images of the current run of tool messages
	flush := func() {
		if len(pending) > 0 {
			out = append(out, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, MultiContent: pending})
			pending = nil
		}
	}
	for i, m := range req.Messages {
		if m.Role != llm.RoleTool {
			flush()
		}
		switch m.Role {
		case llm.RoleSystem:
			out = append(out, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleSystem, Content: m.Content})
		case llm.RoleUser:
			msg := openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser}
			images := imageParts(req.Images, m.Parts)
			if len(images) == 0 {
				msg.Content = m.Content
			} else {
				if m.Content != "" {
					msg.MultiContent = append(msg.MultiContent, textPart(m.Content))
				}
				msg.MultiContent = append(msg.MultiContent, images...)
			}
			out = append(out, msg)
		case llm.RoleAssistant:
			msg := openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: m.Content}
			for j, tc := range m.ToolCalls {
				if tc.ID == "" || tc.Name == "" {
					return nil, fmt.Errorf("provider: message %d: tool call %d needs an id and a name", i, j)
				}
				args := tc.Arguments
				if args == "" {
					args = "{}"
				}
				msg.ToolCalls = append(msg.ToolCalls, openai.ToolCall{
					ID:       tc.ID,
					Type:     openai.ToolTypeFunction,
					Function: openai.FunctionCall{Name: tc.Name, Arguments: args},
				})
			}
			out = append(out, msg)
		case llm.RoleTool:
			if m.ToolCallID == "" {
				return nil, fmt.Errorf("provider: message %d: tool message has no tool call id", i)
			}
			images := imageParts(req.Images, m.Parts)
			content := m.Content
			if content == "" {
				content = "(no output)"
				if len(images) > 0 {
					content = "(images follow in the next message)"
				}
			}
			out = append(out, openai.ChatCompletionMessage{
				Role:       openai.ChatMessageRoleTool,
				Content:    content,
				ToolCallID: m.ToolCallID,
			})
			if len(images) > 0 {
				label := "Images returned by tool call " + m.ToolCallID
				if m.ToolName != "" {
					label += " (" + m.ToolName + ")"
				}
				pending = append(pending, textPart(label+":"))
				pending = append(pending, images...)
			}
		default:
			return nil, fmt.Errorf("provider: message %d: unknown role %q", i, m.Role)
		}
	}
	flush()
	return out, nil
}

func textPart(s string) openai.ChatMessagePart {
	return openai.ChatMessagePart{Type: openai.ChatMessagePartTypeText, Text: s}
}

// imageParts turns the image parts of a message into image_url parts with data
// URIs. An image whose bytes are missing becomes a text note, so the model
// learns that something was there.
func imageParts(images map[string][]byte, parts []llm.Part) []openai.ChatMessagePart {
	var out []openai.ChatMessagePart
	for _, p := range parts {
		if p.Type != llm.PartImage {
			continue
		}
		data, ok := images[p.ArtifactID]
		if !ok || len(data) == 0 {
			out = append(out, textPart(fmt.Sprintf("[image %s is not available]", p.ArtifactID)))
			continue
		}
		mime := p.MIME
		if mime == "" {
			mime = http.DetectContentType(data)
		}
		out = append(out, openai.ChatMessagePart{
			Type:     openai.ChatMessagePartTypeImageURL,
			ImageURL: &openai.ChatMessageImageURL{URL: "data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(data)},
		})
	}
	return out
}
