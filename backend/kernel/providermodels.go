package kernel

import (
	"context"
	"slices"

	"foya/backend/provider"
)

// ProviderModels lists the models a profile's server offers (GET
// {base}/models with the profile's key and headers), sorted, so a person
// can pick one instead of typing it. A server that is down, refuses the
// key or lists nothing is an error with code unavailable that says what
// to check; an unknown profile is not_found.
func (k *Kernel) ProviderModels(ctx context.Context, name string) ([]string, error) {
	p, err := k.Provider(ctx, name)
	if err != nil {
		return nil, err
	}
	sec, err := k.secretOf(p)
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
	k.addSecrets(cfg)
	ids, step := fetchModels(ctx, cfg)
	if step.Status != CheckOK {
		return nil, kindf(ErrUnavailable, "models of provider %s: %s", name, k.mask(step.Message))
	}
	slices.Sort(ids)
	return slices.Compact(ids), nil
}
