package kernel

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"foya/backend/engine"
	"foya/backend/event"
)

// Steer sends a message to a session's running run ("Send now"): the run
// stores it as a user message of its history, with a run.steer event,
// before its next model request, and Steer returns Delivered once it is
// stored. When no run can take it (none is going, or the one going ended
// first) nothing is stored and Delivered is false: the caller sends it as
// the session's next prompt, so the message is never lost.
//
// A message is stored once whatever happens: Steer first looks for a
// run.steer event with the message's ID, so a sender whose first call's
// answer was lost (the connection or the process went down after the
// store) sends it again and is told it was delivered.
func (k *Kernel) Steer(ctx context.Context, m SteerMessage) (SteerResult, error) {
	if strings.TrimSpace(m.Text) == "" {
		return SteerResult{}, kindf(ErrInvalid, "the message is empty: say what the run should know")
	}
	if strings.TrimSpace(m.ID) == "" || len(m.ID) > 200 {
		return SteerResult{}, kindf(ErrInvalid, "message ID %q: give each message an ID of 1 to 200 characters", m.ID)
	}
	if _, err := k.store.Session(ctx, m.SessionID); err != nil {
		return SteerResult{}, err
	}
	if done, err := k.steered(ctx, m.SessionID, m.ID); err != nil || done {
		return SteerResult{Delivered: done}, err
	}
	err := k.eng.Steer(ctx, m.SessionID, m.ID, m.Text)
	switch {
	case err == nil:
		return SteerResult{Delivered: true}, nil
	case errors.Is(err, engine.ErrNoRun):
		return SteerResult{}, nil
	}
	return SteerResult{}, err
}

// steered reports whether the session's log holds a run.steer event of
// the message with ID id.
func (k *Kernel) steered(ctx context.Context, sessionID, id string) (bool, error) {
	evs, err := k.store.EventsOfType(ctx, sessionID, event.TypeRunSteer)
	if err != nil {
		return false, err
	}
	for _, ev := range evs {
		var d event.RunSteerData
		if json.Unmarshal(ev.Data, &d) == nil && d.ID == id {
			return true, nil
		}
	}
	return false, nil
}
