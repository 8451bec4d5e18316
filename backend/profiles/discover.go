package profiles

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"foya/backend/fault"
	"foya/backend/store"
)

// The first run's discovery: the model servers this machine may already
// have, so that a person picks one instead of typing a URL.

// SettingDiscoverPorts lists the loopback ports the first run probes for
// model servers, separated by commas; unset means DefaultDiscoverPorts.
// Tests name the ports of their own scripted servers here.
const SettingDiscoverPorts = "discover.ports"

// discoverTimeout bounds the probe of one candidate: a model server on
// loopback lists its models at once; a port that keeps silent is not one.
const discoverTimeout = 3 * time.Second

// knownServers names the servers that listen on a port by default.
var knownServers = map[int]struct{ id, name string }{
	11434: {"ollama", "Ollama"},
	1234:  {"lmstudio", "LM Studio"},
	8080:  {"llamacpp", "llama.cpp"},
	8000:  {"vllm", "vLLM"},
}

// DefaultDiscoverPorts are the ports of Ollama, LM Studio, llama.cpp's
// server and vLLM.
var DefaultDiscoverPorts = []int{11434, 1234, 8080, 8000}

// envBaseURL is where OPENAI_API_KEY goes when OPENAI_BASE_URL is unset.
const envBaseURL = "https://api.openai.com/v1"

// ModelServers lists the candidates the first run probes, without probing
// them: the server of OPENAI_API_KEY and OPENAI_BASE_URL (from the
// kernel's environment; the key itself is never returned) and a loopback
// server on each port of SettingDiscoverPorts.
func (s *Service) ModelServers(ctx context.Context) ([]ModelServer, error) {
	ports, err := s.discoverPorts(ctx)
	if err != nil {
		return nil, err
	}
	base := strings.TrimRight(os.Getenv("OPENAI_BASE_URL"), "/")
	env := ModelServer{ID: "env", Name: "OPENAI_API_KEY and OPENAI_BASE_URL", BaseURL: base,
		KeyPresent: os.Getenv("OPENAI_API_KEY") != "", FromEnv: true}
	if base == "" {
		env.BaseURL = envBaseURL
	}
	env.Local = isLoopbackURL(env.BaseURL)
	out := []ModelServer{env}
	for _, p := range ports {
		id, name := "port-"+strconv.Itoa(p), fmt.Sprintf("OpenAI-compatible server on port %d", p)
		if s, ok := knownServers[p]; ok {
			id, name = s.id, s.name
		}
		out = append(out, ModelServer{ID: id, Name: name, BaseURL: fmt.Sprintf("http://127.0.0.1:%d/v1", p), Local: true})
	}
	return out, nil
}

// ProbeModelServer probes one candidate of ModelServers by its ID: its
// model list, with a short timeout. A server that is down, slow, refuses
// the key or answers something else is a status of the result, not an
// error; an unknown ID is not_found.
func (s *Service) ProbeModelServer(ctx context.Context, id string) (ModelServer, error) {
	all, err := s.ModelServers(ctx)
	if err != nil {
		return ModelServer{}, err
	}
	i := slices.IndexFunc(all, func(s ModelServer) bool { return s.ID == id })
	if i < 0 {
		return ModelServer{}, fault.Errorf(store.ErrNotFound, "no model server candidate %q: the candidates are those ModelServers lists", id)
	}
	return s.probe(ctx, all[i]), nil
}

// DiscoverModelServers probes every candidate of ModelServers at once and
// returns them in the same order, each with its status and models.
func (s *Service) DiscoverModelServers(ctx context.Context) ([]ModelServer, error) {
	all, err := s.ModelServers(ctx)
	if err != nil {
		return nil, err
	}
	var wg sync.WaitGroup
	for i := range all {
		wg.Go(func() { all[i] = s.probe(ctx, all[i]) })
	}
	wg.Wait()
	return all, nil
}

// discoverPorts reads SettingDiscoverPorts.
func (s *Service) discoverPorts(ctx context.Context) ([]int, error) {
	v, ok, err := s.settings.Setting(ctx, SettingDiscoverPorts)
	if err != nil {
		return nil, err
	}
	if !ok {
		return DefaultDiscoverPorts, nil
	}
	ports, err := ParsePorts(v)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", SettingDiscoverPorts, err)
	}
	return ports, nil
}

// ParsePorts reads a comma-separated list of TCP ports, each once.
func ParsePorts(v string) ([]int, error) {
	var ports []int
	for f := range strings.SplitSeq(v, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		p, err := strconv.Atoi(f)
		if err != nil || p < 1 || p > 65535 {
			return nil, fmt.Errorf("%q is not a port: give port numbers (1 to 65535) separated by commas, such as 11434,1234", f)
		}
		if !slices.Contains(ports, p) {
			ports = append(ports, p)
		}
	}
	if len(ports) == 0 {
		return nil, errors.New("no port given: give at least one port, such as 11434")
	}
	return ports, nil
}

// JoinPorts writes ports as ParsePorts reads them.
func JoinPorts(ports []int) string {
	s := make([]string, len(ports))
	for i, p := range ports {
		s[i] = strconv.Itoa(p)
	}
	return strings.Join(s, ",")
}

// probe asks a candidate for its models. The key of the environment is
// sent only to the candidate of the environment, and masked in what comes
// back.
func (s *Service) probe(ctx context.Context, m ModelServer) ModelServer {
	key := ""
	if m.FromEnv {
		key = os.Getenv("OPENAI_API_KEY")
		if key == "" {
			m.Status = DiscoverNoKey
			m.Message = "OPENAI_API_KEY is not set; set it (and OPENAI_BASE_URL for a server other than OpenAI) before starting Foya, or connect to a provider in the form below"
			return m
		}
	}
	ctx, cancel := context.WithTimeout(ctx, discoverTimeout)
	defer cancel()
	start := time.Now()
	m.Models, m.Status, m.Message = listModels(ctx, m.BaseURL+"/models", key, parseOpenAIModels)
	if m.Local && !m.FromEnv && m.Status == CheckFailed {
		// Ollama also lists its models at /api/tags (an older one only
		// there), whatever port it was told to listen on.
		root := strings.TrimSuffix(m.BaseURL, "/v1")
		if ids, st, msg := listModels(ctx, root+"/api/tags", "", parseOllamaTags); st == CheckOK {
			m.Models, m.Status, m.Message = ids, st, msg
		}
	}
	m.Millis = time.Since(start).Milliseconds()
	if key != "" {
		m.Message = strings.ReplaceAll(m.Message, key, "[OPENAI_API_KEY]")
	}
	m.Message = s.mask(m.Message)
	return m
}

// listModels GETs url and reads its model list with parse; the status is
// one of CheckOK, CheckUnauthorized, CheckDown, DiscoverTimeout or
// CheckFailed, and the message says what happened and what to do.
func listModels(ctx context.Context, url, key string, parse func([]byte) ([]string, bool)) ([]string, string, string) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, CheckFailed, err.Error()
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return nil, DiscoverTimeout, fmt.Sprintf("no answer within %s: something listens there but it is not answering like a model server", discoverTimeout)
		}
		return nil, CheckDown, "nothing answers there (" + downReason(err) + "); start the server, or connect to another below"
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return nil, DiscoverTimeout, fmt.Sprintf("the model list did not arrive within %s", discoverTimeout)
		}
		return nil, CheckFailed, "reading the model list: " + err.Error()
	}
	switch {
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return nil, CheckUnauthorized, fmt.Sprintf("the server wants an API key (%d %s): %s; give its key when you save it",
			resp.StatusCode, http.StatusText(resp.StatusCode), serverText(body))
	case resp.StatusCode != http.StatusOK:
		return nil, CheckFailed, fmt.Sprintf("GET %s: %d %s: %s; is this an OpenAI-compatible server?",
			req.URL.Path, resp.StatusCode, http.StatusText(resp.StatusCode), serverText(body))
	}
	ids, ok := parse(body)
	if !ok {
		return nil, CheckFailed, "the port answers, but not with a model list: it is not an OpenAI-compatible server"
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	if len(ids) == 1 {
		return ids, CheckOK, "1 model offered"
	}
	if len(ids) == 0 {
		return nil, CheckOK, "reachable, but it offers no model: load or pull one in the server, then look again"
	}
	return ids, CheckOK, fmt.Sprintf("%d models offered", len(ids))
}

func parseOpenAIModels(body []byte) ([]string, bool) {
	var list struct {
		Data *[]struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if json.Unmarshal(body, &list) != nil || list.Data == nil {
		return nil, false
	}
	ids := []string{}
	for _, m := range *list.Data {
		if m.ID != "" {
			ids = append(ids, m.ID)
		}
	}
	return ids, true
}

func parseOllamaTags(body []byte) ([]string, bool) {
	var tags struct {
		Models *[]struct {
			Name string `json:"name"`
		} `json:"models"`
	}
	if json.Unmarshal(body, &tags) != nil || tags.Models == nil {
		return nil, false
	}
	ids := []string{}
	for _, m := range *tags.Models {
		if m.Name != "" {
			ids = append(ids, m.Name)
		}
	}
	return ids, true
}

// isLoopbackURL reports whether a base URL names this machine.
func isLoopbackURL(u string) bool {
	for _, p := range []string{"http://127.", "http://localhost", "http://[::1]"} {
		if strings.HasPrefix(u, p) {
			return true
		}
	}
	return false
}

// EnvAPIKey is the OPENAI_API_KEY of the kernel's environment, for saving
// the environment's server as a profile without the key leaving the
// kernel.
func EnvAPIKey() string { return os.Getenv("OPENAI_API_KEY") }
