//go:build linux

package tests

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"foya/backend/event"
	"foya/backend/kernel"
	"foya/backend/llm"
	"foya/backend/provider"
	pt "foya/backend/provider/providertest"
	"foya/backend/tools"
)

// Test secrets: shaped like the real ones, valid nowhere.
const (
	testOpenAIKey  = "sk-test-foya-openai-0123456789abcdefABCDEF"
	testAWSSecret  = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYFOYATESTKEY"
	testGitHubTok  = "ghp_foyatest0123456789abcdefghijABCDEFGH"
	testProvider   = "prov-key-foya-test-9f8e7d6c5b4a39281706"
	testAllowedTok = "allowed-token-foya-test-5566778899aabb"
	testDeniedVal  = "denied-setting-foya-test-0a1b2c3d4e5f"
)

// setSecretEnv puts test secrets into this process's environment, as a
// user's shell would have them when they start Foya: credentials under
// their usual names, the provider's key under a name that does not look
// secret, a token the user allows and a harmless-looking variable the user
// denies.
func setSecretEnv(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", testOpenAIKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", testAWSSecret)
	t.Setenv("GITHUB_TOKEN", testGitHubTok)
	t.Setenv("FOYA_TEST_PLAIN_NAME", testProvider)
	t.Setenv("FOYA_TEST_ALLOWED_TOKEN", testAllowedTok)
	t.Setenv("FOYA_TEST_DENIED", testDeniedVal)
}

var testSecretValues = []string{testOpenAIKey, testAWSSecret, testGitHubTok, testProvider, testAllowedTok, testDeniedVal}

// openSecretHarness is newHarness with the provider's key known to the
// kernel, as foya exec does.
func openSecretHarness(t *testing.T, turns ...pt.Turn) *harness {
	t.Helper()
	h := &harness{t: t, dir: t.TempDir()}
	h.db = filepath.Join(t.TempDir(), "foya.db")
	h.srv = pt.New(t, turns...)
	k, err := kernel.Open(context.Background(), kernel.Options{DBPath: h.db, TextFlush: time.Millisecond,
		Secrets: map[string]string{"provider API key": testProvider}})
	if err != nil {
		t.Fatal(err)
	}
	h.k = k
	t.Cleanup(func() { k.Close() })
	k.Subscribe(func(ev llm.Event) {
		h.mu.Lock()
		h.events = append(h.events, ev)
		h.mu.Unlock()
	})
	return h
}

// dbBytes is the database file with its -wal and -shm, read raw.
func dbBytes(t *testing.T, db string) []byte {
	t.Helper()
	var all []byte
	for _, suffix := range []string{"", "-wal", "-shm"} {
		b, err := os.ReadFile(db + suffix)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		all = append(all, b...)
	}
	if len(all) == 0 {
		t.Fatalf("no database at %s", db)
	}
	return all
}

// assertNoSecret fails for each test secret found in b.
func assertNoSecret(t *testing.T, where string, b []byte) {
	t.Helper()
	for _, v := range testSecretValues {
		if bytes.Contains(b, []byte(v)) {
			t.Errorf("%s holds the secret %.12s…", where, v)
		}
	}
}

// TestSecretsStayOutOfCommandsModelAndDB runs env, cat of a file holding
// the keys (in the foreground, with progress, and in the background), read
// of that file, and a check of which variables a command has, through the
// kernel in every mode. Secret variables are not in a command's
// environment (the provider's key under any name, a denied variable
// neither; an allow-listed one is), no secret value reaches the model's
// requests, and none is anywhere in the SQLite files after the kernel
// closed.
//
// spec: A1, A2, B1
func TestSecretsStayOutOfCommandsModelAndDB(t *testing.T) {
	for _, mode := range []string{"manual", "auto", "full_access"} {
		t.Run(mode, func(t *testing.T) {
			if mode != "full_access" {
				needSandbox(t)
			}
			setSecretEnv(t)
			bash := func(id string, args map[string]any) pt.Call {
				raw, _ := json.Marshal(args)
				return call(id, "bash", string(raw))
			}
			h := openSecretHarness(t,
				pt.Calls(
					bash("env", map[string]any{"command": "env"}),
					bash("cat", map[string]any{"command": "cat secret.txt"}),
					bash("progress", map[string]any{"command": "cat secret.txt; sleep 1.5"}),
					bash("has", map[string]any{"command": `echo "openai=${#OPENAI_API_KEY} aws=${#AWS_SECRET_ACCESS_KEY} github=${#GITHUB_TOKEN}" ` +
						`"plain=${#FOYA_TEST_PLAIN_NAME} denied=${#FOYA_TEST_DENIED} allowed=${#FOYA_TEST_ALLOWED_TOKEN}"; ` +
						`printf %s "$FOYA_TEST_ALLOWED_TOKEN" | sha256sum; ` +
						`tr '\0' '\n' < /proc/$PPID/environ | grep -c -e OPENAI -e AWS_SECRET -e GITHUB_TOKEN || true`}),
					call("read", "read", fmt.Sprintf(`{"path":%q}`, "secret.txt")),
					bash("bg", map[string]any{"command": "cat secret.txt; env; sleep 0.2; echo bg-done", "run_in_background": true}),
				),
				pt.Calls(bash("wait", map[string]any{"command": "sleep 0.5"})),
				pt.Calls(call("out", "bash_output", `{"id":"bg1"}`)),
				pt.Say("done"))
			writeFileT(t, filepath.Join(h.dir, "secret.txt"), strings.Join([]string{
				"openai " + testOpenAIKey, "aws " + testAWSSecret, "github " + testGitHubTok,
				"provider " + testProvider, "allowed " + testAllowedTok, "denied " + testDeniedVal, ""}, "\n"))
			ctx := context.Background()
			if err := h.k.SetSetting(ctx, kernel.SettingEnvAllow, "FOYA_TEST_ALLOWED_*, FOYA_TEST_PLAIN_NAME"); err != nil {
				t.Fatal(err)
			}
			if err := h.k.SetSetting(ctx, kernel.SettingEnvDeny, "FOYA_TEST_DENIED"); err != nil {
				t.Fatal(err)
			}
			defer (&answerer{}).watch(h.k, func(kernel.Approval) kernel.Answer { return kernel.Answer{Choice: kernel.AllowOnce} })()
			sess := h.session(mode)
			model, err := provider.New(provider.Config{BaseURL: h.srv.URL, APIKey: testProvider, Model: "m", MaxRetries: -1})
			if err != nil {
				t.Fatal(err)
			}
			run, err := h.k.Run(ctx, kernel.RunOptions{SessionID: sess.ID, Prompt: "show me the environment", Model: model})
			if err != nil || run.Status != kernel.RunCompleted {
				t.Fatalf("run %s %s %v", run.Status, run.Error, err)
			}

			results := map[string]string{}
			for _, req := range h.srv.Requests() {
				assertNoSecret(t, "a request to the model", req.Raw)
				for _, m := range toolMessages(req) {
					results[m.ToolCallID] = m.Content
				}
			}
			for _, id := range []string{"env", "cat", "progress", "read", "out"} {
				if !strings.Contains(results[id], "[secret ") {
					t.Errorf("%s: no masked secret in %q", id, results[id])
				}
			}
			if strings.Contains(results["env"], "OPENAI_API_KEY=") || strings.Contains(results["env"], "GITHUB_TOKEN=") ||
				strings.Contains(results["env"], "AWS_SECRET_ACCESS_KEY=") || strings.Contains(results["env"], "FOYA_TEST_DENIED=") {
				t.Errorf("env shows a secret variable:\n%s", results["env"])
			}
			wantHas := fmt.Sprintf("openai=0 aws=0 github=0 plain=0 denied=0 allowed=%d", len(testAllowedTok))
			if !strings.Contains(results["has"], wantHas) {
				t.Errorf("the command's variables: %q; want %q", results["has"], wantHas)
			}
			if sum := sha256hex(testAllowedTok); !strings.Contains(results["has"], sum) {
				t.Errorf("the allowed variable did not come through intact: %q; want its sha256 %s", results["has"], sum)
			}
			if !strings.Contains(results["has"], "\n0\n") {
				t.Errorf("the command's parent (the sandbox helper) holds Foya's secret variables: %q", results["has"])
			}
			// The live output went out as tool.update progress, masked.
			progressed := false
			for _, ev := range h.eventList() {
				if ev.Type == event.TypeToolUpdate && strings.Contains(string(ev.Data), "progress") && strings.Contains(string(ev.Data), `"progress"`) &&
					strings.Contains(string(ev.Data), "[secret ") {
					progressed = true
				}
				assertNoSecret(t, "event "+ev.Type, ev.Data)
			}
			if !progressed {
				t.Error("no masked tool.update progress event")
			}
			if err := h.k.Close(); err != nil {
				t.Fatal(err)
			}
			assertNoSecret(t, "the database", dbBytes(t, h.db))
		})
	}
}

// TestExecKeepsProviderKeyFromCommands runs the real foya exec with the key
// in OPENAI_API_KEY (its default for --api-key) and again under a name that
// looks harmless: a Full Access command that prints its environment, a
// file holding the key and foya exec's own /proc environ shows the model
// none of it, and the database holds none.
//
// spec: A2
func TestExecKeepsProviderKeyFromCommands(t *testing.T) {
	for _, viaEnv := range []bool{true, false} {
		t.Run(fmt.Sprintf("viaEnv=%v", viaEnv), func(t *testing.T) {
			dir := t.TempDir()
			writeFileT(t, filepath.Join(dir, "key.txt"), "the key is "+testOpenAIKey+"\n")
			// The last part reads foya exec's own environment: the helper's
			// parent's /proc/PID/environ.
			script := `env; cat key.txt; tr '\0' '\n' < /proc/$(cut -d' ' -f4 /proc/$PPID/stat)/environ | grep -e OPENAI_API_KEY= -e INNOCENT_LOOKING=`
			callArgs, _ := json.Marshal(map[string]string{"command": script})
			srv := pt.New(t, pt.Calls(call("c1", "bash", string(callArgs))), pt.Say("done"))
			db := filepath.Join(t.TempDir(), "foya.db")
			self, _ := os.Executable()
			args := []string{"exec", "--base-url", srv.URL, "--model", "m", "--db", db, "--workdir", dir,
				"--approval", "full-access", "--json", "print the environment"}
			env := append(os.Environ(), "FOYA_TEST_CHILD=exec")
			if viaEnv {
				env = append(env, "OPENAI_API_KEY="+testOpenAIKey)
			} else {
				args = append([]string{"exec", "--api-key", testOpenAIKey}, args[1:]...)
				env = append(env, "OPENAI_API_KEY=", "INNOCENT_LOOKING="+testOpenAIKey)
			}
			cmd := exec.Command(self, args...)
			cmd.Env = env
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("foya exec: %v\n%s", err, out)
			}
			own := "INNOCENT_LOOKING=[secret "
			if viaEnv {
				own = "OPENAI_API_KEY=[secret "
			}
			if !bytes.Contains(out, []byte(own)) {
				t.Errorf("foya exec's events do not show its own environ, masked (%q):\n%s", own, out)
			}
			if bytes.Contains(out, []byte(testOpenAIKey)) {
				t.Errorf("foya exec printed the key in its events")
			}
			reqs := srv.Requests()
			for _, req := range reqs {
				if bytes.Contains(req.Raw, []byte(testOpenAIKey)) {
					t.Errorf("a request to the model holds the key in its body")
				}
			}
			if len(reqs) == 0 || !strings.Contains(reqs[0].Header.Get("Authorization"), testOpenAIKey) {
				t.Errorf("the key was not used to talk to the model (the test would prove nothing)")
			}
			b := dbBytes(t, db)
			if bytes.Contains(b, []byte(testOpenAIKey)) {
				t.Errorf("the database holds the key")
			}
		})
	}
}

func writeFileT(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func sha256hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// leaker is a tool that returns what it is given everywhere a result can
// carry text: its result, its display diff and its progress.
type leaker struct{}

func (leaker) Spec() tools.Spec {
	return tools.Spec{Name: "leak", Description: "Repeats a value.", Schema: json.RawMessage(
		`{"type":"object","properties":{"value":{"type":"string"}},"required":["value"]}`)}
}

func (leaker) Run(ctx context.Context, rc *tools.RunContext, c tools.Call) (tools.Result, error) {
	var a struct{ Value string }
	json.Unmarshal(c.Arguments, &a)
	rc.Report(event.Progress{Tail: "progress " + os.Getenv(a.Value)})
	v := os.Getenv(a.Value)
	return tools.Result{Text: "result " + v, DisplayDiff: "+diff " + v}, nil
}

// TestMaskCoversEveryTool runs a tool that is not the shell and returns a
// known secret (with characters JSON escapes) in its text, its display
// diff and its progress: the model, the events and the database see it
// masked (the engine masks every tool's result, MCP ones too).
//
// spec: A2
func TestMaskCoversEveryTool(t *testing.T) {
	const odd = `odd"<secret>&\value-0123456789`
	t.Setenv("FOYA_TEST_ODD_TOKEN", odd)
	h := &harness{t: t, dir: t.TempDir()}
	h.db = filepath.Join(t.TempDir(), "foya.db")
	h.srv = pt.New(t, pt.Calls(call("l1", "leak", `{"value":"FOYA_TEST_ODD_TOKEN"}`)), pt.Say("done"))
	k, err := kernel.Open(context.Background(), kernel.Options{DBPath: h.db, Tools: []tools.Tool{leaker{}}, TextFlush: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	h.k = k
	t.Cleanup(func() { k.Close() })
	k.Subscribe(func(ev llm.Event) {
		h.mu.Lock()
		h.events = append(h.events, ev)
		h.mu.Unlock()
	})
	if run := h.run("leak it"); run.Status != kernel.RunCompleted {
		t.Fatalf("run %s %s", run.Status, run.Error)
	}
	evs := h.eventList()
	esc, _ := json.Marshal(odd)
	forms := [][]byte{[]byte(odd), esc[1 : len(esc)-1]}
	check := func(where string, b []byte) {
		for _, f := range forms {
			if bytes.Contains(b, f) {
				t.Errorf("%s holds the secret", where)
			}
		}
	}
	masked := 0
	for _, ev := range evs {
		check("event "+ev.Type, ev.Data)
		if !json.Valid(ev.Data) {
			t.Errorf("event %s is not JSON after masking: %s", ev.Type, ev.Data)
		}
		masked += strings.Count(string(ev.Data), "[secret FOYA_TEST_ODD_TOKEN hidden]")
	}
	if masked < 3 {
		t.Errorf("%d masks in the events; want the progress, the result and the diff masked", masked)
	}
	for _, req := range h.srv.Requests() {
		check("a request to the model", req.Raw)
	}
	k.Close()
	check("the database", dbBytes(t, h.db))
}

// TestEnvPolicyFromTheCLI sets shell.env.allow and shell.env.deny with
// foya settings: a malformed pattern is refused, an allowed token reaches
// the next foya exec's commands (its value still masked in what the model
// reads), a denied harmless-looking variable does not.
//
// spec: A2, W4
func TestEnvPolicyFromTheCLI(t *testing.T) {
	bin := foyaBinary(t)
	db := filepath.Join(t.TempDir(), "foya.db")
	for args, want := range map[string]int{
		"settings set shell.env.deny x[":                         2,
		"settings set shell.env.allow FOYA_CLI_*_TOKEN":          0,
		"settings set shell.env.deny FOYA_CLI_PLAIN,OTHER_THING": 0,
	} {
		res := runFoya(t, bin, nil, append(strings.Fields(args), "--db", db)...)
		if res.code != want || want != 0 && res.stderr == "" {
			t.Errorf("foya %s: exit %d (%s); want %d", args, res.code, res.stderr, want)
		}
	}
	res := runFoya(t, bin, nil, "settings", "--db", db, "--json")
	var all map[string]string
	if json.Unmarshal([]byte(res.stdout), &all); all[kernel.SettingEnvAllow] != "FOYA_CLI_*_TOKEN" || all[kernel.SettingEnvDeny] != "FOYA_CLI_PLAIN,OTHER_THING" {
		t.Fatalf("settings = %s", res.stdout)
	}
	const token = "cli-allowed-token-0123456789abcdef"
	srv := pt.New(t, pt.Calls(call("c1", "bash",
		`{"command":"echo allowed=${#FOYA_CLI_API_TOKEN} plain=${FOYA_CLI_PLAIN:-unset}; echo \"$FOYA_CLI_API_TOKEN\""}`)), pt.Say("done"))
	res = runFoya(t, bin, []string{"FOYA_CLI_API_TOKEN=" + token, "FOYA_CLI_PLAIN=harmless"},
		"exec", "--base-url", srv.URL, "--api-key", "x", "--model", "m", "--db", db, "--workdir", t.TempDir(),
		"--approval", "full-access", "--json", "show the variables")
	if res.code != 0 {
		t.Fatalf("exec: %d %s", res.code, res.stderr)
	}
	reqs := srv.Requests()
	tm := toolMessages(reqs[len(reqs)-1])
	if len(tm) != 1 {
		t.Fatalf("tool messages %+v", tm)
	}
	want := fmt.Sprintf("allowed=%d plain=unset\n[secret FOYA_CLI_API_TOKEN hidden]", len(token))
	if !strings.Contains(tm[0].Content, want) {
		t.Errorf("the command printed %q; want %q", tm[0].Content, want)
	}
}
