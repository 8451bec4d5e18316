package profiles

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/zalando/go-keyring"
)

// TokenFile is the file, in the data folder, that holds MCP sign-in
// tokens where the system has no keyring: as KeyFile holds provider keys,
// mode 0600, hidden from sandboxed commands by the same rule.
const TokenFile = "mcp-tokens.json"

// Tokens keeps MCP servers' sign-in tokens (an mcpauth.Store, which the
// kernel hands it to; profiles does not import mcpauth) where
// provider keys are kept: the keyring, else TokenFile. Never in the
// database, never in an error.
type Tokens struct{ ks *keys }

// NewTokens returns the token store of the data folder dataDir.
func NewTokens(dataDir string) *Tokens {
	return &Tokens{ks: &keys{file: filepath.Join(dataDir, TokenFile)}}
}

// Get returns the token stored for account, an error wrapping
// fs.ErrNotExist (mcpauth.ErrNotStored) when none.
func (t *Tokens) Get(ctx context.Context, account string) (string, error) {
	v, err := keyringCall(func() (string, error) { return keyring.Get(keyringService, account) })
	switch {
	case err == nil:
		return v, nil
	case !errors.Is(err, errNoKeyring) && !errors.Is(err, keyring.ErrNotFound):
		return "", err
	}
	m, ferr := t.ks.fileRead()
	if ferr != nil {
		return "", ferr
	}
	if v, ok := m[account]; ok {
		return v, nil
	}
	return "", fmt.Errorf("no token stored for %s: %w", account, fs.ErrNotExist)
}

// Put stores the token of account: in the keyring, else (no keyring) in
// TokenFile. A locked keyring is an error.
func (t *Tokens) Put(ctx context.Context, account, value string) error {
	_, err := keyringCall(func() (string, error) { return "", keyring.Set(keyringService, account, value) })
	switch {
	case err == nil:
		_ = t.ks.fileDelete(account)
		return nil
	case !errors.Is(err, errNoKeyring):
		return err
	}
	if err := t.ks.fileSet(account, value); err != nil {
		return fmt.Errorf("write %s: %w", t.ks.file, err)
	}
	return nil
}

// Delete removes the token of account from both places; none there is no
// error.
func (t *Tokens) Delete(ctx context.Context, account string) error {
	_, err := keyringCall(func() (string, error) { return "", keyring.Delete(keyringService, account) })
	if err != nil && !errors.Is(err, errNoKeyring) && !errors.Is(err, keyring.ErrNotFound) {
		return err
	}
	return t.ks.fileDelete(account)
}
