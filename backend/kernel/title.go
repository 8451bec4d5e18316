package kernel

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"foya/backend/engine"
	"foya/backend/event"
	"foya/backend/llm"
	"foya/backend/settings"
)

// DefaultTitle is the title of a session the user named none for, until
// its first run names it after its prompt.
const DefaultTitle = "New session"

// titleMax is the most characters (runes) a title made from a prompt
// keeps before its ellipsis.
const titleMax = 60

// PromptTitle makes a session title from a prompt: its first line that has
// anything to show, with runs of white space and control characters made
// one space, cut at a word boundary to about 60 characters with an
// ellipsis. It is "" for a prompt with nothing to show.
func PromptTitle(prompt string) string {
	var line string
	for l := range strings.Lines(prompt) {
		if line = clean(l); line != "" {
			break
		}
	}
	r := []rune(line)
	if len(r) <= titleMax {
		return line
	}
	cut := titleMax
	// Back to the last space, unless the first word alone is that long.
	for i := titleMax; i > titleMax/2; i-- {
		if r[i] == ' ' {
			cut = i
			break
		}
	}
	return strings.TrimRight(string(r[:cut]), " ,.;:-") + "…"
}

// clean collapses white space and control characters in s to single
// spaces and trims it. Invalid UTF-8 is dropped.
func clean(s string) string {
	var b strings.Builder
	space := false
	for _, c := range s {
		if c == unicode.ReplacementChar || unicode.IsSpace(c) || unicode.IsControl(c) || unicode.Is(unicode.Cf, c) {
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(c)
	}
	return b.String()
}

// DefaultTitleTimeout bounds a title request (Options.TitleTimeout).
const DefaultTitleTimeout = 30 * time.Second

// titleAnswerMax is the most text of a title answer read: a model that
// says more is not answering with a title, and its stream is cut.
const titleAnswerMax = 1024

// titleWordsMax is the most words a title the model proposes may have:
// the request asks for six; more is a sentence, not a title.
const titleWordsMax = 12

// titleContextMax bounds the prompt and the answer quoted in a title
// request, in characters (runes), each.
const titleContextMax = 2000

// errNoTitle says the model's answer held no usable title; the session
// keeps its title, and nothing is wrong enough to log as a failure.
var errNoTitle = errors.New("the model proposed no usable title")

// ModelTitle makes a session title of a model's answer to a title request
// (llm.TitlePrompt): the answer must be one line with letters or digits
// (a <think> block before it is dropped), of at most 12 words; quotes,
// Markdown emphasis, a "Title:" label and trailing punctuation around it
// go, and it is cut like PromptTitle. It is "" for an answer that is no
// title: empty, several lines, a sentence, only punctuation.
func ModelTitle(answer string) string {
	if strings.HasPrefix(strings.TrimSpace(answer), "<think>") {
		_, after, ok := strings.Cut(answer, "</think>")
		if !ok {
			return ""
		}
		answer = after
	}
	var line string
	for l := range strings.Lines(answer) {
		c := clean(l)
		if c == "" {
			continue
		}
		if line != "" {
			return "" // more than one line: an explanation, not a title
		}
		line = c
	}
	const around = "\"'`*_#“”‘’«»„ "
	line = strings.Trim(line, around)
	for _, label := range []string{"title:", "title -", "title"} {
		if len(line) > len(label) && strings.EqualFold(line[:len(label)], label) && !isWordRune(line[len(label):]) {
			line = strings.Trim(line[len(label):], around+":-")
			break
		}
	}
	line = strings.TrimRight(line, ".!?,;:…"+around)
	line = strings.TrimLeft(line, around)
	if !strings.ContainsFunc(line, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) {
		return ""
	}
	if len(strings.Fields(line)) > titleWordsMax {
		return ""
	}
	return PromptTitle(line)
}

// isWordRune reports whether s starts with a letter or digit.
func isWordRune(s string) bool {
	for _, r := range s {
		return unicode.IsLetter(r) || unicode.IsDigit(r)
	}
	return false
}

// proposeTitle asks, in the background, the model of a session's first
// run for a better title than from, the one made of its prompt, and makes
// it the session's title unless the user named the session meanwhile
// (llm.Commit.Retitle checks it in the statement that changes the title).
// It never delays or fails the run: what goes wrong is logged. Close
// cancels it and waits for it.
func (k *Kernel) proposeTitle(sessionID, from, prompt string, model engine.Model, modelName string) {
	k.mu.Lock()
	if k.titlesClosed {
		k.mu.Unlock()
		return
	}
	k.titles.Add(1)
	k.mu.Unlock()
	go func() {
		defer k.titles.Done()
		title, err := k.askTitle(sessionID, from, prompt, model, modelName)
		switch {
		case err == nil, errors.Is(err, llm.ErrTitleKept), k.titleCtx.Err() != nil:
		case errors.Is(err, errNoTitle):
			k.log.Debug("session title: the model proposed none", "session", sessionID, "err", err)
		default:
			k.log.Warn("session title: the model was not asked for one, or did not answer", "session", sessionID, "err", err)
		}
		if k.titleDone != nil {
			k.titleDone(sessionID, title, err)
		}
	}()
}

// askTitle sends the title request and stores the title the model gives.
// It returns the title stored, or "" and why none: nil when the setting
// is off, errNoTitle, an error wrapping llm.ErrTitleKept when the user's
// title stays, or what failed.
func (k *Kernel) askTitle(sessionID, from, prompt string, model engine.Model, modelName string) (string, error) {
	ctx, cancel := context.WithTimeout(k.titleCtx, k.titleTimeout)
	defer cancel()
	if on, err := k.AutoTitle(ctx); err != nil || !on {
		return "", err
	}
	var answer string
	if msgs, err := k.store.Messages(ctx, sessionID); err != nil {
		return "", err
	} else {
		for i := len(msgs) - 1; i >= 0; i-- {
			if m := msgs[i].Message; m.Role == llm.RoleAssistant && strings.TrimSpace(m.Content) != "" {
				answer = m.Content
				break
			}
		}
	}
	text := "The user's first message:\n" + firstRunes(prompt, titleContextMax)
	if answer != "" {
		text += "\n\nThe assistant's answer:\n" + firstRunes(answer, titleContextMax)
	}
	req := llm.Request{Model: modelName, Messages: []llm.Message{
		{Role: llm.RoleSystem, Content: llm.TitlePrompt},
		{Role: llm.RoleUser, Content: text},
	}}
	var got strings.Builder
	done := false
	for d, err := range model.Stream(ctx, req) {
		if err != nil {
			return "", err
		}
		switch d.Kind {
		case llm.DeltaText:
			got.WriteString(d.Text)
			if got.Len() > titleAnswerMax {
				return "", fmt.Errorf("%w: the answer ran past %d bytes", errNoTitle, titleAnswerMax)
			}
		case llm.DeltaDone:
			done = true
		}
	}
	if !done {
		return "", errors.New("the model's answer ended before it was complete")
	}
	title := ModelTitle(got.String())
	if title == "" {
		return "", fmt.Errorf("%w: it answered %q", errNoTitle, firstRunes(got.String(), 200))
	}
	if title == from {
		return "", nil
	}
	c := llm.Commit{Retitle: &llm.Retitle{SessionID: sessionID, Title: title},
		Events: []llm.Event{event.SessionTitle(event.SessionTitleData{From: from, Title: title})}}
	if _, err := k.eng.Commit(ctx, sessionID, c); err != nil {
		return "", err
	}
	return title, nil
}

// firstRunes is s cut to at most n runes, with an ellipsis when cut.
func firstRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}

// AutoTitle reports whether a session's model is asked for its title
// after its first run: the sessions.autoTitle setting, else true.
func (k *Kernel) AutoTitle(ctx context.Context) (bool, error) {
	v, set, err := k.store.Setting(ctx, settings.AutoTitle)
	if err != nil || !set {
		return true, err
	}
	on, err := strconv.ParseBool(v)
	if err != nil {
		return true, fmt.Errorf("setting %s: want true or false, got %q", settings.AutoTitle, v)
	}
	return on, nil
}
