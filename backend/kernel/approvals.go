package kernel

import (
	"context"
	"fmt"

	"foya/backend/approval"
	"foya/backend/event"
	"foya/backend/llm"
)

// settingDefaultMode is the settings key of the global default mode.
const settingDefaultMode = "approval.default"

// Answer answers a pending approval request. The first answer wins; answers
// to unknown, answered or withdrawn requests are errors (nothing runs twice).
func (k *Kernel) Answer(id string, a approval.Answer) error {
	if k.gateway == nil {
		return fmt.Errorf("approval %s: this Foya cannot take answers (headless)", id)
	}
	return k.gateway.Answer(id, a)
}

// PendingApprovals lists the requests waiting for an answer in a session
// ("" for every session).
func (k *Kernel) PendingApprovals(sessionID string) []approval.Pending {
	if k.gateway == nil {
		return nil
	}
	return k.gateway.Pending(sessionID)
}

// Approvals returns a session's approval history.
func (k *Kernel) Approvals(ctx context.Context, sessionID string) ([]llm.ApprovalRecord, error) {
	return k.store.Approvals(ctx, sessionID)
}

// SetMode switches a session's approval mode, at any time, also during a
// run: the next decision uses it. Every switch is recorded in the session's
// event log (a switch to Full Access included, so it can be audited).
func (k *Kernel) SetMode(ctx context.Context, sessionID, mode string) error {
	m, err := approval.ParseMode(mode)
	if err != nil {
		return err
	}
	sess, err := k.store.Session(ctx, sessionID)
	if err != nil {
		return err
	}
	if sess.ApprovalMode == string(m) {
		return nil
	}
	from := sess.ApprovalMode
	sess.ApprovalMode = string(m)
	if err := k.store.UpdateSession(ctx, sess); err != nil {
		return err
	}
	return k.eng.Record(ctx, sessionID, event.SessionMode(event.SessionModeData{From: from, To: string(m)}))
}

// DefaultMode returns the approval mode new sessions start in: the global
// setting, else Manual.
func (k *Kernel) DefaultMode(ctx context.Context) (approval.Mode, error) {
	v, ok, err := k.store.Setting(ctx, settingDefaultMode)
	if err != nil || !ok {
		return approval.Manual, err
	}
	m, err := approval.ParseMode(v)
	if err != nil {
		return approval.Manual, fmt.Errorf("setting %s: %w", settingDefaultMode, err)
	}
	return m, nil
}

// SetDefaultMode changes the global default approval mode.
func (k *Kernel) SetDefaultMode(ctx context.Context, mode string) error {
	m, err := approval.ParseMode(mode)
	if err != nil {
		return err
	}
	return k.store.SetSetting(ctx, settingDefaultMode, string(m))
}
