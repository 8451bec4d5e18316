package provider

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// ErrStreamCut is wrapped by the error of a stream that ended before it was
// complete: no finish_reason and no [DONE] arrived before the body ended.
var ErrStreamCut = errors.New("stream ended before completion")

// Error is an error answered by the server: an HTTP error status, or an error
// object sent inside the stream. Status is the HTTP status (0 for an in-stream
// error that named none). Retryable reports whether trying the same request
// again may succeed (429 and 5xx).
type Error struct {
	Status    int
	Code      string
	Type      string
	Message   string
	Retryable bool
}

// Error names the status and the server's message, for example
// "provider: 401 Unauthorized: invalid api key".
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("provider: ")
	switch {
	case e.Status > 0:
		b.WriteString(strconv.Itoa(e.Status))
		if t := http.StatusText(e.Status); t != "" {
			b.WriteString(" ")
			b.WriteString(t)
		}
	default:
		b.WriteString("stream error")
	}
	msg := e.Message
	if msg == "" {
		msg = e.Type
	}
	if msg == "" {
		msg = e.Code
	}
	if msg != "" {
		b.WriteString(": ")
		b.WriteString(msg)
	}
	return b.String()
}

// retryableStatus reports whether an HTTP status is worth a retry.
func retryableStatus(status int) bool {
	return status == http.StatusTooManyRequests || status == http.StatusRequestTimeout || status >= 500
}

// maxErrorText bounds the part of a non-JSON error body kept in a message.
const maxErrorText = 300

// httpError converts the error go-openai returns for a failure status into an
// *Error. It returns nil when err is not such an error.
func httpError(err error) *Error {
	var apiErr *openai.APIError
	var reqErr *openai.RequestError
	switch {
	case errors.As(err, &reqErr):
		e := &Error{Status: reqErr.HTTPStatusCode}
		if errors.As(reqErr.Err, &apiErr) {
			e.Message, e.Type, e.Code = apiErr.Message, apiErr.Type, codeString(apiErr.Code)
		} else {
			e.Message = bodyText(reqErr.Body)
			if e.Status == http.StatusNotFound {
				e.Message = joinText(e.Message, "check the base URL (it usually ends in /v1) and the model name")
			}
		}
		if e.Message == "" {
			e.Message = "empty response body"
		}
		e.Retryable = retryableStatus(e.Status)
		return e
	case errors.As(err, &apiErr) && apiErr.HTTPStatusCode > 0:
		e := &Error{
			Status:  apiErr.HTTPStatusCode,
			Code:    codeString(apiErr.Code),
			Type:    apiErr.Type,
			Message: apiErr.Message,
		}
		e.Retryable = retryableStatus(e.Status)
		return e
	}
	return nil
}

func joinText(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// bodyText makes a short one-line message of a non-JSON error body.
func bodyText(body []byte) string {
	s := strings.Join(strings.Fields(string(body)), " ")
	if len(s) > maxErrorText {
		cut := maxErrorText
		for cut > 0 && !isRuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// codeString renders an error code that servers send as a string or a number.
func codeString(code any) string {
	switch v := code.(type) {
	case nil:
		return ""
	case string:
		return v
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case int:
		return strconv.Itoa(v)
	default:
		return fmt.Sprint(v)
	}
}

// wireError is an error object as servers send it inside a stream. Some send
// a bare string instead of an object.
type wireError struct {
	Message json.RawMessage `json:"message"`
	Type    string          `json:"type"`
	Code    json.RawMessage `json:"code"`
	Status  json.RawMessage `json:"status"`
}

// streamError converts the "error" member of a stream chunk into an *Error.
func streamError(raw json.RawMessage) *Error {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return &Error{Message: s}
	}
	var w wireError
	if err := json.Unmarshal(raw, &w); err != nil {
		return &Error{Message: bodyText(raw)}
	}
	e := &Error{Type: w.Type}
	if json.Unmarshal(w.Message, &e.Message) != nil {
		e.Message = bodyText(w.Message)
	}
	var n int
	switch {
	case json.Unmarshal(w.Code, &n) == nil:
		e.Code = strconv.Itoa(n)
		if n >= 400 && n <= 599 {
			e.Status = n
		}
	case json.Unmarshal(w.Code, &e.Code) == nil:
	}
	if e.Status == 0 && json.Unmarshal(w.Status, &n) == nil && n >= 400 && n <= 599 {
		e.Status = n
	}
	if e.Message == "" && e.Type == "" && e.Code == "" {
		e.Message = bodyText(raw)
	}
	switch {
	case e.Status > 0:
		e.Retryable = retryableStatus(e.Status)
	default:
		switch e.Type {
		case "server_error", "rate_limit_error", "rate_limit_exceeded", "overloaded_error", "timeout":
			e.Retryable = true
		}
	}
	return e
}

// maxRetryAfter is the longest Retry-After the client waits for; a server that
// asks for more gets its error returned at once.
const maxRetryAfter = 30 * time.Second

// parseRetryAfter reads a Retry-After header: delay-seconds or an HTTP date.
// ok is false when the header is absent or unreadable.
func parseRetryAfter(h string, now time.Time) (d time.Duration, ok bool) {
	h = strings.TrimSpace(h)
	if h == "" {
		return 0, false
	}
	if secs, err := strconv.ParseFloat(h, 64); err == nil {
		if secs < 0 {
			return 0, false
		}
		secs = min(secs, 24*60*60)
		return time.Duration(secs * float64(time.Second)), true
	}
	if t, err := http.ParseTime(h); err == nil {
		d := t.Sub(now)
		if d < 0 {
			d = 0
		}
		return d, true
	}
	return 0, false
}
