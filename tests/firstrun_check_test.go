package tests

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"foya/backend/profiles"
	pt "foya/backend/provider/providertest"
)

// TestCheckServerSaysWhatHappened feeds the first run's "Test connection"
// (api CheckServer) the bad inputs a person meets: a base URL that is not a
// URL, no such host, a port nothing listens on, a page that is not a model
// list, a wrong path, a key missing, a key refused (and echoed back by the
// server), then a server that takes the key. Each answer is a result, not
// an error: a status, the form field it is about, one sentence that names
// no Go error, and the technical detail apart; the key is in none of them.
//
// spec: W4
func TestCheckServerSaysWhatHappened(t *testing.T) {
	const key = "sk-typed-in-the-form-789"
	h := newHarness(t, nil)
	svc := panelService(h)
	good := pt.New(t)
	good.RequireKey(key)
	good.SetModels("m-small", "m-large", "m-small")
	html := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<html><body>It works!</body></html>"))
	}))
	defer html.Close()
	noPath := httptest.NewServer(http.NotFoundHandler())
	defer noPath.Close()

	cases := []struct {
		name, baseURL, key string
		status, field      string
		message            string // a piece of the sentence
		detail             string // a piece of the technical detail
		models             []string
	}{
		{"empty", "  ", "", profiles.CheckBadURL, profiles.FieldBaseURL, "Give the server's base URL", "", nil},
		{"not a URL", "api.example.com/v1", "", profiles.CheckBadURL, profiles.FieldBaseURL, "not a web address", "http:// or https://", nil},
		{"no such host", "http://no-such-host.invalid/v1", "", profiles.CheckUnknownHost, profiles.FieldBaseURL,
			"No such host: no-such-host.invalid", "no such host", nil},
		{"connection refused", "http://127.0.0.1:" + closedPort(t) + "/v1", "", profiles.CheckDown, profiles.FieldBaseURL,
			"the connection was refused", "connect", nil},
		{"not JSON", html.URL + "/v1", "", profiles.CheckNotModels, profiles.FieldBaseURL,
			"not with a model list", "It works!", nil},
		{"no /models", noPath.URL, "", profiles.CheckNoModelList, profiles.FieldBaseURL, "no model list at this address", "404", nil},
		{"key missing", good.URL + "/", "", profiles.CheckUnauthorized, profiles.FieldAPIKey, "wants an API key", "401", nil},
		{"key refused", good.URL, "sk-wrong-" + key, profiles.CheckUnauthorized, profiles.FieldAPIKey, "refused this API key", "401", nil},
		{"key taken", good.URL + "/", key, profiles.CheckOK, "", "lists 2 models", "200", []string{"m-large", "m-small"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := svc.CheckServer(profiles.ServerProbe{BaseURL: c.baseURL, APIKey: c.key})
			if err != nil {
				t.Fatalf("CheckServer(%q) = error %v; want a result", c.baseURL, err)
			}
			if got.Status != c.status || got.Field != c.field {
				t.Errorf("CheckServer(%q) = status %q field %q (%q); want %q %q", c.baseURL, got.Status, got.Field, got.Message, c.status, c.field)
			}
			if !strings.Contains(got.Message, c.message) || !strings.Contains(got.Detail, c.detail) {
				t.Errorf("CheckServer(%q) = message %q detail %q; want %q in the message, %q in the detail", c.baseURL, got.Message, got.Detail, c.message, c.detail)
			}
			// The sentence is for a person: it starts with a capital, ends
			// with a period and carries no Go error text.
			if m := got.Message; m == "" || m[len(m)-1] != '.' || strings.ToUpper(m[:1]) != m[:1] || strings.Contains(m, "dial tcp") || strings.Contains(m, "Get \"") {
				t.Errorf("CheckServer(%q) message %q; want one sentence without the technical detail", c.baseURL, m)
			}
			if strings.Join(got.Models, ",") != strings.Join(c.models, ",") {
				t.Errorf("CheckServer(%q) models = %v; want %v", c.baseURL, got.Models, c.models)
			}
			for _, text := range []string{got.Message, got.Detail} {
				if strings.Contains(text, key) {
					t.Errorf("CheckServer(%q) shows the key: %q", c.baseURL, text)
				}
			}
		})
	}
	if n := len(good.Requests()); n != 0 {
		t.Errorf("the server was sent %d chat requests; a check only lists its models", n)
	}
	if ps, err := svc.Providers(); err != nil || len(ps) != 0 {
		t.Errorf("Providers after the checks = %+v, %v; want none: a check saves nothing", ps, err)
	}
}
