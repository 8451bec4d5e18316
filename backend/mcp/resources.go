package mcp

import (
	"context"
	"encoding/base64"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
)

// Resources and prompts are read through these methods, never as tools
// (spec M3): a person picks them, the model does not call them.

// Resource is one resource a server lists.
type Resource struct {
	URI         string `json:"uri"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mimeType,omitempty"`
}

// Content is one part of a read resource: Text, or Blob bytes.
type Content struct {
	URI      string `json:"uri"`
	MIMEType string `json:"mimeType,omitempty"`
	Text     string `json:"text,omitempty"`
	Blob     []byte `json:"blob,omitempty"`
}

// Prompt is one prompt a server lists.
type Prompt struct {
	Name        string      `json:"name"`
	Description string      `json:"description,omitempty"`
	Arguments   []PromptArg `json:"arguments,omitempty"`
}

// PromptArg is one argument of a prompt.
type PromptArg struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
}

// Message is one message of a filled prompt: its role and its text (other
// content described).
type Message struct {
	Role string `json:"role"`
	Text string `json:"text"`
}

// maxRead bounds what ReadResource and GetPrompt return in text.
const maxRead = 1 << 20

func (m *Manager) ready(workdir, name string) (*server, *conn, error) {
	s, err := m.find(workdir, name)
	if err != nil {
		return nil, nil, err
	}
	c, err := s.current()
	return s, c, err
}

// Resources lists a server's resources (the server of the project at
// workdir wins over the user's of the same name).
func (m *Manager) Resources(ctx context.Context, workdir, server string) ([]Resource, error) {
	s, c, err := m.ready(workdir, server)
	if err != nil {
		return nil, err
	}
	if c.client.GetServerCapabilities().Resources == nil {
		return []Resource{}, nil
	}
	ctx, cancel := context.WithTimeout(ctx, s.entry.CallTimeout())
	defer cancel()
	res, err := c.client.ListResources(ctx, mcp.ListResourcesRequest{})
	if err != nil {
		return nil, fmt.Errorf("list the resources of %s: %w", server, err)
	}
	out := make([]Resource, 0, len(res.Resources))
	for _, r := range res.Resources {
		out = append(out, Resource{URI: r.URI, Name: r.Name, Description: r.Description, MIMEType: r.MIMEType})
	}
	return out, nil
}

// ReadResource reads one resource.
func (m *Manager) ReadResource(ctx context.Context, workdir, server, uri string) ([]Content, error) {
	s, c, err := m.ready(workdir, server)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, s.entry.CallTimeout())
	defer cancel()
	req := mcp.ReadResourceRequest{}
	req.Params.URI = uri
	res, err := c.client.ReadResource(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("read %s from %s: %w", uri, server, err)
	}
	out := []Content{}
	for _, rc := range res.Contents {
		switch rc := rc.(type) {
		case mcp.TextResourceContents:
			out = append(out, Content{URI: rc.URI, MIMEType: rc.MIMEType, Text: bounded(rc.Text, maxRead)})
		case mcp.BlobResourceContents:
			data, err := base64.StdEncoding.DecodeString(rc.Blob)
			if err != nil {
				return nil, fmt.Errorf("read %s from %s: the blob is not valid base64", uri, server)
			}
			out = append(out, Content{URI: rc.URI, MIMEType: rc.MIMEType, Blob: data})
		}
	}
	return out, nil
}

// Prompts lists a server's prompts.
func (m *Manager) Prompts(ctx context.Context, workdir, server string) ([]Prompt, error) {
	s, c, err := m.ready(workdir, server)
	if err != nil {
		return nil, err
	}
	if c.client.GetServerCapabilities().Prompts == nil {
		return []Prompt{}, nil
	}
	ctx, cancel := context.WithTimeout(ctx, s.entry.CallTimeout())
	defer cancel()
	res, err := c.client.ListPrompts(ctx, mcp.ListPromptsRequest{})
	if err != nil {
		return nil, fmt.Errorf("list the prompts of %s: %w", server, err)
	}
	out := make([]Prompt, 0, len(res.Prompts))
	for _, p := range res.Prompts {
		pr := Prompt{Name: p.Name, Description: p.Description}
		for _, a := range p.Arguments {
			pr.Arguments = append(pr.Arguments, PromptArg{Name: a.Name, Description: a.Description, Required: a.Required})
		}
		out = append(out, pr)
	}
	return out, nil
}

// GetPrompt fills a prompt with arguments.
func (m *Manager) GetPrompt(ctx context.Context, workdir, server, name string, args map[string]string) ([]Message, error) {
	s, c, err := m.ready(workdir, server)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, s.entry.CallTimeout())
	defer cancel()
	req := mcp.GetPromptRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := c.client.GetPrompt(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("get the prompt %s of %s: %w", name, server, err)
	}
	out := make([]Message, 0, len(res.Messages))
	for _, msg := range res.Messages {
		text := convert(&mcp.CallToolResult{Content: []mcp.Content{msg.Content}}).Text
		out = append(out, Message{Role: string(msg.Role), Text: strings.TrimSpace(text)})
	}
	return out, nil
}
