package tests

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"foya/backend/kernel"
	"foya/backend/profiles"
	pt "foya/backend/provider/providertest"
)

// A provider's key, and a secret header's value, never land in the SQLite
// file (with its -wal), an event, or a command's output, although a
// command the model runs prints the key file (Full Access: no sandbox) and
// a server echoes a key it refuses in its error. They are in the key file
// only. (No requirement ID covers secrets.)
func TestProviderKeyNeverLeaks(t *testing.T) {
	bin := foyaBinary(t)
	env := providerEnv("")
	dir := t.TempDir()
	work := t.TempDir()
	db := filepath.Join(dir, "foya.db")
	keyFile := filepath.Join(dir, profiles.KeyFile)
	key := randomKey(t, "sk-leak-")
	hdr := randomKey(t, "hdr-leak-")
	refused := randomKey(t, "sk-refused-")
	secrets := map[string]string{"key": key, "header": hdr, "refused key": refused}

	cmd := `cat ` + keyFile + `; env; printf 'the key is %s\n' "$(cat ` + keyFile + `)"`
	args, _ := json.Marshal(map[string]string{"command": cmd})
	srv := pt.New(t, pt.Say("ok"), pt.Calls(call("c1", "bash", string(args))), pt.Say("done"))
	srv.SetModels("m")
	srv.RequireKey(key)

	// A kernel of this process keeps the database open throughout, so the
	// commands' writes stay in the -wal file, which is grepped too.
	holder, err := kernel.Open(context.Background(), kernel.Options{DBPath: db, Headless: true})
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()

	var out strings.Builder
	run := func(stdin string, args ...string) execResult {
		t.Helper()
		res := runFoyaIn(t, bin, env, stdin, append(args, "--db", db)...)
		out.WriteString(res.stdout + res.stderr)
		return res
	}
	if res := run(key, "providers", "add", "p", "--base-url", srv.URL, "--model", "m", "--header", "api-key="+hdr, "--api-key-stdin"); res.code != 0 {
		t.Fatalf("add: %d %s", res.code, res.stderr)
	}
	if res := run(refused, "providers", "add", "refused", "--base-url", srv.URL, "--model", "m", "--api-key-stdin"); res.code != 0 {
		t.Fatalf("add refused: %d %s", res.code, res.stderr)
	}
	run("", "providers", "list")
	run("", "providers", "list", "--json")
	if res := run("", "providers", "test", "p"); res.code != 0 {
		t.Fatalf("test: %d %s%s", res.code, res.stdout, res.stderr)
	}
	run("", "providers", "test", "refused")
	res := run("", "exec", "--provider", "p", "--approval", "full-access", "--workdir", work, "--json", "print the key")
	if res.code != 0 {
		t.Fatalf("exec: %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	if !strings.Contains(res.stdout, "hidden]") {
		t.Fatalf("the command's output shows no mask, so it did not print the key file:\n%s", res.stdout)
	}
	if srv.Requests()[1].Header.Get("api-key") != hdr {
		t.Fatal("the secret header was not sent")
	}
	res = run("", "exec", "--provider", "refused", "--workdir", work, "--json", "with the refused key")
	if res.code != 1 || !strings.Contains(res.stdout, "Incorrect API key") {
		t.Fatalf("exec with a refused key: %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	run("", "settings", "--json")
	res = run("", "sessions", "--json")
	var list []kernel.Session
	json.Unmarshal([]byte(res.stdout), &list)
	for _, s := range list {
		run("", "show", "--json", s.ID)
	}

	var files []string
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() && p != keyFile {
			files = append(files, p)
		}
		return nil
	})
	if fi, err := os.Stat(db + "-wal"); err != nil || fi.Size() == 0 {
		t.Fatalf("no -wal file to grep: %v", err)
	}
	for what, v := range secrets {
		if strings.Contains(out.String(), v) {
			t.Errorf("the %s is in a command's output or the event stream", what)
		}
		for _, f := range files {
			if b, _ := os.ReadFile(f); strings.Contains(string(b), v) {
				t.Errorf("the %s is in %s", what, filepath.Base(f))
			}
		}
		if b, _ := os.ReadFile(keyFile); !strings.Contains(string(b), v) {
			t.Errorf("the %s is not in the key file", what)
		}
	}
}
