package api

import "foya/backend/kernel"

// Methods of the workspace index, whose kept copies cost disk: what they
// take and how to give it back.

// WorkspaceUsage returns the disk the workspace indexes take: the
// compressed contents that let shell commands' changes be reverted, and
// the saved indexes.
func (s *Service) WorkspaceUsage() (kernel.WorkspaceUsage, error) {
	return call(s, func(k *kernel.Kernel) (kernel.WorkspaceUsage, error) { return k.WorkspaceUsage(), nil })
}
