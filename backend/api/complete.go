package api

import "foya/backend/kernel"

// CompletePath returns folder names completing a typed path (at most 50,
// folders only, ~ expanded), for the browser's folder field.
func (s *Service) CompletePath(prefix string) ([]string, error) {
	return list(s, func(k *kernel.Kernel) ([]string, error) { return k.CompletePath(s.ctx, prefix) })
}
