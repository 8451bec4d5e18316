package kernel

import (
	"context"
	"errors"
	"fmt"

	"foya/backend/approval"
	"foya/backend/event"
	"foya/backend/llm"
)

// settingDefaultMode is the settings key of the global default mode.
const settingDefaultMode = "approval.default"

// Answer answers a pending approval request. The first answer wins; answers
// to unknown, answered or withdrawn requests are errors (nothing runs twice).
func (k *Kernel) Answer(id string, a Answer) error {
	if k.gateway == nil {
		return kindf(ErrUnavailable, "approval %s: this Foya cannot take answers (headless)", id)
	}
	err := k.gateway.Answer(id, a.inner())
	switch {
	case errors.Is(err, approval.ErrUnknownRequest):
		return withKind(err, ErrNotFound)
	case errors.Is(err, approval.ErrAnswered):
		return withKind(err, ErrConflict)
	case err != nil:
		return withKind(err, ErrInvalid) // an answer that does not fit the request
	}
	return nil
}

// PendingApprovals lists the requests waiting for an answer in a session
// ("" for every session).
func (k *Kernel) PendingApprovals(sessionID string) []Approval {
	if k.gateway == nil {
		return nil
	}
	return mapSlice(k.gateway.Pending(sessionID), approvalOf)
}

// Approvals returns a session's approval history.
func (k *Kernel) Approvals(ctx context.Context, sessionID string) ([]ApprovalRecord, error) {
	if _, err := k.store.Session(ctx, sessionID); err != nil {
		return nil, err
	}
	list, err := k.store.Approvals(ctx, sessionID)
	return mapSlice(list, approvalRecordOf), err
}

// SetMode switches a session's approval mode, at any time, also during a
// run: the next decision uses it. Every switch is recorded in the session's
// event log (a switch to Full Access included, so it can be audited).
func (k *Kernel) SetMode(ctx context.Context, sessionID, mode string) error {
	m, err := approval.ParseMode(mode)
	if err != nil {
		return withKind(err, ErrInvalid)
	}
	sess, err := k.store.Session(ctx, sessionID)
	if err != nil {
		return err
	}
	if sess.ApprovalMode == string(m) {
		return nil
	}
	return k.putSession(ctx, sess, m)
}

// putSession stores the session's row with the approval mode m and, when
// that is a switch, the session.mode event that records it, in one
// commit: a crash leaves both or neither, never a mode with no record.
func (k *Kernel) putSession(ctx context.Context, sess llm.Session, m approval.Mode) error {
	from := sess.ApprovalMode
	sess.ApprovalMode = string(m)
	c := llm.Commit{Session: &sess}
	if from != sess.ApprovalMode {
		c.Events = []llm.Event{event.SessionMode(event.SessionModeData{From: from, To: string(m)})}
	}
	return k.eng.RecordCommit(ctx, sess.ID, c)
}

// DefaultMode returns the approval mode new sessions start in
// ("manual", "auto" or "full_access"): the global setting, else manual.
func (k *Kernel) DefaultMode(ctx context.Context) (string, error) {
	v, ok, err := k.store.Setting(ctx, settingDefaultMode)
	if err != nil || !ok {
		return string(approval.Manual), err
	}
	m, err := approval.ParseMode(v)
	if err != nil {
		return string(approval.Manual), fmt.Errorf("setting %s: %w", settingDefaultMode, err)
	}
	return string(m), nil
}

// SetDefaultMode changes the global default approval mode.
func (k *Kernel) SetDefaultMode(ctx context.Context, mode string) error {
	m, err := approval.ParseMode(mode)
	if err != nil {
		return withKind(err, ErrInvalid)
	}
	return k.store.SetSetting(ctx, settingDefaultMode, string(m))
}
