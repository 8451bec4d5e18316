package kernel

import (
	"context"
	"errors"

	"foya/backend/engine"
	"foya/backend/profiles"
)

// ContextWindow says the context window and output limit of the model a
// session's next run asks, and where Foya learnt them: what the server
// says, else the profile's setting, else a guess (profiles.Service.Window).
// A session without a profile (or of one since removed) gets the default
// profile's, as its next run would; with no profile at all, the guess. A
// server that is down, slow or answers garbage gives the setting or the
// guess, never an error.
func (k *Kernel) ContextWindow(ctx context.Context, sessionID string) (profiles.ContextWindow, error) {
	sess, err := k.store.Session(ctx, sessionID)
	if err != nil {
		return profiles.ContextWindow{}, err
	}
	name, model := sess.Provider, sess.Model
	if _, err := k.profiles.Get(ctx, name); err != nil {
		name, model = "", ""
	}
	w, err := k.profiles.Window(ctx, name, model)
	if errors.Is(err, profiles.ErrProviderNotFound) {
		return profiles.ContextWindow{Model: sess.Model, Window: profiles.DefaultContextWindow,
			OutputLimit: profiles.DefaultMaxOutput, Source: profiles.WindowDefault,
			Detail: "a guess: no provider profile says it; add one in Settings, Providers"}, nil
	}
	return w, err
}

// RunWindow is what a run is told of a profile's model's window (asked
// as ContextWindow does): Known when the server or the setting gave it;
// nothing for an unknown profile. A caller that builds its own client for
// the profile's server (foya exec) passes it in RunOptions.Window.
func (k *Kernel) RunWindow(ctx context.Context, provider, model string) engine.Window {
	if _, err := k.profiles.Get(ctx, provider); err != nil {
		return engine.Window{}
	}
	w, err := k.profiles.Window(ctx, provider, model)
	if err != nil {
		return engine.Window{}
	}
	return engine.Window{Tokens: w.Window, Known: w.Source != profiles.WindowDefault, About: w.Detail, Limit: w.ServerContext}
}
