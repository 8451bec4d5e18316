package e2e

import (
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"foya/backend/llm"
	pt "foya/backend/provider/providertest"
)

// TestBrowserComposerMentionAndQueue mentions a file in Chromium against
// foya serve and the scripted model: "@no" lists the session folder's
// files, notes.txt is picked with the keys and sent, and the model's
// request holds notes.txt's content. The model holds its answer; while the
// run goes a second message is typed and queued ("Queued: …"), the answer
// is let go (the script asks for it once it sees the queued message), and
// the queued message is sent by itself when the run completes. The
// token meter then shows the usage the model reported.
func TestBrowserComposerMentionAndQueue(t *testing.T) {
	requireE2E(t)
	bin := buildFoya(t)
	hold := make(chan struct{})
	model := pt.New(t, pt.Turn{Text: "Read notes.txt.", Hold: hold, Usage: &llm.Usage{PromptTokens: 12000, CompletionTokens: 300, TotalTokens: 12300}},
		pt.Say("Second done."))
	// The script lets the held answer go through this address.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	rel := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { once.Do(func() { close(hold) }) })}
	go rel.Serve(ln)
	t.Cleanup(func() {
		once.Do(func() { close(hold) })
		rel.Close()
	})

	srv := startServe(t, bin)
	srv.call(t, nil, "AddProvider", map[string]any{"name": "scripted", "baseUrl": model.URL, "model": "m"})
	project := t.TempDir()
	for name, body := range map[string]string{"notes.txt": "the secret word is marmalade\n", "main.go": "package main\n", "docs/nothing.md": "x\n"} {
		os.MkdirAll(filepath.Join(project, filepath.Dir(name)), 0o755)
		if err := os.WriteFile(filepath.Join(project, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	srv.call(t, nil, "CreateSession", map[string]any{"workdir": project, "approvalMode": "auto", "title": "Composer"})
	runScript(t, "composer.mjs", map[string]string{
		"FOYA_URL":     srv.url,
		"FOYA_TITLE":   "Composer",
		"FOYA_RELEASE": "http://" + ln.Addr().String() + "/",
		"FOYA_SHOTS":   filepath.Join(repoRoot(t), "tests", "e2e", "out"),
	})
	reqs := model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests; want 2 (the message, then the queued one)", len(reqs))
	}
	users := func(r pt.Request) []string {
		var out []string
		for _, m := range r.Messages {
			if m.Role == "user" {
				out = append(out, m.Content)
			}
		}
		return out
	}
	first := users(reqs[0])
	if len(first) != 1 || !strings.Contains(first[0], "[file notes.txt, mentioned by the user]") || !strings.Contains(first[0], "the secret word is marmalade") {
		t.Errorf("the first request's user messages = %q; want one holding notes.txt's content", first)
	}
	second := users(reqs[1])
	if len(second) != 2 || second[1] != "and then say it twice" {
		t.Errorf("the second request's user messages = %q; want the first and then the queued one", second)
	}
	srv.stop(t)
}
