package profiles

import (
	"context"
	"slices"

	"foya/backend/fault"
	"foya/backend/provider"
)

// Models lists the models a profile's server offers (GET
// {base}/models with the profile's key and headers), sorted, so a person
// can pick one instead of typing it. A server that is down, refuses the
// key or lists nothing is an error with code unavailable that says what
// to check; an unknown profile is not_found.
func (s *Service) Models(ctx context.Context, name string) ([]string, error) {
	p, err := s.Get(ctx, name)
	if err != nil {
		return nil, err
	}
	sec, err := s.secretOf(p)
	if err != nil {
		return nil, err
	}
	headers := map[string]string{}
	for h, v := range p.Headers {
		headers[h] = v
	}
	for h, v := range sec.Headers {
		headers[h] = v
	}
	cfg := provider.Config{BaseURL: p.BaseURL, APIKey: sec.APIKey, Model: p.Model, Headers: headers}
	s.addSecrets(cfg)
	ids, step := fetchModels(ctx, cfg)
	if step.Status != CheckOK {
		return nil, fault.Errorf(fault.ErrUnavailable, "models of provider %s: %s", name, s.mask(step.Message))
	}
	slices.Sort(ids)
	return slices.Compact(ids), nil
}
