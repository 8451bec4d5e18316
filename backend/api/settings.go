package api

import "foya/backend/kernel"

// Methods of the settings view that methods.go lacks.

// ProviderModels lists the models a provider profile's server offers (its
// GET /models), sorted. A server that is down or refuses the key is an
// error with code unavailable saying what to check.
func (s *Service) ProviderModels(name string) ([]string, error) {
	return list(s, func(k *kernel.Kernel) ([]string, error) {
		if err := need("name", name); err != nil {
			return nil, err
		}
		return k.Profiles().Models(s.ctx, name)
	})
}

// ImageInput says whether a model is sent images: the model.images.MODEL
// setting when there is one, else a guess from the model's name.
func (s *Service) ImageInput(model string) (bool, error) {
	return call(s, func(k *kernel.Kernel) (bool, error) {
		if err := need("model", model); err != nil {
			return false, err
		}
		return k.Profiles().ImageInput(s.ctx, model)
	})
}
