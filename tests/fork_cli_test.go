package tests

import (
	"bufio"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"foya/backend/cli"
	"foya/backend/llm"
	pt "foya/backend/provider/providertest"
)

// foya fork SESSION --at N prints the new session's ID alone on
// stdout (a contract scripts rely on, issue 29 item 5); foya show names
// its parent; a bad N or an unknown session is a usage error (exit 2)
// that says what to give, and stores nothing.
func TestForkCommand(t *testing.T) {
	bin := foyaBinary(t)
	srv := pt.New(t, pt.Say("first answer"), pt.Say("second answer"))
	dir := t.TempDir()
	db := filepath.Join(dir, "foya.db")
	model := []string{"--base-url", srv.URL, "--api-key", "x", "--model", "m", "--db", db, "--workdir", dir}
	res := runFoya(t, bin, nil, append(append([]string{"exec"}, model...), "--json", "first prompt")...)
	if res.code != 0 {
		t.Fatalf("exec: exit %d\n%s", res.code, res.stderr)
	}
	var ses string
	sc := bufio.NewScanner(strings.NewReader(res.stdout))
	for sc.Scan() {
		var ev llm.Event
		if json.Unmarshal(sc.Bytes(), &ev) == nil && ev.SessionID != "" {
			ses = ev.SessionID
			break
		}
	}
	if ses == "" {
		t.Fatalf("no session in %s", res.stdout)
	}
	if res := runFoya(t, bin, nil, append(append([]string{"exec", "--session", ses}, model...), "second prompt")...); res.code != 0 {
		t.Fatalf("exec --session: exit %d\n%s", res.code, res.stderr)
	}

	res = runFoya(t, bin, nil, "fork", "--db", db, ses, "--at", "2")
	id := strings.TrimSpace(res.stdout)
	if res.code != cli.ExitOK || !strings.HasPrefix(id, "ses_") || strings.Contains(id, "\n") || id == ses {
		t.Fatalf("foya fork --at 2: exit %d, stdout %q, stderr %q; want the new session's ID alone", res.code, res.stdout, res.stderr)
	}
	if !strings.Contains(res.stderr, `"second prompt"`) {
		t.Errorf("foya fork's stderr = %q; want the prompt it was forked before", res.stderr)
	}
	show := runFoya(t, bin, nil, "show", "--db", db, "--json", id)
	var tr struct {
		Session struct {
			ForkedFrom string `json:"forkedFrom"`
			ForkedAt   int    `json:"forkedAt"`
		} `json:"session"`
		Runs []struct {
			Prompt string `json:"prompt"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(show.stdout), &tr); err != nil {
		t.Fatalf("foya show --json: %v\n%s", err, show.stdout)
	}
	if tr.Session.ForkedFrom != ses || tr.Session.ForkedAt != 2 || len(tr.Runs) != 1 || tr.Runs[0].Prompt != "first prompt" {
		t.Errorf("the fork = %+v; want forked from %s at 2 with the first prompt only", tr, ses)
	}
	if text := runFoya(t, bin, nil, "show", "--db", db, id); !strings.Contains(text.stdout, "forked from "+ses+" before its prompt 2") {
		t.Errorf("foya show = %q; want its parent named", text.stdout)
	}
	whole := runFoya(t, bin, nil, "fork", "--db", db, "--json", ses)
	var f struct {
		Session struct {
			ID       string `json:"id"`
			ForkedAt int    `json:"forkedAt"`
		} `json:"session"`
		Draft string `json:"draft"`
	}
	if err := json.Unmarshal([]byte(whole.stdout), &f); whole.code != 0 || err != nil || f.Session.ID == "" || f.Draft != "" {
		t.Errorf("foya fork --json SESSION = exit %d %q (%v); want the whole session's fork, no draft", whole.code, whole.stdout, err)
	}

	sessions := func() int {
		out := runFoya(t, bin, nil, "sessions", "--db", db, "--json")
		var list []json.RawMessage
		if err := json.Unmarshal([]byte(out.stdout), &list); err != nil {
			t.Fatalf("foya sessions --json: %v", err)
		}
		return len(list)
	}
	n := sessions()
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{ses, "--at", "3"}, "has 2 prompts; give 1 to 2"},
		{[]string{ses, "--at", "-1"}, "give a prompt number from 1"},
		{[]string{ses, "--at", "two"}, "invalid value"},
		{[]string{"ses_unknown", "--at", "1"}, "no session ses_unknown"},
		{[]string{}, "usage: foya fork"},
		{[]string{ses, "other"}, "usage: foya fork"},
	} {
		res := runFoya(t, bin, nil, append([]string{"fork", "--db", db}, c.args...)...)
		if res.code != cli.ExitUsage || res.stdout != "" || !strings.Contains(res.stderr, c.says) {
			t.Errorf("foya fork %v: exit %d, stdout %q, stderr %q; want exit 2 saying %q", c.args, res.code, res.stdout, res.stderr, c.says)
		}
	}
	if sessions() != n {
		t.Errorf("a refused foya fork stored a session")
	}
}
