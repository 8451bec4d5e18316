package api

import (
	"foya/backend/kernel"
	"foya/backend/profiles"
)

// Methods of the first run that methods.go lacks: finding a model server
// on this machine, and saving the one of the environment without its key
// passing through the front end.

// ModelServers lists the model servers the first run looks for, without
// probing them: the server of OPENAI_API_KEY and OPENAI_BASE_URL (whether
// a key is set, never the key) and Ollama, LM Studio, llama.cpp and vLLM
// on loopback (the ports of the setting discover.ports).
func (s *Service) ModelServers() ([]profiles.ModelServer, error) {
	return list(s, func(k *kernel.Kernel) ([]profiles.ModelServer, error) { return k.Profiles().ModelServers(s.ctx) })
}

// ProbeModelServer probes one candidate of ModelServers by its ID, with a
// short timeout: its status (ok, unauthorized, down, timeout, failed,
// no-key), what to do, and the models it offers.
func (s *Service) ProbeModelServer(id string) (profiles.ModelServer, error) {
	return call(s, func(k *kernel.Kernel) (profiles.ModelServer, error) {
		if err := need("id", id); err != nil {
			return profiles.ModelServer{}, err
		}
		return k.Profiles().ProbeModelServer(s.ctx, id)
	})
}

// DiscoverModelServers probes every candidate of ModelServers at once.
func (s *Service) DiscoverModelServers() ([]profiles.ModelServer, error) {
	return list(s, func(k *kernel.Kernel) ([]profiles.ModelServer, error) {
		return k.Profiles().DiscoverModelServers(s.ctx)
	})
}

// AddProviderFromEnv adds a provider profile whose key is the kernel's
// OPENAI_API_KEY, so that the key found in the environment is saved
// without passing through the front end. Without the variable it is an
// invalid-input error saying so.
func (s *Service) AddProviderFromEnv(profile profiles.ProviderInput) (profiles.Provider, error) {
	return call(s, func(k *kernel.Kernel) (profiles.Provider, error) {
		key := profiles.EnvAPIKey()
		if key == "" {
			return profiles.Provider{}, invalid("OPENAI_API_KEY is not set in Foya's environment: give the key in the API key field instead")
		}
		profile.APIKey = key
		return k.Profiles().Add(s.ctx, profile)
	})
}

// CheckServer asks a server typed into the first run's form (its base URL
// and maybe a key, not yet a profile) for its model list: every outcome
// (not a URL, no such host, refused, silent, key refused, not a model
// list) is a result with one sentence, the field it is about and the
// technical detail apart; the key is kept nowhere and masked in the result.
func (s *Service) CheckServer(probe profiles.ServerProbe) (profiles.ServerCheck, error) {
	return call(s, func(k *kernel.Kernel) (profiles.ServerCheck, error) {
		return k.Profiles().CheckServer(s.ctx, probe), nil
	})
}
