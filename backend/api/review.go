package api

import "foya/backend/kernel"

// The review panel's calls. A revert's preview is
// Revert with RevertRequest.DryRun.

// ChangeContents returns the text of a change's file before and after it
// (each side only when it is text of at most kernel.MaxShownContent
// bytes), so a review can show the whole file around the diff.
func (s *Service) ChangeContents(changeID string) (kernel.ChangeContents, error) {
	return call(s, func(k *kernel.Kernel) (kernel.ChangeContents, error) { return k.ChangeContents(s.ctx, changeID) })
}

// MarkReviewed marks changes of a session as reviewed, or as not reviewed
// (kernel.ReviewRequest): by change, or every change of a file. Every
// window learns it from the change.reviewed event.
func (s *Service) MarkReviewed(req kernel.ReviewRequest) (kernel.ReviewResult, error) {
	return call(s, func(k *kernel.Kernel) (kernel.ReviewResult, error) { return k.MarkReviewed(s.ctx, req) })
}

// SessionPatch returns a session's net change as one git-style patch
// (kernel.SessionPatch), for saving as a file.
func (s *Service) SessionPatch(sessionID string) (kernel.SessionPatch, error) {
	return call(s, func(k *kernel.Kernel) (kernel.SessionPatch, error) { return k.SessionPatch(s.ctx, sessionID) })
}

// GitStatusDiff returns what `git diff HEAD` prints in a session's folder
// (kernel.GitDiff): what committing everything now would commit.
func (s *Service) GitStatusDiff(sessionID string) (kernel.GitDiff, error) {
	return call(s, func(k *kernel.Kernel) (kernel.GitDiff, error) { return k.GitStatusDiff(s.ctx, sessionID) })
}
