package profiles

// The first run's DTOs for a server the person types in (not yet a
// profile): what to ask, and what the server answered. Their TypeScript is
// generated with dto.go's (tygo.yaml).

// ServerProbe is a server to ask for its model list before it is saved:
// its base URL and, if it wants one, the API key typed beside it.
type ServerProbe struct {
	BaseURL string `json:"baseUrl"`
	// APIKey, if not empty, is sent as a bearer token to BaseURL only; it
	// is never stored by the check nor returned.
	APIKey string `json:"apiKey,omitempty"`
}

// ServerCheck is what CheckServer found: whether the server answered, took
// the key, and which models it lists.
type ServerCheck struct {
	// BaseURL is the URL asked, without a final slash: the one to save.
	BaseURL string `json:"baseUrl"`
	// Status is ok, bad-url, unknown-host, down, timeout, unauthorized,
	// no-model-list, not-models or failed.
	Status string `json:"status"`
	// Field names the form field the outcome is about (FieldBaseURL,
	// FieldAPIKey), "" when it is about none.
	Field string `json:"field,omitempty"`
	// Message is one sentence a person reads: what happened and what to do.
	Message string `json:"message"`
	// Detail is the technical detail (the error, the HTTP status, the
	// start of the body) for whoever wants it; it never holds the key.
	Detail     string   `json:"detail,omitempty"`
	HTTPStatus int      `json:"httpStatus,omitempty"`
	Models     []string `json:"models"`
	Millis     int64    `json:"millis"`
}

// Outcomes of CheckServer besides CheckOK, CheckUnauthorized, CheckDown,
// CheckFailed and DiscoverTimeout.
const (
	CheckBadURL      = "bad-url"       // the base URL is not an http(s) URL
	CheckUnknownHost = "unknown-host"  // the host name does not resolve
	CheckNoModelList = "no-model-list" // 404 at {base}/models: a wrong path
	CheckNotModels   = "not-models"    // 200, but not an OpenAI model list
)

// The form fields a ServerCheck may be about.
const (
	FieldBaseURL = "baseUrl"
	FieldAPIKey  = "apiKey"
)
