package e2e

import (
	"net"
	"net/http"
	"path/filepath"
	"sync"
	"testing"

	pt "foya/backend/provider/providertest"
)

// TestBrowserModelPickerAndSendNow picks a session's model in Chromium
// against foya serve and the scripted model: the picker lists the
// profiles, then the chosen profile's models (its server's /models);
// typing filters, Enter chooses; the conversation says "Model: …" and the
// run that follows asks that model. While the run goes (the model holds
// its answer), a queued message is sent with "Send now"; the model's
// requests hold it once, as the last user message of a request, and the
// conversation shows it once, also after a reload.
//
// The kernel's side (the message is in the same run's next request) is
// proven in tests/steer_test.go, where the test can see the message wait
// in the run's inbox; here the browser cannot, so if the held answer
// ended the run before the message reached the kernel, the message is
// sent as the next prompt, and these checks hold either way.
func TestBrowserModelPickerAndSendNow(t *testing.T) {
	requireE2E(t)
	bin := buildFoya(t)
	hold := make(chan struct{})
	model := pt.New(t, pt.Turn{Text: "Working.", Hold: hold}, pt.Say("Used tabs."))
	model.SetModels("big-model", "m", "m2")
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
	srv.call(t, nil, "AddProvider", map[string]any{"name": "second", "baseUrl": model.URL, "model": "m2"})
	srv.call(t, nil, "CreateSession", map[string]any{"workdir": t.TempDir(), "approvalMode": "auto", "title": "Picker"})
	runScript(t, "picker.mjs", map[string]string{
		"FOYA_URL":     srv.url,
		"FOYA_TITLE":   "Picker",
		"FOYA_RELEASE": "http://" + ln.Addr().String() + "/",
		"FOYA_SHOTS":   filepath.Join(repoRoot(t), "tests", "e2e", "out"),
	})
	reqs := model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests; want 2 (the message, then the one sent with Send now)", len(reqs))
	}
	steered := 0
	for i, r := range reqs {
		if r.Model != "big-model" {
			t.Errorf("request %d asked %q; want the picked big-model", i+1, r.Model)
		}
		var users []string
		for _, m := range r.Messages {
			if m.Role == "user" {
				users = append(users, m.Content)
			}
		}
		for j, u := range users {
			if u == "use tabs" {
				steered++
				if j != len(users)-1 {
					t.Errorf("request %d holds the sent message before other user messages: %q", i+1, users)
				}
			}
		}
	}
	if steered != 1 {
		t.Errorf("the sent message is in %d requests; want 1", steered)
	}
	srv.stop(t)
}
