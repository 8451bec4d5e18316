package profiles

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"foya/backend/fault"
	"foya/backend/provider"
	"foya/backend/store"
)

// Errors of the profile methods that callers branch on.
var (
	// ErrProviderNotFound means store.ErrNotFound too.
	ErrProviderNotFound = fault.New("no such provider", store.ErrNotFound)
	// ErrProviderExists means fault.ErrConflict too.
	ErrProviderExists = fault.New("provider exists", fault.ErrConflict)
	// ErrInvalidProvider is wrapped by every error about bad input: a
	// name, a URL, a header or a model. It means fault.ErrInvalid too.
	ErrInvalidProvider = fault.New("invalid provider", fault.ErrInvalid)
)

// invalid is bad input to a profile method.
type invalid struct{ msg string }

func (e invalid) Error() string { return e.msg }
func (e invalid) Is(target error) bool {
	return target == ErrInvalidProvider || target == fault.ErrInvalid
}

func invalidf(format string, a ...any) error { return invalid{fmt.Sprintf(format, a...)} }

// Settings is where the profiles are kept: the settings table
// (*store.Store). Each change of the profiles is one UpdateSetting, so two
// processes sharing a database do not lose each other's.
type Settings interface {
	Setting(ctx context.Context, key string) (string, bool, error)
	SetSetting(ctx context.Context, key, value string) error
	UpdateSetting(ctx context.Context, key string, fn func(v string, ok bool) (string, bool, error)) error
}

// Secrets is where the values a profile hands a model client (its key, its
// credential headers) go: Add makes them secrets, which no command's
// environment holds and which Mask replaces in any text. The kernel's is
// the one its tools and engine mask with.
type Secrets interface {
	Add(known map[string]string)
	Mask(text string) string
}

// Config is what New needs.
type Config struct {
	// Settings keeps the profiles and the default profile's name.
	Settings Settings
	// DataDir is the folder of KeyFile.
	DataDir string
	// Secrets learns every key and credential header a client or a check
	// uses, and masks them in what a server answers.
	Secrets Secrets
	// IdleTimeout returns the provider.idleTimeout setting; nil means
	// provider.DefaultIdleTimeout.
	IdleTimeout func(ctx context.Context) (time.Duration, error)
}

// Service keeps the provider profiles and their keys, checks them, and
// builds a run's model client from them. It is safe for concurrent use,
// by this process and by others sharing the database and data folder.
type Service struct {
	settings Settings
	keys     *keys
	secrets  Secrets
	idle     func(ctx context.Context) (time.Duration, error)

	windowMu sync.Mutex
	windows  map[string]cachedWindow // see Window
}

// New returns the service over c's settings and KeyFile in c.DataDir.
func New(c Config) *Service {
	return &Service{settings: c.Settings, keys: &keys{file: filepath.Join(c.DataDir, KeyFile)},
		secrets: c.Secrets, idle: c.IdleTimeout}
}

// KeyFilePath is where provider keys are kept where there is no keyring.
func (s *Service) KeyFilePath() string { return s.keys.file }

func (s *Service) idleTimeout(ctx context.Context) (time.Duration, error) {
	if s.idle == nil {
		return provider.DefaultIdleTimeout, nil
	}
	return s.idle(ctx)
}

func (s *Service) mask(text string) string { return s.secrets.Mask(text) }
