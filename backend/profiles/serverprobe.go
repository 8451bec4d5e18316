package profiles

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"syscall"
	"time"
)

// serverCheckTimeout bounds CheckServer: a remote provider may take a few
// seconds to list its models, a person waiting on a button not much more.
const serverCheckTimeout = 15 * time.Second

// CheckServer asks a server a person typed in (a base URL and maybe a key,
// not yet a profile) for its model list: GET {base}/models. Every outcome
// is a result, not an error: a base URL that is not a URL, a host name
// that does not resolve, a refused connection, silence, a refused key, a
// wrong path, an answer that is not a model list. Each says in one
// sentence what happened and what to do, names the form field it is about
// and keeps the technical detail apart. The key goes to that server only,
// is kept nowhere and is masked in everything returned.
func (s *Service) CheckServer(ctx context.Context, in ServerProbe) ServerCheck {
	start := time.Now()
	key := strings.TrimSpace(in.APIKey)
	res := s.checkServer(ctx, strings.TrimRight(strings.TrimSpace(in.BaseURL), "/"), key)
	res.Millis = time.Since(start).Milliseconds()
	if key != "" {
		res.Message = strings.ReplaceAll(res.Message, key, "[API key]")
		res.Detail = strings.ReplaceAll(res.Detail, key, "[API key]")
	}
	res.Message, res.Detail = s.mask(res.Message), s.mask(res.Detail)
	if res.Models == nil {
		res.Models = []string{}
	}
	return res
}

func (s *Service) checkServer(ctx context.Context, base, key string) ServerCheck {
	res := ServerCheck{BaseURL: base, Field: FieldBaseURL}
	if base == "" {
		res.Status = CheckBadURL
		res.Message = "Give the server's base URL, such as https://api.openai.com/v1."
		return res
	}
	if err := CheckBaseURL(base); err != nil {
		res.Status = CheckBadURL
		res.Message = "This is not a web address Foya can use: give one that starts with http:// or https://, such as http://127.0.0.1:8080/v1."
		res.Detail = err.Error()
		return res
	}
	u, _ := url.Parse(base) // CheckBaseURL parsed it
	ctx, cancel := context.WithTimeout(ctx, serverCheckTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/models", nil)
	if err != nil {
		res.Status, res.Message, res.Detail = CheckBadURL, "This base URL cannot be asked for a model list; check it.", err.Error()
		return res
	}
	req.Header.Set("Accept", "application/json")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		res.Detail = err.Error()
		res.Status, res.Message = unreachable(err, u.Host)
		return res
	}
	defer resp.Body.Close()
	res.HTTPStatus = resp.StatusCode
	body, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		res.Detail = "reading the model list: " + err.Error()
		res.Status, res.Message = unreachable(err, u.Host)
		return res
	}
	answer := fmt.Sprintf("GET %s/models: %d %s", base, resp.StatusCode, http.StatusText(resp.StatusCode))
	switch {
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		res.Status, res.Field = CheckUnauthorized, FieldAPIKey
		res.Detail = answer + ": " + serverText(body)
		if key == "" {
			res.Message = "The server wants an API key: give yours in the API key field."
		} else {
			res.Message = "The server refused this API key: check that it is whole and still valid, or make a new one."
		}
		return res
	case resp.StatusCode == http.StatusNotFound:
		res.Status = CheckNoModelList
		res.Detail = answer + ": " + serverText(body)
		res.Message = "The server answered, but has no model list at this address: check the base URL (it usually ends in /v1)."
		return res
	case resp.StatusCode != http.StatusOK:
		res.Status = CheckFailed
		res.Detail = answer + ": " + serverText(body)
		res.Message = fmt.Sprintf("The server answered with an error (%d %s) when asked for its models; try again later, or check the base URL.",
			resp.StatusCode, http.StatusText(resp.StatusCode))
		return res
	}
	ids, ok := parseOpenAIModels(body)
	if !ok {
		ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
		res.Status = CheckNotModels
		res.Detail = fmt.Sprintf("%s, Content-Type %q, body: %s", answer, ct, firstWords(string(body)))
		res.Message = "Something answers there, but not with a model list: this does not look like an OpenAI-compatible server; check the base URL (it usually ends in /v1)."
		return res
	}
	slices.Sort(ids)
	res.Models = slices.Compact(ids)
	res.Status, res.Field = CheckOK, ""
	res.Detail = answer
	switch n := len(res.Models); n {
	case 0:
		res.Message = "Reachable, but the server lists no model: load or pull one there, or type the model's name."
	case 1:
		res.Message = "Reachable: the server lists 1 model."
	default:
		res.Message = fmt.Sprintf("Reachable: the server lists %d models.", n)
	}
	return res
}

// unreachable sorts a failed request: a host name that does not resolve, a
// refused connection, silence, an untrusted certificate, or another
// network failure; each with a sentence saying what to do.
func unreachable(err error, host string) (string, string) {
	var dns *net.DNSError
	var cert *tls.CertificateVerificationError
	var op *net.OpError
	switch {
	case errors.As(err, &dns):
		return CheckUnknownHost, fmt.Sprintf("No such host: %s is not a name this machine can find; check the spelling of the base URL, and that you are online.", dns.Name)
	case errors.Is(err, syscall.ECONNREFUSED):
		return CheckDown, fmt.Sprintf("Nothing answers at %s: the connection was refused. Start the server, or check the port in the base URL.", host)
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(err, syscall.ETIMEDOUT):
		return DiscoverTimeout, fmt.Sprintf("%s did not answer within %s: check the address, or try again when the server is less busy.", host, serverCheckTimeout)
	case errors.As(err, &cert):
		return CheckFailed, fmt.Sprintf("%s answered with a certificate this machine does not trust: check the address (http:// or https://).", host)
	case errors.As(err, &op) && op.Op == "dial":
		return CheckDown, fmt.Sprintf("Could not reach %s: check the address and your network.", host)
	}
	return CheckFailed, fmt.Sprintf("The request to %s failed before an answer came: check the address (http:// or https://) and the port.", host)
}
