package engine

import (
	"fmt"

	"foya/backend/llm"
)

// Window is what a run knows of its model's context window (the kernel
// asks the provider profile: profiles.Service.Window).
type Window struct {
	// Tokens is the context window; 0 means unknown: nothing is checked
	// against it.
	Tokens int
	// Known means the server or the user said it, not a guess: a request
	// whose system prompt and tools alone do not fit is refused before it
	// is sent.
	Known bool
	// About says where the window comes from, for messages ("from Ollama's
	// /api/show (num_ctx in the model's parameters)").
	About string
	// Limit is the context the server is known to run the model with
	// (Ollama's num_ctx, llama.cpp's n_ctx, LM Studio's loaded context,
	// vLLM's max_model_len); 0 when not known. A silent cut is told only
	// of a conversation longer than it.
	Limit int
}

// cutShare and cutFloor decide a silent cut: a server that reports fewer
// prompt tokens than cutShare of what Foya estimates the conversation's
// messages took, for messages of more than cutFloor estimated tokens
// (below it the estimate is too rough), and more than the server's known
// Limit, dropped part of the conversation; Ollama does so when the
// conversation is longer than its num_ctx. The tools are left out of the
// estimate: some servers (llama.cpp without --jinja) leave them out of
// the prompt.
const (
	cutShare = 0.6
	cutFloor = 2048
)

// fixedTokens estimates the part of a request every step sends: the
// system prompt and the tools' schemas.
func fixedTokens(req llm.Request) int {
	n := 0
	for _, m := range req.Messages {
		if m.Role != llm.RoleSystem {
			break
		}
		n += estimate(m)
	}
	for _, t := range req.Tools {
		n += 8 + (len(t.Name)+len(t.Description)+len(t.Parameters))/4
	}
	return n
}

// messageTokens estimates a request's messages, without its tools.
func messageTokens(req llm.Request) int {
	n := 0
	for _, m := range req.Messages {
		n += estimate(m)
	}
	return n
}

// tooSmall is the run's end when the model's window cannot hold even the
// system prompt and the tools: no request is sent.
func (r *runner) tooSmall(req llm.Request) error {
	w := r.req.Window
	if !w.Known || w.Tokens <= 0 {
		return nil
	}
	if fixed := fixedTokens(req); fixed >= w.Tokens {
		return &runError{msg: fmt.Sprintf("the model's context window is %d tokens (%s), smaller than Foya's system prompt and tools alone (about %d tokens), "+
			"so no request was sent: use a model with a larger context, or raise the server's context size (Ollama: num_ctx; llama.cpp: --ctx-size; "+
			"LM Studio: the context length when loading the model)", w.Tokens, w.About, fixed)}
	}
	return nil
}

// silentCut says how a server cut the conversation without saying so: it
// reported far fewer prompt tokens than Foya sent. "" when it did not.
func (r *runner) silentCut(req llm.Request, usage llm.Usage) string {
	if usage.PromptTokens <= 0 {
		return ""
	}
	sent := messageTokens(req)
	w := r.req.Window
	if sent <= cutFloor || float64(usage.PromptTokens) >= cutShare*float64(sent) || (w.Limit > 0 && sent <= w.Limit) {
		return ""
	}
	known := ""
	if w.Tokens > 0 {
		known = fmt.Sprintf(" (Foya takes the model's window to be %d tokens, %s)", w.Tokens, w.About)
	}
	return fmt.Sprintf("the server cut the conversation to %d tokens: Foya sent about %d, so its context is set to about %d tokens%s and the model did not see the start of the conversation; "+
		"raise the server's context (Ollama: PARAMETER num_ctx in a Modelfile, or OLLAMA_CONTEXT_LENGTH; llama.cpp: --ctx-size; LM Studio: the context length when loading), "+
		"or use a model with a larger context", usage.PromptTokens, sent, usage.PromptTokens, known)
}
