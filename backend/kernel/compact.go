package kernel

import (
	"context"
	"errors"
	"fmt"

	"foya/backend/engine"
	"foya/backend/event"
	"foya/backend/profiles"
	"foya/backend/settings"
)

// SettingCompactAt is the share of a known context window a request may
// take before the session's history is compacted.
const SettingCompactAt = settings.CompactAt

// CompactAt returns the context.compactAt setting, else
// engine.DefaultCompactAt.
func (k *Kernel) CompactAt(ctx context.Context) (float64, error) {
	v, ok, err := k.store.Setting(ctx, SettingCompactAt)
	if err != nil || !ok {
		return engine.DefaultCompactAt, err
	}
	f, err := settings.ParseCompactAt(v)
	if err != nil {
		return engine.DefaultCompactAt, fmt.Errorf("setting %s: %w; set it again with foya settings set %s 0.8", SettingCompactAt, err, SettingCompactAt)
	}
	return f, nil
}

// Compact has the model summarise the older part of a session's history
// now (issue 28), as a run does by itself when a request would pass
// context.compactAt of the model's known window: the session's next
// request sends the summary, the session's file changes and task list
// (exact, from Foya's records) and the newest messages verbatim. The full
// history stays stored, its tool results readable with
// history_read_tool_result. The session must have no run going
// (ErrBusy). A summary that fails changes nothing and is recorded
// (context.compact_failed); the error says why.
func (k *Kernel) Compact(ctx context.Context, o CompactOptions) (event.ContextCompactedData, error) {
	sess, err := k.store.Session(ctx, o.SessionID)
	if err != nil {
		return event.ContextCompactedData{}, err
	}
	if sess.Runs == 0 {
		return event.ContextCompactedData{}, kindf(ErrInvalid, "session %s has no conversation to compact yet", sess.ID)
	}
	model, window := o.Model, o.Window
	if model == nil {
		choice := profiles.ModelChoice{Session: sess.Provider}
		if _, err := k.profiles.Get(ctx, sess.Provider); err == nil {
			choice.Model = sess.Model
		}
		var prov, name string
		if model, prov, name, err = k.profiles.Client(ctx, choice); err != nil {
			return event.ContextCompactedData{}, err
		}
		sess.Provider, sess.Model = prov, name
		window = k.RunWindow(ctx, prov, name)
	}
	at, err := k.CompactAt(ctx)
	if err != nil {
		return event.ContextCompactedData{}, err
	}
	d, err := k.eng.Compact(ctx, engine.CompactRequest{Session: sess, Model: model, Window: window, CompactAt: at})
	if err != nil && !errors.Is(err, engine.ErrBusy) && ctx.Err() == nil {
		return d, withKind(err, ErrUnavailable)
	}
	return d, err
}

// UndoCompaction undoes the session's compaction in force, id (the ID of
// its context.compacted event): the next request is compiled without it,
// with the compaction before it, if any (a run may compact again if the
// history does not fit the window without it). The session must have no
// run going (ErrBusy); a compaction that is not the one in force is
// ErrConflict.
func (k *Kernel) UndoCompaction(ctx context.Context, sessionID, id string) error {
	if _, err := k.store.Session(ctx, sessionID); err != nil {
		return err
	}
	err := k.eng.Uncompact(ctx, sessionID, id)
	if errors.Is(err, engine.ErrNotCompacted) {
		return withKind(err, ErrConflict)
	}
	return err
}
