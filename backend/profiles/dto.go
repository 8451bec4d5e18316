package profiles

// The types a front end sees (their TypeScript is generated from this
// package: tygo.yaml).

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
	// ToolCalls says whether tool calls the model writes as text are run:
	// "auto" (or ""), "native" or "text" (provider.ToolCallsAuto...).
	ToolCalls string `json:"toolCalls,omitempty"`
	// ContextWindow and MaxOutput are the user's setting of the model's
	// context window and output limit, in tokens (0: not set). They are
	// used when the server does not say (Service.Window).
	ContextWindow int `json:"contextWindow,omitempty"`
	MaxOutput     int `json:"maxOutput,omitempty"`
	// InputPrice and OutputPrice are what the model costs, in US dollars
	// per million prompt and completion tokens (0: not set). They are set
	// together, or neither; the composer's meter shows a session's cost
	// at them.
	InputPrice  float64 `json:"inputPrice,omitempty"`
	OutputPrice float64 `json:"outputPrice,omitempty"`
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
	// ToolCalls is the tool-call mode: "auto" (or ""), "native" or "text".
	ToolCalls string `json:"toolCalls,omitempty"`
	// ContextWindow and MaxOutput set the model's context window and
	// output limit in tokens for when the server does not say; 0 leaves
	// them unset.
	ContextWindow int `json:"contextWindow,omitempty"`
	MaxOutput     int `json:"maxOutput,omitempty"`
	// InputPrice and OutputPrice are the model's prices in US dollars per
	// million prompt and completion tokens, both or neither; 0 leaves one
	// unset.
	InputPrice  float64 `json:"inputPrice,omitempty"`
	OutputPrice float64 `json:"outputPrice,omitempty"`
}

// ProviderEdit changes some fields of a profile; nil fields stay.
type ProviderEdit struct {
	BaseURL *string `json:"baseUrl,omitempty"`
	Model   *string `json:"model,omitempty"`
	// Headers, if not nil, replace the profile's headers.
	Headers map[string]string `json:"headers,omitempty"`
	// APIKey, if not nil, replaces the key ("" removes it).
	APIKey *string `json:"apiKey,omitempty"`
	// ToolCalls, if not nil, replaces the tool-call mode.
	ToolCalls *string `json:"toolCalls,omitempty"`
	// ContextWindow and MaxOutput, if not nil, replace the settings (0
	// unsets one).
	ContextWindow *int `json:"contextWindow,omitempty"`
	MaxOutput     *int `json:"maxOutput,omitempty"`
	// InputPrice and OutputPrice, if not nil, replace the prices (0 unsets
	// one; the profile must end with both or neither).
	InputPrice  *float64 `json:"inputPrice,omitempty"`
	OutputPrice *float64 `json:"outputPrice,omitempty"`
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

// ProviderCheck is the result of Service.Test.
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

// ContextWindow is what Foya knows of a model's context window and output
// limit, and where it learnt it (Service.Window).
type ContextWindow struct {
	Provider string `json:"provider"`
	Model    string `json:"model"`
	// Window is the context window in tokens: what one request (the
	// conversation and the answer) may hold.
	Window int `json:"window"`
	// OutputLimit is the most tokens one answer may have.
	OutputLimit int `json:"outputLimit"`
	// Source is WindowFromServer, WindowFromSetting or WindowDefault (a
	// guess).
	Source string `json:"source"`
	// Detail says where the numbers came from, in words, such as "from
	// Ollama's /api/show".
	Detail string `json:"detail"`
	// ServerContext is the context the server says it runs the model with
	// (Ollama's num_ctx, llama.cpp's n_ctx, LM Studio's loaded context);
	// 0 when it does not say.
	ServerContext int `json:"serverContext,omitempty"`
	// Warning, if set, says why the window may be smaller in use than the
	// model allows (an Ollama model run with a smaller num_ctx).
	Warning string `json:"warning,omitempty"`
	// InputPrice and OutputPrice are the prices of Provider (the profile
	// a session's next run uses), in US dollars per million prompt and
	// completion tokens; absent when the profile has none.
	InputPrice  float64 `json:"inputPrice,omitempty"`
	OutputPrice float64 `json:"outputPrice,omitempty"`
}

// Where a ContextWindow came from.
const (
	WindowFromServer  = "server"
	WindowFromSetting = "setting"
	WindowDefault     = "default"
)
