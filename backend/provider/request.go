package provider

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	openai "github.com/sashabaranov/go-openai"

	"foya/backend/llm"
)

// emptyParameters is the schema sent for a tool that declares none: servers
// reject a function without a parameters object.
var emptyParameters = json.RawMessage(`{"type":"object","properties":{}}`)

// body is a request body as the pieces it is written from: the encodings of
// the messages, most of them kept from earlier steps (llm.Encodings), and
// the few bytes around them. Writing it copies each piece once; nothing is
// encoded while it is written.
type body struct {
	pieces [][]byte
	size   int64
}

func (b *body) add(p []byte) {
	b.pieces = append(b.pieces, p)
	b.size += int64(len(p))
}

// reader returns a new reader of the whole body (one per attempt).
func (b *body) reader() io.ReadCloser {
	return &bodyReader{pieces: b.pieces}
}

// bodyReader reads a body's pieces in order without changing them, so that
// every attempt can read them again.
type bodyReader struct {
	pieces [][]byte
	i, off int
}

func (r *bodyReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) && r.i < len(r.pieces) {
		c := copy(p[n:], r.pieces[r.i][r.off:])
		n += c
		r.off += c
		if r.off == len(r.pieces[r.i]) {
			r.i, r.off = r.i+1, 0
		}
	}
	if n == 0 && r.i == len(r.pieces) {
		return 0, io.EOF
	}
	return n, nil
}

// WriteTo writes what is left of the pieces to w, each as it is.
func (r *bodyReader) WriteTo(w io.Writer) (int64, error) {
	var total int64
	for ; r.i < len(r.pieces); r.i, r.off = r.i+1, 0 {
		n, err := w.Write(r.pieces[r.i][r.off:])
		total += int64(n)
		if err != nil {
			r.off += n
			return total, err
		}
	}
	return total, nil
}

func (r *bodyReader) Close() error { return nil }

var (
	comma      = []byte(",")
	bodyStream = []byte(`],"stream":true`)
	bodyEnd    = []byte(`,"stream_options":{"include_usage":true}}`)
)

// requestBody encodes an llm.Request as the chat-completions request
// go-openai's ChatCompletionRequest would give (model, messages, stream,
// tools, stream_options), with each message encoded by go-openai's own
// ChatCompletionMessage, byte for byte but for <, > and &, which are sent
// as they are instead of as HTML-safe escapes (see unescapeHTML). The mapping is a pure function of
// req: the same request gives the same bytes, which prompt caches rely on;
// tools keep the caller's order. A message whose key matches what
// req.Encodings kept for its position is not encoded again (see
// llm.Request.Keys); messages with image parts always are.
func requestBody(model string, req llm.Request) (*body, error) {
	tools, err := encodeTools(req)
	if err != nil {
		return nil, err
	}
	head, err := json.Marshal(model)
	if err != nil {
		return nil, err
	}
	b := &body{}
	if req.Encodings != nil {
		// The previous request is done with its pieces.
		b.pieces = req.Encodings.Pieces[:0]
	}
	if need := 2*len(req.Messages) + 8; cap(b.pieces) < need {
		b.pieces = make([][]byte, 0, need+need/4)
	}
	b.add([]byte(`{"model":`))
	b.add(head)
	b.add([]byte(`,"messages":[`))
	n := 0
	addMessage := func(enc []byte) {
		if n > 0 {
			b.add(comma)
		}
		b.add(enc)
		n++
	}
	var pending []openai.ChatMessagePart // images of the current run of tool messages
	flush := func() error {
		if len(pending) == 0 {
			return nil
		}
		enc, err := json.Marshal(openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, MultiContent: pending})
		if err != nil {
			return fmt.Errorf("provider: encode images: %w", err)
		}
		pending = nil
		addMessage(enc)
		return nil
	}
	cache := req.Encodings
	if len(req.Keys) != len(req.Messages) {
		cache = nil
	}
	for i, m := range req.Messages {
		if m.Role != llm.RoleTool {
			if err := flush(); err != nil {
				return nil, err
			}
		}
		var key uint64
		if cache != nil && len(m.Parts) == 0 {
			key = req.Keys[i]
			if enc, ok := cache.Lookup(i, key); ok {
				addMessage(enc)
				continue
			}
		}
		msg, images, err := chatMessage(i, m, req.Images)
		if err != nil {
			return nil, err
		}
		enc, err := json.Marshal(msg)
		if err != nil {
			return nil, fmt.Errorf("provider: message %d: %w", i, err)
		}
		enc = unescapeHTML(enc)
		if cache != nil {
			cache.Keep(i, key, enc)
		}
		addMessage(enc)
		pending = append(pending, images...)
	}
	if err := flush(); err != nil {
		return nil, err
	}
	b.add(bodyStream)
	if tools != nil {
		b.add([]byte(`,"tools":`))
		b.add(tools)
	}
	b.add(bodyEnd)
	if req.Encodings != nil {
		req.Encodings.Pieces = b.pieces
	}
	return b, nil
}

// encodeTools returns the encoded tools of req, nil when it has none: kept
// from the previous step when they are the same (req.Encodings).
func encodeTools(req llm.Request) ([]byte, error) {
	if len(req.Tools) == 0 {
		return nil, nil
	}
	if req.Encodings != nil {
		if enc, ok := req.Encodings.LookupTools(req.Tools); ok {
			return enc, nil
		}
	}
	tools, err := chatTools(req.Tools)
	if err != nil {
		return nil, err
	}
	enc, err := json.Marshal(tools)
	if err != nil {
		return nil, fmt.Errorf("provider: encode tools: %w", err)
	}
	enc = unescapeHTML(enc)
	if req.Encodings != nil {
		req.Encodings.KeepTools(req.Tools, enc)
	}
	return enc, nil
}

// chatTools maps the visible tools.
func chatTools(ts []llm.ToolSchema) ([]openai.Tool, error) {
	if len(ts) == 0 {
		return nil, nil
	}
	out := make([]openai.Tool, 0, len(ts))
	for i, t := range ts {
		if t.Name == "" {
			return nil, fmt.Errorf("provider: tool %d has no name", i)
		}
		params := t.Parameters
		if len(params) == 0 {
			params = emptyParameters
		} else if !json.Valid(params) {
			return nil, fmt.Errorf("provider: tool %q: parameters are not valid JSON", t.Name)
		}
		out = append(out, openai.Tool{
			Type: openai.ToolTypeFunction,
			Function: &openai.FunctionDefinition{
				Name:        t.Name,
				Description: t.Description,
				Parameters:  params,
			},
		})
	}
	return out, nil
}

// chatMessage maps message i of the history. Tool messages carry text only;
// the images of a tool message are returned to follow the run of tool
// messages it belongs to in one user message (OpenAI's tool role takes no
// images).
func chatMessage(i int, m llm.Message, imgs map[string][]byte) (openai.ChatCompletionMessage, []openai.ChatMessagePart, error) {
	switch m.Role {
	case llm.RoleSystem:
		return openai.ChatCompletionMessage{Role: openai.ChatMessageRoleSystem, Content: m.Content}, nil, nil
	case llm.RoleUser:
		msg := openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser}
		images := imageParts(imgs, m.Parts)
		if len(images) == 0 {
			msg.Content = m.Content
		} else {
			if m.Content != "" {
				msg.MultiContent = append(msg.MultiContent, textPart(m.Content))
			}
			msg.MultiContent = append(msg.MultiContent, images...)
		}
		return msg, nil, nil
	case llm.RoleAssistant:
		msg := openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: m.Content}
		for j, tc := range m.ToolCalls {
			if tc.ID == "" || tc.Name == "" {
				return msg, nil, fmt.Errorf("provider: message %d: tool call %d needs an id and a name", i, j)
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
		return msg, nil, nil
	case llm.RoleTool:
		if m.ToolCallID == "" {
			return openai.ChatCompletionMessage{}, nil, fmt.Errorf("provider: message %d: tool message has no tool call id", i)
		}
		images := imageParts(imgs, m.Parts)
		content := m.Content
		if content == "" {
			content = "(no output)"
			if len(images) > 0 {
				content = "(images follow in the next message)"
			}
		}
		msg := openai.ChatCompletionMessage{Role: openai.ChatMessageRoleTool, Content: content, ToolCallID: m.ToolCallID}
		if len(images) == 0 {
			return msg, nil, nil
		}
		label := "Images returned by tool call " + m.ToolCallID
		if m.ToolName != "" {
			label += " (" + m.ToolName + ")"
		}
		return msg, append([]openai.ChatMessagePart{textPart(label + ":")}, images...), nil
	}
	return openai.ChatCompletionMessage{}, nil, fmt.Errorf("provider: message %d: unknown role %q", i, m.Role)
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

// unescapeHTML turns the escapes encoding/json writes for <, > and &
// (\u003c, \u003e, \u0026: safety for JSON put in HTML, which a request to a
// model does not need) back into the characters, in JSON that Go encoded.
// Each costs six bytes for one, sent again at every later step of a run,
// and code is full of them (&&, ->, <div>). The document means the same:
// only escapes that begin a string's escape sequence are touched, so a
// literal backslash followed by "u003c" (encoded \\u003c) stays as it is.
func unescapeHTML(b []byte) []byte {
	if !bytes.Contains(b, []byte(`\u00`)) {
		return b
	}
	out := make([]byte, 0, len(b))
	for j := 0; j < len(b); {
		k := bytes.IndexByte(b[j:], '\\')
		if k < 0 || j+k+1 >= len(b) {
			out = append(out, b[j:]...)
			break
		}
		k += j
		out = append(out, b[j:k]...)
		if b[k+1] == 'u' && k+6 <= len(b) {
			switch string(b[k+2 : k+6]) {
			case "003c":
				out, j = append(out, '<'), k+6
				continue
			case "003e":
				out, j = append(out, '>'), k+6
				continue
			case "0026":
				out, j = append(out, '&'), k+6
				continue
			}
		}
		out, j = append(out, b[k], b[k+1]), k+2
	}
	return out
}
