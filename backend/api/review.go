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
