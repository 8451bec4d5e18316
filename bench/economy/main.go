// Command economy measures what each agent sends the model on the shared
// comparison workloads (the scripted fake model of shared/bench beside the
// checkout): it runs the workloads with every request body kept, and prints
// per task the total input (bytes of every request, and tokens at Foya's
// four bytes a token), the uncached input (what a prompt cache cannot serve)
// and the floor (what the task must show the model).
//
// Uncached input: a request's prompt, in the order a server lays it out
// (instructions, tools, then the conversation's items), less its longest
// common prefix with the previous request of the same conversation.
// "cold" counts the first request whole; "warm" counts only what the steps
// add after it (the first request's system prompt and tools are the same in
// every session of the agent, so a cache shared across sessions serves
// them). Requests that offer no tools (titles, summaries) each count as a
// conversation of their own.
//
// The floor is the tool output the scripted calls must bring to the model,
// in raw bytes: the files read (read-heavy, edit20) and the commands'
// output (smoke, shell50). Edits bring nothing back that the model needs
// beyond "done". big-output has no floor: every agent shows a bounded part
// of 20 MB.
//
//	go build -o foya . && go run ./bench/economy -foya ./foya
//	go run ./bench/economy -foya ./foya -codex "$(command -v codex)" -scenarios read-heavy,edit20
package main

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

//go:embed dialects.json
var peerDialects []byte

func main() {
	foya := flag.String("foya", "", "the foya binary (empty: leave Foya out)")
	codex := flag.String("codex", "", "the Codex CLI (empty: leave Codex out)")
	shared := flag.String("shared", "../shared/bench", "the shared workloads' folder (fakeoai/, scenarios/, dialects.json)")
	scen := flag.String("scenarios", "smoke,shell50,read-heavy,big-output,edit20", "comma-separated scenarios")
	out := flag.String("out", "", "where runs and request bodies are kept (default: a new temporary folder)")
	asJSON := flag.Bool("json", false, "print the results as JSON too")
	flag.Parse()
	if err := run(*foya, *codex, *shared, strings.Split(*scen, ","), *out, *asJSON); err != nil {
		fmt.Fprintln(os.Stderr, "bench/economy:", err)
		os.Exit(1)
	}
}

// Result is one agent's figures on one workload.
type Result struct {
	Agent    string `json:"agent"`
	Scenario string `json:"scenario"`
	Verified string `json:"verified"`
	Requests int    `json:"requests"`
	// Total is the bytes of every request body; Tokens, Foya's estimate of
	// them (four bytes a token).
	Total  int64 `json:"total_bytes"`
	Tokens int64 `json:"total_tokens"`
	// First is the first request's size (system prompt, tools, prompt).
	First int64 `json:"first_bytes"`
	// Cold and Warm are the uncached input (see the package comment).
	Cold int64 `json:"uncached_cold_bytes"`
	Warm int64 `json:"uncached_warm_bytes"`
	// Floor is the tool output the task must show the model; 0: none.
	Floor int64 `json:"floor_bytes"`
}

func run(foya, codex, shared string, scenarios []string, out string, asJSON bool) error {
	if foya == "" && codex == "" {
		return errors.New("give -foya, -codex or both")
	}
	shared, err := filepath.Abs(shared)
	if err != nil {
		return err
	}
	if out == "" {
		if out, err = os.MkdirTemp("", "foya-economy-"); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	fake := filepath.Join(out, "fakeoai")
	build := exec.Command("go", "build", "-o", fake, "main.go")
	build.Dir = filepath.Join(shared, "fakeoai")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("building fakeoai: %w", err)
	}
	tmpl := filepath.Join(out, "ws-template")
	if _, err := os.Stat(tmpl); err != nil {
		if err := command(fake, "genws", "-dir", tmpl, "-files", "200", "-lines", "100").Run(); err != nil {
			return fmt.Errorf("genws: %w", err)
		}
	}
	dialects := filepath.Join(out, "dialects.json")
	if err := mergeDialects(filepath.Join(shared, "dialects.json"), dialects); err != nil {
		return err
	}
	type agent struct{ name, bin string }
	var agents []agent
	if foya != "" {
		if foya, err = filepath.Abs(foya); err != nil {
			return err
		}
		agents = append(agents, agent{"foya", foya})
	}
	if codex != "" {
		agents = append(agents, agent{"codex", codex})
	}
	var results []Result
	for _, s := range scenarios {
		for _, a := range agents {
			r, err := runOne(a.name, a.bin, fake, shared, dialects, tmpl, s, out)
			if err != nil {
				return fmt.Errorf("%s on %s: %w", a.name, s, err)
			}
			results = append(results, r)
		}
	}
	fmt.Printf("%-10s %-6s %5s %10s %9s %8s %10s %10s %9s %7s %7s  %s\n",
		"scenario", "agent", "reqs", "total_B", "tokens", "first_B", "uncached", "unc_warm", "floor_B", "cold/fl", "warm/fl", "verified")
	for _, r := range results {
		fmt.Printf("%-10s %-6s %5d %10d %9d %8d %10d %10d %9d %7s %7s  %s\n",
			r.Scenario, r.Agent, r.Requests, r.Total, r.Tokens, r.First, r.Cold, r.Warm, r.Floor,
			ratio(r.Cold, r.Floor), ratio(r.Warm, r.Floor), r.Verified)
	}
	if asJSON {
		b, _ := json.Marshal(results)
		fmt.Println(string(b))
	}
	return nil
}

func ratio(a, b int64) string {
	if b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", float64(a)/float64(b))
}

func command(name string, args ...string) *exec.Cmd {
	c := exec.Command(name, args...)
	c.Stderr = os.Stderr
	return c
}

// mergeDialects writes the shared dialects with the peers' (embedded) added.
func mergeDialects(sharedPath, to string) error {
	var all, peers map[string]json.RawMessage
	b, err := os.ReadFile(sharedPath)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, &all); err != nil {
		return fmt.Errorf("%s: %w", sharedPath, err)
	}
	if err := json.Unmarshal(peerDialects, &peers); err != nil {
		return fmt.Errorf("embedded dialects: %w", err)
	}
	for k, v := range peers {
		if _, ok := all[k]; !ok {
			all[k] = v
		}
	}
	b, err = json.MarshalIndent(all, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(to, b, 0o644)
}

func runOne(agent, bin, fake, shared, dialects, tmpl, scenario, out string) (Result, error) {
	res := Result{Agent: agent, Scenario: scenario}
	scnPath := filepath.Join(shared, "scenarios", scenario+".json")
	dir := filepath.Join(out, agent+"-"+scenario)
	if err := os.RemoveAll(dir); err != nil {
		return res, err
	}
	ws, home, bodies := filepath.Join(dir, "ws"), filepath.Join(dir, "home"), filepath.Join(dir, "bodies")
	if err := os.MkdirAll(filepath.Join(home, ".codex"), 0o755); err != nil {
		return res, err
	}
	if err := exec.Command("cp", "-r", tmpl, ws).Run(); err != nil {
		return res, fmt.Errorf("copying the workspace: %w", err)
	}
	portFile, state := filepath.Join(dir, "port"), filepath.Join(dir, "state.json")
	logf, err := os.Create(filepath.Join(dir, "fake.log"))
	if err != nil {
		return res, err
	}
	defer logf.Close()
	srv := exec.Command(fake, "serve", "-scenario", scnPath, "-dialects", dialects, "-agent", agent,
		"-workdir", ws, "-port-file", portFile, "-state", state, "-bodies", bodies)
	srv.Stdout, srv.Stderr = logf, logf
	if err := srv.Start(); err != nil {
		return res, err
	}
	defer func() {
		_ = srv.Process.Kill()
		_ = srv.Wait()
	}()
	var port string
	for range 200 {
		if b, err := os.ReadFile(portFile); err == nil && len(bytes.TrimSpace(b)) > 0 {
			port = string(bytes.TrimSpace(b))
			break
		}
		time.Sleep(25 * time.Millisecond)
	}
	if port == "" {
		return res, errors.New("fakeoai did not start (see fake.log)")
	}
	var prompt struct {
		Prompt string `json:"prompt"`
	}
	if err := readJSON(scnPath, &prompt); err != nil {
		return res, err
	}
	base := "http://127.0.0.1:" + port + "/v1"
	var cmd *exec.Cmd
	switch agent {
	case "foya":
		cmd = exec.Command(bin, "exec", "--base-url", base, "--api-key", "x", "--model", "m",
			"--approval", "full-access", "--max-steps", "1000", "--workdir", ws, "--db", filepath.Join(dir, "foya.db"), prompt.Prompt)
	case "codex":
		provider := fmt.Sprintf(`model_providers.fake={name="fake",base_url=%q,wire_api="responses",env_key="FAKE_KEY"}`, base)
		cmd = exec.Command(bin, "exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox",
			"-C", ws, "-m", "gpt-5-codex", "-c", provider, "-c", "model_provider=fake", prompt.Prompt)
	default:
		return res, fmt.Errorf("unknown agent %q", agent)
	}
	cmd.Env = append(filterEnv(os.Environ()), "HOME="+home, "XDG_DATA_HOME="+filepath.Join(home, ".local", "share"),
		"CODEX_HOME="+filepath.Join(home, ".codex"), "FAKE_KEY=x")
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	if err := cmd.Run(); err != nil {
		return res, fmt.Errorf("%w: %s", err, tail(stderr.String(), 2000))
	}
	v, err := command(fake, "verify", "-scenario", scnPath, "-state", state, "-workdir", ws).Output()
	if err != nil {
		return res, fmt.Errorf("verify: %w", err)
	}
	res.Verified = strings.TrimSpace(string(v))
	if err := measure(&res, bodies); err != nil {
		return res, err
	}
	res.Floor, err = floor(scnPath, tmpl)
	return res, err
}

func filterEnv(env []string) []string {
	var out []string
	for _, e := range env {
		if strings.HasPrefix(e, "OPENAI_") || strings.HasPrefix(e, "HOME=") || strings.HasPrefix(e, "XDG_DATA_HOME=") || strings.HasPrefix(e, "CODEX_HOME=") {
			continue
		}
		out = append(out, e)
	}
	return out
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// measure reads the kept request bodies in order and fills in the sizes.
func measure(res *Result, dir string) error {
	names, err := filepath.Glob(filepath.Join(dir, "req-*.json"))
	if err != nil {
		return err
	}
	sort.Strings(names)
	var prev []byte // the main conversation's last prompt
	for _, n := range names {
		body, err := os.ReadFile(n)
		if err != nil {
			return err
		}
		if len(body) == 0 {
			continue // GET /models
		}
		p, hasTools, err := promptOf(body)
		if err != nil {
			return fmt.Errorf("%s: %w", filepath.Base(n), err)
		}
		res.Requests++
		res.Total += int64(len(body))
		if res.First == 0 && hasTools {
			res.First = int64(len(body))
		}
		if !hasTools {
			res.Cold += int64(len(p))
			res.Warm += int64(len(p))
			continue
		}
		unc := int64(len(p) - commonPrefix(prev, p))
		res.Cold += unc
		if prev != nil {
			res.Warm += unc
		}
		prev = p
	}
	res.Tokens = res.Total / 4
	return nil
}

func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// promptOf lays a request body out in prompt order, as the server sees it:
// instructions, tools, then the conversation, each as sent.
func promptOf(body []byte) ([]byte, bool, error) {
	var req struct {
		Tools        json.RawMessage   `json:"tools"`
		Messages     []json.RawMessage `json:"messages"`
		Instructions json.RawMessage   `json:"instructions"`
		Input        json.RawMessage   `json:"input"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, false, err
	}
	hasTools := len(req.Tools) > 2 && !bytes.Equal(req.Tools, []byte("null"))
	var b bytes.Buffer
	b.Write(req.Instructions)
	b.Write(req.Tools)
	for _, m := range req.Messages {
		b.Write(m)
	}
	var items []json.RawMessage
	if json.Unmarshal(req.Input, &items) == nil {
		for _, it := range items {
			b.Write(it)
		}
	} else {
		b.Write(req.Input)
	}
	return b.Bytes(), hasTools, nil
}

// floor is what the scenario's calls must show the model, in raw bytes.
func floor(scnPath, ws string) (int64, error) {
	var scn struct {
		Name  string `json:"name"`
		Steps []struct {
			Calls []struct {
				Op     string            `json:"op"`
				Params map[string]string `json:"params"`
				Expect string            `json:"expect"`
			} `json:"calls"`
		} `json:"steps"`
	}
	if err := readJSON(scnPath, &scn); err != nil {
		return 0, err
	}
	var n int64
	for _, s := range scn.Steps {
		for _, c := range s.Calls {
			switch c.Op {
			case "read":
				fi, err := os.Stat(filepath.Join(ws, c.Params["path"]))
				if err != nil {
					return 0, err
				}
				n += fi.Size()
			case "shell":
				if c.Expect == "" {
					return 0, nil // big-output: no floor
				}
				n += int64(len(c.Expect)) + 1 // the output line and its newline
			}
		}
	}
	return n, nil
}
