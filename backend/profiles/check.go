package profiles

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"time"

	"foya/backend/llm"
	"foya/backend/provider"
)

// OK reports whether both steps passed.
func (c ProviderCheck) OK() bool { return c.Models.Status == CheckOK && c.Stream.Status == CheckOK }

// checkTimeout bounds each step of a provider check.
const checkTimeout = 30 * time.Second

// Test checks a profile: GET {base}/models (is the server up, does
// it take the key, does it list the model), then one tiny streamed chat
// request, each with its outcome and timing. An error is returned only
// when the check could not be made (unknown profile, unreadable key); a
// server that is down or refuses the key is a result.
func (s *Service) Test(ctx context.Context, name string) (ProviderCheck, error) {
	p, err := s.Get(ctx, name)
	if err != nil {
		return ProviderCheck{}, err
	}
	sec, err := s.secretOf(p)
	if err != nil {
		return ProviderCheck{}, err
	}
	headers := map[string]string{}
	for h, v := range p.Headers {
		headers[h] = v
	}
	for h, v := range sec.Headers {
		headers[h] = v
	}
	cfg := provider.Config{BaseURL: p.BaseURL, APIKey: sec.APIKey, Model: p.Model, Headers: headers, MaxRetries: -1}
	s.addSecrets(cfg)
	res := ProviderCheck{Provider: p.Name, BaseURL: p.BaseURL, Model: p.Model}
	res.Models = s.checkModels(ctx, cfg)
	if res.Models.Status == CheckDown || res.Models.Status == CheckUnauthorized {
		res.Stream = CheckStep{Status: CheckSkipped, Message: "not tried: " + res.Models.Status}
		return res, nil
	}
	idle, err := s.idleTimeout(ctx)
	if err != nil {
		return res, err
	}
	cfg.IdleTimeout = min(idle, checkTimeout)
	res.Stream = s.checkStream(ctx, cfg)
	return res, nil
}

func (s *Service) checkModels(ctx context.Context, cfg provider.Config) (step CheckStep) {
	start := time.Now()
	defer func() {
		step.Millis = time.Since(start).Milliseconds()
		step.Message = s.mask(step.Message)
	}()
	ids, step := fetchModels(ctx, cfg)
	if step.Status != CheckOK {
		return step
	}
	if !slices.Contains(ids, cfg.Model) {
		step.Status = CheckWrongModel
		step.Message = fmt.Sprintf("the server does not list model %s; it lists %s", cfg.Model, listed(ids))
		return step
	}
	step.Message = fmt.Sprintf("reachable; %d models listed, %s among them", len(ids), cfg.Model)
	return step
}

// fetchModels asks GET {base}/models for the model IDs a server lists. The
// step says what went wrong when Status is not CheckOK; its message may
// hold the key (the caller masks it).
func fetchModels(ctx context.Context, cfg provider.Config) ([]string, CheckStep) {
	ctx, cancel := context.WithTimeout(ctx, checkTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(cfg.BaseURL, "/")+"/models", nil)
	if err != nil {
		return nil, CheckStep{Status: CheckFailed, Message: err.Error()}
	}
	if cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+cfg.APIKey)
	}
	for h, v := range cfg.Headers {
		req.Header.Set(h, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, CheckStep{Status: CheckDown, Message: "no answer from " + cfg.BaseURL + ": " + downReason(err) + "; is the server running, and is the base URL right?"}
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	step := CheckStep{HTTPStatus: resp.StatusCode}
	switch {
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		step.Status = CheckUnauthorized
		step.Message = fmt.Sprintf("the server refused the key (%d %s): %s; set a new one with foya providers edit NAME --api-key-stdin",
			resp.StatusCode, http.StatusText(resp.StatusCode), serverText(body))
		return nil, step
	case resp.StatusCode == http.StatusNotFound:
		step.Status = CheckFailed
		step.Message = "GET /models: 404 Not Found: the server lists no models there; check the base URL (it usually ends in /v1)"
		return nil, step
	case resp.StatusCode != http.StatusOK:
		step.Status = CheckFailed
		step.Message = fmt.Sprintf("GET /models: %d %s: %s", resp.StatusCode, http.StatusText(resp.StatusCode), serverText(body))
		return nil, step
	}
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &list); err != nil {
		step.Status = CheckFailed
		step.Message = "GET /models answered something that is not a model list; is this an OpenAI-compatible server?"
		return nil, step
	}
	ids := make([]string, len(list.Data))
	for i, m := range list.Data {
		ids[i] = m.ID
	}
	step.Status = CheckOK
	return ids, step
}

func listed(ids []string) string {
	if len(ids) == 0 {
		return "none"
	}
	if len(ids) > 10 {
		return strings.Join(ids[:10], ", ") + fmt.Sprintf(" and %d more", len(ids)-10)
	}
	return strings.Join(ids, ", ")
}

// serverText is a short one-line piece of an error body: an OpenAI-style
// error's message, else the text.
func serverText(body []byte) string {
	var e struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	s := string(body)
	if json.Unmarshal(body, &e) == nil && e.Error.Message != "" {
		s = e.Error.Message
	}
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 200 {
		s = string(r[:199]) + "…"
	}
	return cmp.Or(s, "no message")
}

func downReason(err error) string {
	var op *net.OpError
	var dns *net.DNSError
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Sprintf("no answer within %s", checkTimeout)
	case errors.As(err, &dns):
		return "the host name " + dns.Name + " is unknown"
	case errors.As(err, &op) && op.Op == "dial":
		return "connection refused or unreachable"
	}
	return err.Error()
}

func (s *Service) checkStream(ctx context.Context, cfg provider.Config) (step CheckStep) {
	start := time.Now()
	defer func() {
		step.Millis = time.Since(start).Milliseconds()
		step.Message = s.mask(step.Message)
	}()
	client, err := provider.New(cfg)
	if err != nil {
		return CheckStep{Status: CheckFailed, Message: err.Error()}
	}
	ctx, cancel := context.WithTimeout(ctx, checkTimeout)
	defer cancel()
	req := llm.Request{Model: cfg.Model, Messages: []llm.Message{{Role: llm.RoleUser, Content: "Reply with the single word: ok"}}}
	var text strings.Builder
	for d, err := range client.Stream(ctx, req) {
		if err != nil {
			return streamFailure(err, cfg.Model)
		}
		if d.Kind == llm.DeltaText {
			text.WriteString(d.Text)
		}
	}
	return CheckStep{Status: CheckOK, Message: fmt.Sprintf("model %s answered %q", cfg.Model, firstWords(text.String()))}
}

func firstWords(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 60 {
		return string(r[:59]) + "…"
	}
	return s
}

func streamFailure(err error, model string) CheckStep {
	var pe *provider.Error
	var idle *provider.IdleError
	switch {
	case errors.As(err, &pe) && (pe.Status == http.StatusUnauthorized || pe.Status == http.StatusForbidden):
		return CheckStep{Status: CheckUnauthorized, HTTPStatus: pe.Status, Message: err.Error() + "; set a new key with foya providers edit NAME --api-key-stdin"}
	case errors.As(err, &pe) && (pe.Status == http.StatusNotFound || pe.Code == "model_not_found" ||
		strings.Contains(strings.ToLower(pe.Message), "model")):
		return CheckStep{Status: CheckWrongModel, HTTPStatus: pe.Status, Message: err.Error() + "; check the model name " + model}
	case errors.As(err, &pe):
		return CheckStep{Status: CheckFailed, HTTPStatus: pe.Status, Message: err.Error()}
	case errors.As(err, &idle), errors.Is(err, context.DeadlineExceeded):
		return CheckStep{Status: CheckDown, Message: "the model answered nothing in time: " + err.Error()}
	case strings.Contains(err.Error(), "connect") || strings.Contains(err.Error(), "dial"):
		return CheckStep{Status: CheckDown, Message: err.Error()}
	}
	return CheckStep{Status: CheckFailed, Message: err.Error()}
}
