package kernel

import (
	"context"
	"os"
	"slices"
	"sync"

	"foya/backend/secret"
)

// Setting keys of the commands' environment policy: names or globs
// (AWS_*, *_TOKEN) separated by commas or spaces.
const (
	// SettingEnvAllow lists variables commands get although they look
	// secret; their values are still masked in tool output.
	SettingEnvAllow = "shell.env.allow"
	// SettingEnvDeny lists more variables commands never get; their values
	// are masked too.
	SettingEnvDeny = "shell.env.deny"
)

// secrets is what the kernel knows about secrets: the values given at Open
// (the provider's key) and, per environment policy, the filtered
// environment commands start from and the masker of tool output, built
// once per policy.
type secrets struct {
	known []secret.Secret

	mu     sync.Mutex
	policy [2]string // the settings the state below was built from
	built  bool
	env    []string
	masker *secret.Masker
}

func newSecrets(known map[string]string) *secrets {
	s := &secrets{}
	s.add(known)
	return s
}

// add makes more values secrets (a provider's key, once a run uses it):
// the environment and the masker are built again at the next use.
func (s *secrets) add(known map[string]string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for name, v := range known {
		if v != "" && !slices.ContainsFunc(s.known, func(k secret.Secret) bool { return k.Value == v }) {
			s.known = append(s.known, secret.Secret{Name: name, Value: v})
			s.built = false
		}
	}
	slices.SortFunc(s.known, func(a, b secret.Secret) int { return len(b.Value) - len(a.Value) })
}

// secretState returns the environment commands start from and the masker
// for the current settings, which are read at every call (another Foya
// process may change them). A setting that cannot be read or parsed counts
// as empty: the default rules hold, nothing more is allowed.
func (k *Kernel) secretState() ([]string, *secret.Masker) {
	ctx := context.Background()
	var policy [2]string
	for i, key := range []string{SettingEnvAllow, SettingEnvDeny} {
		if v, ok, err := k.store.Setting(ctx, key); err == nil && ok {
			policy[i] = v
		}
	}
	s := k.secrets
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.built && s.policy == policy {
		return s.env, s.masker
	}
	allow, _ := secret.ParsePatterns(policy[0])
	deny, _ := secret.ParsePatterns(policy[1])
	env, found := secret.Filter(os.Environ(), secret.Policy{Allow: allow, Deny: deny}, slices.Clone(s.known))
	s.policy, s.built, s.env, s.masker = policy, true, env, secret.NewMasker(found)
	return env, s.masker
}

// commandEnv is the environment commands start from, filtered of secrets.
func (k *Kernel) commandEnv() []string {
	env, _ := k.secretState()
	return slices.Clone(env)
}

// mask replaces known secret values in tool output.
func (k *Kernel) mask(text string) string {
	_, m := k.secretState()
	return m.Mask(text)
}

// profileSecrets hands the provider profiles the kernel's secrets: the
// keys a run's model client or a provider check uses become values no
// command's environment holds and every tool result masks.
type profileSecrets struct{ k *Kernel }

func (p profileSecrets) Add(known map[string]string) { p.k.secrets.add(known) }
func (p profileSecrets) Mask(text string) string     { return p.k.mask(text) }
