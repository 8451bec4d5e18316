package kernel

import (
	"context"
	"errors"
	"strings"

	"foya/backend/event"
	"foya/backend/llm"
	"foya/backend/profiles"
)

// SetModel makes a session's next runs use a configured provider profile
// and model. The session's row and the session.model event that records
// the choice are stored in one commit, so the conversation shows the
// change and a reload finds both. A run already going keeps the model it
// started with: Run reads the session's choice at its start only. The
// model is not checked against the profile's server (it may be down, or
// list no models): the first run with it says what the server answered.
// Choosing what the session has already is no change and records nothing.
func (k *Kernel) SetModel(ctx context.Context, c ModelChoice) (Session, error) {
	model := strings.TrimSpace(c.Model)
	if model == "" {
		return Session{}, kindf(ErrInvalid, "the model name is empty: pick a model of provider %s, or type its name", c.Provider)
	}
	if strings.ContainsAny(model, "\x00\n\r") {
		return Session{}, kindf(ErrInvalid, "model %q: a model name is one line of text", model)
	}
	if strings.TrimSpace(c.Provider) == "" {
		return Session{}, kindf(ErrInvalid, "no provider profile given: pick one of the configured profiles (Settings, Providers)")
	}
	sess, err := k.store.Session(ctx, c.SessionID)
	if err != nil {
		return Session{}, err
	}
	if _, err := k.profiles.Get(ctx, c.Provider); err != nil {
		if errors.Is(err, profiles.ErrProviderNotFound) {
			return Session{}, kindf(ErrInvalid, "there is no provider profile %q: pick one of the configured profiles, or add it in Settings, Providers", c.Provider)
		}
		return Session{}, err
	}
	if sess.Provider == c.Provider && sess.Model == model {
		return sessionOf(sess), nil
	}
	d := event.SessionModelData{FromProvider: sess.Provider, FromModel: sess.Model, Provider: c.Provider, Model: model}
	sess.Provider, sess.Model = c.Provider, model
	if err := k.eng.RecordCommit(ctx, sess.ID, llm.Commit{Session: &sess, Events: []llm.Event{event.SessionModel(d)}}); err != nil {
		return Session{}, err
	}
	return k.Session(ctx, sess.ID)
}
