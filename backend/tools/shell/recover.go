package shell

import (
	"context"
	"encoding/json"
	"fmt"

	"foya/backend/tools"
)

// recoverer is the part of a Capture that a kernel started after a crash
// uses: what differs between the session's saved index and the disk.
type recoverer interface {
	Recover(ctx context.Context, sessionID, workdir string) ([]tools.FileChange, error)
}

var (
	_ tools.Recoverable = bashTool{}
	_ tools.Lingering   = bashTool{}
)

// Recover implements tools.Recoverable for a bash call that was running
// when Foya died, or (Lingers) a background command started before: it
// never runs the command. What differs between the session's saved
// workspace index and the disk was made by the commands running at the
// kill, foreground or background, since no other command of the session
// ran after the index last looked; the changes that the session's newest
// File Change of their path explains (Foya's own tools', which the index
// sees only when a command runs) are left out. A change whose path the
// records left otherwise than the index saw it starts from the records'
// side, so that a revert goes back to what Foya recorded last; its diff,
// made from the index's side, is dropped. The engine stores them as
// unconfirmed: nobody saw the command end, so Foya cannot vouch for them.
func (t bashTool) Recover(ctx context.Context, rc *tools.RunContext, call tools.Call, prior tools.Prior) ([]tools.FileChange, error) {
	r, ok := t.s.opts.Capture.(recoverer)
	if !ok || rc.SessionID == "" || rc.Workdir == "" {
		return nil, nil
	}
	found, err := r.Recover(ctx, rc.SessionID, rc.Workdir)
	if err != nil {
		return nil, fmt.Errorf("recover bash: %w", err)
	}
	var out []tools.FileChange
	for _, fc := range found {
		if prior != nil {
			p, data, ok, err := prior(ctx, fc.Path)
			if err != nil {
				return nil, fmt.Errorf("recover bash: %w", err)
			}
			if ok && tools.Explained(p, fc.FileChange) {
				continue
			}
			if ok {
				tools.Rebase(&fc, p, data)
			}
		}
		out = append(out, fc)
	}
	return out, nil
}

// Lingers implements tools.Lingering: a background command may still
// have been running.
func (bashTool) Lingers(call tools.Call) bool {
	var a struct {
		Background bool `json:"run_in_background"`
	}
	return json.Unmarshal(call.Arguments, &a) == nil && a.Background
}
