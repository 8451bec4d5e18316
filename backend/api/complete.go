package api

import (
	"context"

	"foya/backend/kernel"
)

// pathCompleter is the kernel's CompletePath, found by assertion so that
// this package builds against a kernel that does not have it yet (issue 11
// item 6: the browser's folder field).
type pathCompleter interface {
	CompletePath(ctx context.Context, prefix string) ([]string, error)
}

// CompletePath returns folder names completing a typed path (at most 50,
// folders only, ~ expanded), for the browser's folder field.
func (s *Service) CompletePath(prefix string) ([]string, error) {
	return list(s, func(k *kernel.Kernel) ([]string, error) {
		c, ok := any(k).(pathCompleter)
		if !ok {
			return nil, &Error{Code: kernel.CodeUnavailable, Message: "path completion is not in this build: type the whole path"}
		}
		return c.CompletePath(s.ctx, prefix)
	})
}
