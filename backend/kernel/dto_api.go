package kernel

import (
	"time"

	"foya/backend/engine"
)

// The values front ends send to and get from kernel methods besides the
// records of dto.go: kept in dto*.go files so the TypeScript generator
// reads every type of the API, and nothing else.

// Info describes a running kernel for front ends.
type Info struct {
	Version string `json:"version"`
	// Commit and Date are the commit the binary was built from and its
	// date, "" when unknown (see BuildInfo).
	Commit  string `json:"commit"`
	Date    string `json:"date"`
	DataDir string `json:"dataDir"`
	DBPath  string `json:"dbPath"`
	// ReadOnly says why the database was opened read-only (a read-only
	// file system, a file this user may not write), "" when it is
	// writable: sessions can be read, nothing can be changed.
	ReadOnly string `json:"readOnly,omitempty"`
}

// NewSession describes a session to create.
type NewSession struct {
	// Workdir is the folder to work in (it must exist).
	Workdir string `json:"workdir"`
	// ApprovalMode is "manual", "auto" or "full_access" (also written
	// "full-access" or "Full Access").
	ApprovalMode string `json:"approvalMode"`
	// Provider and Model are a provider profile and its model; empty
	// means the default profile when the session first runs.
	Provider string `json:"provider,omitempty"`
	Model    string `json:"model,omitempty"`
	// Title defaults to "New session".
	Title string `json:"title,omitempty"`
	// Tools is a tool allowlist; nil allows every tool.
	Tools []string `json:"tools,omitempty"`
}

// RunOptions ask for one turn.
type RunOptions struct {
	SessionID string `json:"sessionId"`
	Prompt    string `json:"prompt"`
	// Model is the model to ask; nil means the one of the session's
	// provider profile and model (see ProviderModel), so a front end
	// need not know about providers. Go callers only.
	Model engine.Model `json:"-"`
	// MaxSteps bounds the model steps of this turn; 0 means the
	// run.max_steps setting, else engine.DefaultMaxSteps.
	MaxSteps int `json:"maxSteps,omitempty"`
	// Started, if set, is called with the run's ID once it is stored.
	// Go callers only.
	Started func(runID string) `json:"-"`
	// Resources are MCP resources attached to the message (spec M3):
	// their text, bounded by MaxAttachedText, goes into the user message
	// after the prompt and their images as image parts; stored with it.
	Resources []ResourceRef `json:"resources,omitempty"`
}

// RevertRequest says what to revert: exactly one of ChangeIDs (with Hunks,
// exactly one change), RunID or ToChangeID.
type RevertRequest struct {
	// ChangeIDs are changes to revert, whatever order they are given in:
	// they are undone newest first.
	ChangeIDs []string `json:"changeIds,omitempty"`
	// RunID reverts every change of a run ("undo this turn").
	RunID string `json:"runId,omitempty"`
	// ToChangeID restores the session to just after this change: every
	// later change is undone, newest first.
	ToChangeID string `json:"toChangeId,omitempty"`
	// Hunks, with one change, reverts only these hunks of its diff
	// (numbered from 1, in the diff's order).
	Hunks []int `json:"hunks,omitempty"`
	// Force overwrites what is there now instead of stopping at a
	// conflict; what it overwrites is kept as the revert's before content.
	Force bool `json:"force,omitempty"`
	// DryRun computes the revert without doing it: the result holds the
	// revert changes it would record (without IDs or trash locations) or
	// the conflicts that would stop it, and nothing is changed on disk or
	// in the store.
	DryRun bool `json:"dryRun,omitempty"`
}

// RevertResult is what Revert did: the revert changes it recorded, in the
// order it made them, or the conflicts that stopped it (then nothing was
// changed). For a dry run it is what Revert would do, and DryRun is set.
type RevertResult struct {
	Reverted  []Change   `json:"reverted"`
	Conflicts []Conflict `json:"conflicts,omitempty"`
	DryRun    bool       `json:"dryRun,omitempty"`
}

// Provider is a named provider profile: where the model server is, the
// model to ask, extra headers, and where its API key is kept (never the
// key itself).
type Provider struct {
	Name    string            `json:"name"`
	BaseURL string            `json:"baseUrl"`
	Model   string            `json:"model"`
	Headers map[string]string `json:"headers,omitempty"`
	// SecretHeaders names headers whose values are credentials (an
	// Authorization or api-key header): they are kept with the key, not
	// in Headers.
	SecretHeaders []string `json:"secretHeaders,omitempty"`
	// KeyStore is where the key and secret headers are: KeyInKeyring,
	// KeyInFile, or "" for none.
	KeyStore string `json:"keyStore,omitempty"`
	// Default marks the default profile (in lists; not stored here).
	Default bool `json:"default,omitempty"`
}

// ProviderInput is a profile to add, or the new values of one to edit.
type ProviderInput struct {
	Name    string `json:"name"`
	BaseURL string `json:"baseUrl"`
	Model   string `json:"model"`
	// Headers are extra request headers; values of headers that carry
	// credentials go with the key (see Provider.SecretHeaders).
	Headers map[string]string `json:"headers,omitempty"`
	// APIKey, if not empty, is sent as a bearer token.
	APIKey string `json:"apiKey,omitempty"`
}

// ProviderEdit changes some fields of a profile; nil fields stay.
type ProviderEdit struct {
	BaseURL *string `json:"baseUrl,omitempty"`
	Model   *string `json:"model,omitempty"`
	// Headers, if not nil, replace the profile's headers.
	Headers map[string]string `json:"headers,omitempty"`
	// APIKey, if not nil, replaces the key ("" removes it).
	APIKey *string `json:"apiKey,omitempty"`
}

// CheckStep is the result of one step of a provider check.
type CheckStep struct {
	Status     string `json:"status"`
	HTTPStatus int    `json:"httpStatus,omitempty"`
	// Message says what happened and what to do; it never holds the key.
	Message string `json:"message"`
	// Millis is how long the step took, in milliseconds.
	Millis int64 `json:"millis"`
}

// ProviderCheck is the result of TestProvider.
type ProviderCheck struct {
	Provider string `json:"provider"`
	BaseURL  string `json:"baseUrl"`
	Model    string `json:"model"`
	// Models is GET /models: whether the server answers, takes the key,
	// and lists the model.
	Models CheckStep `json:"models"`
	// Stream is one tiny streamed chat request to the model.
	Stream CheckStep `json:"stream"`
}

// ProjectRules is a project's rules file as the user reviews it.
type ProjectRules struct {
	// Workdir is the workspace's real path, which approvals are keyed by.
	Workdir string `json:"workdir"`
	// File is the rules file's path.
	File string `json:"file"`
	// Status is one of RulesNone, RulesApproved, RulesUnapproved,
	// RulesChanged and RulesInvalid.
	Status string `json:"status"`
	// Content is the file's exact text and Hash its sha256 (hex): what
	// TrustProjectRules approves.
	Content string `json:"content,omitempty"`
	Hash    string `json:"hash,omitempty"`
	// Error says why the file cannot be used (RulesInvalid).
	Error string `json:"error,omitempty"`
	// ApprovedAt is when this content was approved (RulesApproved).
	ApprovedAt *time.Time `json:"approvedAt,omitempty"`
	// Allow, Ask and Deny are the parsed rules.
	Allow []Rule `json:"allow,omitempty"`
	Ask   []Rule `json:"ask,omitempty"`
	Deny  []Rule `json:"deny,omitempty"`
}

// ModelServer is a model server the first run found, or looked for: the
// server of OPENAI_API_KEY and OPENAI_BASE_URL, or one on a loopback port.
type ModelServer struct {
	// ID names the candidate: "env", "ollama", "lmstudio", "llamacpp",
	// "vllm", or "port-N" for another port.
	ID      string `json:"id"`
	Name    string `json:"name"`
	BaseURL string `json:"baseUrl"`
	// Local means the server is on this machine (no key needed, mostly).
	Local bool `json:"local"`
	// FromEnv marks the candidate of OPENAI_API_KEY and OPENAI_BASE_URL;
	// KeyPresent says OPENAI_API_KEY is set (the key is never returned).
	FromEnv    bool `json:"fromEnv"`
	KeyPresent bool `json:"keyPresent"`
	// Status is "" before a probe, then ok, unauthorized, down, timeout,
	// failed (it answers, but not as a model server) or no-key.
	Status string `json:"status"`
	// Message says what the probe found and what to do; it never holds a
	// key.
	Message string   `json:"message"`
	Models  []string `json:"models"`
	Millis  int64    `json:"millis"`
}

// Error codes, as Code returns them.
const (
	CodeNotFound    = "not_found"
	CodeInvalid     = "invalid"
	CodeConflict    = "conflict"
	CodeBusy        = "busy"
	CodeUnavailable = "unavailable"
	CodeInternal    = "internal"
)

// Outcomes of one step of a provider check.
const (
	CheckOK           = "ok"
	CheckUnauthorized = "unauthorized" // 401 or 403: the key is wrong or missing
	CheckWrongModel   = "wrong-model"  // the server does not know the model
	CheckDown         = "down"         // nothing answers at the base URL
	CheckFailed       = "failed"       // another error
	CheckSkipped      = "skipped"      // not tried: an earlier step says why
)

// Where a provider's API key is kept (Provider.KeyStore).
const (
	// KeyInKeyring is the operating system's keyring: the Secret Service
	// over D-Bus on Linux and BSD, the Keychain on macOS, the Credential
	// Manager on Windows.
	KeyInKeyring = "keyring"
	// KeyInFile is a file readable by its owner only (KeyFile) in Foya's
	// data folder, used where there is no keyring.
	KeyInFile = "file"
)

// Outcomes of a discovery probe besides those of a provider check (ok,
// unauthorized, down, failed).
const (
	DiscoverTimeout = "timeout" // the port answered nothing in time
	DiscoverNoKey   = "no-key"  // OPENAI_API_KEY is not set
)

// Statuses of a project's rules file.
const (
	RulesNone       = "none"       // no .foya/permissions.json
	RulesApproved   = "approved"   // this exact content was approved
	RulesUnapproved = "unapproved" // never approved
	RulesChanged    = "changed"    // approved once, with other content
	RulesInvalid    = "invalid"    // cannot be read or parsed
)
