package tests

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"foya/backend/kernel"
	"foya/backend/profiles"
	pt "foya/backend/provider/providertest"
)

// providerEnv is the environment of a foya command in these tests: no
// model server from the environment and, unless bus is set, no keyring
// (no D-Bus session), so keys go to the data folder's file.
func providerEnv(bus string) []string {
	return []string{"OPENAI_BASE_URL=", "OPENAI_API_KEY=", "FOYA_MODEL=", "FOYA_DB=", "XDG_RUNTIME_DIR=",
		"DBUS_SESSION_BUS_ADDRESS=" + bus}
}

// runFoyaIn is runFoya with standard input.
func runFoyaIn(t *testing.T, bin string, env []string, stdin string, args ...string) execResult {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return execResult{code, out.String(), errb.String()}
}

func randomKey(t *testing.T, prefix string) string {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return prefix + hex.EncodeToString(b)
}

func listProviders(t *testing.T, bin string, env []string, db string) []profiles.Provider {
	t.Helper()
	res := runFoya(t, bin, env, "providers", "list", "--json", "--db", db)
	var list []profiles.Provider
	if res.code != 0 || json.Unmarshal([]byte(res.stdout), &list) != nil {
		t.Fatalf("providers list --json: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	return list
}

// The providers command line, through the built binary: a profile
// is added with its key read from standard input, listed, tested, made the
// default, used by foya exec (which records it in the session), overridden
// by flags, and removed with its key. Without a keyring the key goes to a
// 0600 file, and add and list say so.
//
// spec: C1 — the session's provider and model are the profile's.
func TestProvidersCommandLine(t *testing.T) {
	bin := foyaBinary(t)
	env := providerEnv("")
	dir := t.TempDir()
	db := filepath.Join(dir, "foya.db")
	key := randomKey(t, "sk-test-")
	srv := pt.New(t, pt.Say("ok"), pt.Say("hello from the profile"), pt.Say("hello again"), pt.Say("other model"))
	srv.SetModels("m", "m2")
	srv.RequireKey(key)

	res := runFoya(t, bin, env, "providers", "list", "--db", db)
	if res.code != 0 || !strings.Contains(res.stdout, "no providers") {
		t.Fatalf("list of none: %d %q %q", res.code, res.stdout, res.stderr)
	}
	res = runFoyaIn(t, bin, env, key+"\n", "providers", "add", "local", "--base-url", srv.URL, "--model", "m",
		"--header", "X-Org=acme", "--api-key-stdin", "--db", db)
	if res.code != 0 || !strings.Contains(res.stdout, "notice: no system keyring") || !strings.Contains(res.stdout, "local is the default provider") {
		t.Fatalf("add: exit %d\nstdout %s\nstderr %s", res.code, res.stdout, res.stderr)
	}
	keyFile := filepath.Join(dir, profiles.KeyFile)
	fi, err := os.Stat(keyFile)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("key file %s: %v %v; want mode 0600", keyFile, fi, err)
	}
	if b, _ := os.ReadFile(keyFile); !bytes.Contains(b, []byte(key)) {
		t.Fatalf("key file holds no key: %s", b)
	}
	res = runFoya(t, bin, env, "providers", "list", "--db", db)
	if res.code != 0 || !strings.Contains(res.stdout, "* local") || !strings.Contains(res.stdout, "key in file") ||
		!strings.Contains(res.stdout, "notice: no system keyring") {
		t.Fatalf("list: %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	list := listProviders(t, bin, env, db)
	if len(list) != 1 || list[0].Name != "local" || !list[0].Default || list[0].KeyStore != profiles.KeyInFile ||
		list[0].Headers["X-Org"] != "acme" || list[0].Model != "m" {
		t.Fatalf("list --json = %+v", list)
	}

	res = runFoya(t, bin, env, "providers", "test", "local", "--db", db)
	if res.code != 0 || strings.Count(res.stdout, " ok ") != 2 || !strings.Contains(res.stdout, "ms") {
		t.Fatalf("test: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}

	// The default profile, with nothing from flags or the environment.
	res = runFoya(t, bin, env, "exec", "--db", db, "--workdir", dir, "--json", "hello")
	if res.code != 0 {
		t.Fatalf("exec with the default profile: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	reqs := srv.Requests()
	last := reqs[len(reqs)-1]
	if last.Model != "m" || last.Header.Get("Authorization") != "Bearer "+key || last.Header.Get("X-Org") != "acme" {
		t.Fatalf("request: model %q auth %q org %q", last.Model, last.Header.Get("Authorization"), last.Header.Get("X-Org"))
	}
	sessions := func() []kernel.Session {
		res := runFoya(t, bin, env, "sessions", "--db", db, "--json")
		var list []kernel.Session
		if err := json.Unmarshal([]byte(res.stdout), &list); err != nil {
			t.Fatalf("sessions: %v\n%s", err, res.stdout)
		}
		return list
	}
	ss := sessions()
	if len(ss) != 1 || ss[0].Provider != "local" || ss[0].Model != "m" {
		t.Fatalf("session = %+v; want provider local, model m", ss)
	}

	// A continued session keeps its profile; --model wins and is recorded.
	res = runFoya(t, bin, env, "exec", "--db", db, "--session", ss[0].ID, "--model", "m2", "--json", "again")
	if res.code != 0 {
		t.Fatalf("exec --session: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	if s := sessions()[0]; s.Provider != "local" || s.Model != "m2" {
		t.Fatalf("continued session = %s/%s; want local/m2", s.Provider, s.Model)
	}

	// --base-url wins: another server, no profile, and no profile's key.
	srv2 := pt.New(t, pt.Say("no profile"))
	res = runFoya(t, bin, env, "exec", "--db", db, "--workdir", dir, "--base-url", srv2.URL, "--model", "x", "--json", "plain")
	if res.code != 0 {
		t.Fatalf("exec --base-url: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	if got := srv2.Requests()[0].Header.Get("Authorization"); strings.Contains(got, key) {
		t.Fatalf("the profile's key went to a server given by --base-url: %q", got)
	}
	if s := sessions()[0]; s.Provider != profiles.NoProvider || s.Model != "x" {
		t.Fatalf("session by URL = %s/%s; want %s/x", s.Provider, s.Model, profiles.NoProvider)
	}

	// --provider with another server by --base-url or $OPENAI_BASE_URL: the
	// profile's key stays with its own server, and foya exec says so.
	srv3 := pt.New(t, pt.Say("elsewhere"), pt.Say("elsewhere by env"))
	res = runFoya(t, bin, env, "exec", "--db", db, "--workdir", dir, "--provider", "local", "--base-url", srv3.URL, "--json", "p1")
	res2 := runFoya(t, bin, append(slices.Clone(env), "OPENAI_BASE_URL="+srv3.URL), "exec", "--db", db, "--workdir", dir,
		"--provider", "local", "--json", "p2")
	for i, r := range []execResult{res, res2} {
		if r.code != 0 || !strings.Contains(r.stderr, "the key of provider local goes only to its own server") {
			t.Fatalf("exec --provider local, another server (%d): exit %d\n%s%s", i, r.code, r.stdout, r.stderr)
		}
	}
	for _, r := range srv3.Requests() {
		if got := r.Header.Get("Authorization"); strings.Contains(got, key) {
			t.Fatalf("the profile's key went to another server given by URL: %q", got)
		}
	}

	// A second profile, made the default, then removed with its key.
	res = runFoyaIn(t, bin, env, "sk-other-0123456789abcdef\n", "providers", "add", "other", "--base-url", srv.URL,
		"--model", "m2", "--api-key-stdin", "--db", db)
	if res.code != 0 || strings.Contains(res.stdout, "default provider") {
		t.Fatalf("add other: %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	if res = runFoya(t, bin, env, "providers", "default", "other", "--db", db); res.code != 0 {
		t.Fatalf("default other: %d %s", res.code, res.stderr)
	}
	res = runFoya(t, bin, env, "providers", "list", "--db", db)
	if !strings.Contains(res.stdout, "* other") || !strings.Contains(res.stdout, "  local") {
		t.Fatalf("list after default: %s", res.stdout)
	}
	res = runFoya(t, bin, env, "exec", "--db", db, "--workdir", dir, "--provider", "local", "--json", "pick local")
	if res.code != 0 || sessions()[0].Provider != "local" || sessions()[0].Model != "m" {
		t.Fatalf("exec --provider local: %d %+v\n%s", res.code, sessions()[0], res.stderr)
	}
	// edit changes what it is given; the key and headers stay.
	res = runFoya(t, bin, env, "providers", "edit", "local", "--model", "m2", "--db", db)
	if res.code != 0 || !strings.Contains(res.stdout, "model m2") {
		t.Fatalf("edit: %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	if p := listProviders(t, bin, env, db)[0]; p.Name != "local" || p.Model != "m2" || p.Headers["X-Org"] != "acme" || p.KeyStore != profiles.KeyInFile {
		t.Fatalf("after edit: %+v", p)
	}
	// foya settings shows the default's name, not the profiles' JSON.
	res = runFoya(t, bin, env, "settings", "--db", db)
	if !strings.Contains(res.stdout, "providers.default = other") || strings.Contains(res.stdout, profiles.SettingProviders) {
		t.Fatalf("settings:\n%s", res.stdout)
	}
	if res = runFoya(t, bin, env, "providers", "remove", "other", "--db", db); res.code != 0 {
		t.Fatalf("remove: %d %s", res.code, res.stderr)
	}
	if b, _ := os.ReadFile(keyFile); bytes.Contains(b, []byte("sk-other-")) || !bytes.Contains(b, []byte(key)) {
		t.Fatalf("key file after remove: %s", b)
	}
	if list := listProviders(t, bin, env, db); len(list) != 1 || list[0].Name != "local" || list[0].Default {
		t.Fatalf("after removing the default: %+v; want local alone, no default", list)
	}
}

// Bad input to foya providers and foya exec --provider: usage errors exit
// 2 with a message and change nothing; a server that is down, refuses the
// key or does not know the model makes providers test exit 1 with that
// outcome, and the key it refused is not in the output.
func TestProvidersBadInput(t *testing.T) {
	bin := foyaBinary(t)
	env := providerEnv("")
	dir := t.TempDir()
	db := filepath.Join(dir, "foya.db")
	key := randomKey(t, "sk-good-")
	srv := pt.New(t)
	srv.SetModels("m")
	srv.RequireKey(key)
	if res := runFoyaIn(t, bin, env, key, "providers", "add", "p", "--base-url", srv.URL, "--model", "m", "--api-key-stdin", "--db", db); res.code != 0 {
		t.Fatalf("add: %d %s", res.code, res.stderr)
	}
	before := listProviders(t, bin, env, db)

	for name, c := range map[string]struct {
		args  []string
		stdin string
		want  string
	}{
		"duplicate":       {[]string{"providers", "add", "p", "--base-url", srv.URL, "--model", "m"}, "", "already exists"},
		"ftp url":         {[]string{"providers", "add", "q", "--base-url", "ftp://host/v1", "--model", "m"}, "", "http:// or https://"},
		"url with creds":  {[]string{"providers", "add", "q", "--base-url", "http://user:hunter2pass@host/v1", "--model", "m"}, "", "user name or password"},
		"no url":          {[]string{"providers", "add", "q", "--model", "m"}, "", "--base-url"},
		"empty model":     {[]string{"providers", "add", "q", "--base-url", srv.URL, "--model", " "}, "", "model is empty"},
		"bad header":      {[]string{"providers", "add", "q", "--base-url", srv.URL, "--model", "m", "--header", "nope"}, "", "NAME=VALUE"},
		"bad header name": {[]string{"providers", "add", "q", "--base-url", srv.URL, "--model", "m", "--header", "Bad Name=x"}, "", "not valid"},
		"bad name":        {[]string{"providers", "add", "../x", "--base-url", srv.URL, "--model", "m"}, "", "provider name"},
		"empty key":       {[]string{"providers", "add", "q", "--base-url", srv.URL, "--model", "m", "--api-key-stdin"}, "\n", "no key"},
		"remove unknown":  {[]string{"providers", "remove", "nope"}, "", "no such provider"},
		"test unknown":    {[]string{"providers", "test", "nope"}, "", "no such provider"},
		"default unknown": {[]string{"providers", "default", "nope"}, "", "no such provider"},
		"edit unknown":    {[]string{"providers", "edit", "nope", "--model", "x"}, "", "no such provider"},
		"exec unknown":    {[]string{"exec", "--provider", "nope", "--workdir", dir, "hi"}, "", "no such provider"},
		"no subcommand":   {[]string{"providers"}, "", "usage"},
		"bad subcommand":  {[]string{"providers", "frob"}, "", "unknown subcommand"},
	} {
		res := runFoyaIn(t, bin, env, c.stdin, append(c.args, "--db", db)...)
		if res.code != 2 || !strings.Contains(res.stderr, c.want) {
			t.Errorf("%s: exit %d, stderr %q; want 2 and %q", name, res.code, res.stderr, c.want)
		}
		if strings.Contains(res.stderr+res.stdout, "hunter2pass") {
			t.Errorf("%s: the URL's password is in the output: %s", name, res.stderr)
		}
	}
	if after := listProviders(t, bin, env, db); !slices.EqualFunc(before, after, func(a, b profiles.Provider) bool {
		return a.Name == b.Name && a.BaseURL == b.BaseURL && a.Model == b.Model && a.KeyStore == b.KeyStore && a.Default == b.Default
	}) {
		t.Fatalf("profiles changed by bad input: %+v -> %+v", before, after)
	}

	// Outcomes of providers test: each a status, exit 1, the key not shown.
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	dead := "http://" + l.Addr().String() + "/v1"
	l.Close()
	wrongKey := randomKey(t, "sk-wrong-")
	srvModel := pt.New(t, pt.Turn{Status: 404, ErrorMessage: "The model `m` does not exist"})
	srvModel.SetModels("another")
	for name, c := range map[string]struct {
		url, key, models, stream string
	}{
		"down":         {dead, key, profiles.CheckDown, profiles.CheckSkipped},
		"unauthorized": {srv.URL, wrongKey, profiles.CheckUnauthorized, profiles.CheckSkipped},
		"wrong model":  {srvModel.URL, key, profiles.CheckWrongModel, profiles.CheckWrongModel},
	} {
		n := strings.ReplaceAll(name, " ", "-")
		if res := runFoyaIn(t, bin, env, c.key, "providers", "add", n, "--base-url", c.url, "--model", "m", "--api-key-stdin", "--db", db); res.code != 0 {
			t.Fatalf("%s: add: %d %s", name, res.code, res.stderr)
		}
		res := runFoya(t, bin, env, "providers", "test", n, "--json", "--db", db)
		var got struct {
			profiles.ProviderCheck
			OK bool `json:"ok"`
		}
		if err := json.Unmarshal([]byte(res.stdout), &got); err != nil {
			t.Fatalf("%s: test --json: %v\n%s%s", name, err, res.stdout, res.stderr)
		}
		if res.code != 1 || got.OK || got.Models.Status != c.models || got.Stream.Status != c.stream || got.Models.Message == "" {
			t.Errorf("%s: exit %d, models %+v, stream %+v; want 1, %s, %s", name, res.code, got.Models, got.Stream, c.models, c.stream)
		}
		if strings.Contains(res.stdout+res.stderr, c.key) {
			t.Errorf("%s: the key is in the output of providers test:\n%s", name, res.stdout)
		}
	}
	// The unauthorized server echoes the key it got; the readable output
	// masks it too.
	res := runFoya(t, bin, env, "providers", "test", "unauthorized", "--db", db)
	if res.code != 1 || !strings.Contains(res.stdout, "unauthorized") || strings.Contains(res.stdout, wrongKey) {
		t.Fatalf("test unauthorized: %d\n%s", res.code, res.stdout)
	}
}

// Keys go to the system keyring when there is one: the Secret Service on a
// D-Bus session bus (a real dbus-daemon with a scripted Secret Service).
// A bus without a Secret Service counts as no keyring (the file, with the
// notice); a locked keyring is an error that stores nothing anywhere.
func TestProvidersKeyring(t *testing.T) {
	bin := foyaBinary(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "foya.db")
	keyFile := filepath.Join(dir, profiles.KeyFile)
	srv := pt.New(t, pt.Say("ok"))
	srv.SetModels("m")

	// A bus on which nothing provides the Secret Service.
	bare := providerEnv(sessionBus(t))
	k1 := randomKey(t, "sk-bare-")
	res := runFoyaIn(t, bin, bare, k1, "providers", "add", "bare", "--base-url", srv.URL, "--model", "m", "--api-key-stdin", "--db", db)
	if res.code != 0 || !strings.Contains(res.stdout, "notice: no system keyring") {
		t.Fatalf("add on a bus without a keyring: %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	if b, _ := os.ReadFile(keyFile); !bytes.Contains(b, []byte(k1)) {
		t.Fatal("the key is not in the key file")
	}

	// A locked keyring: an error, exit 1, and the key is nowhere.
	busLocked := sessionBus(t)
	startSecretService(t, busLocked, true)
	k2 := randomKey(t, "sk-locked-")
	res = runFoyaIn(t, bin, providerEnv(busLocked), k2, "providers", "add", "locked", "--base-url", srv.URL, "--model", "m", "--api-key-stdin", "--db", db)
	if res.code != 1 || !strings.Contains(res.stderr, "keyring is locked") || strings.Contains(res.stderr+res.stdout, k2) {
		t.Fatalf("add with a locked keyring: %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	if b, _ := os.ReadFile(keyFile); bytes.Contains(b, []byte(k2)) {
		t.Fatal("a locked keyring's key went to the file")
	}
	for _, p := range listProviders(t, bin, bare, db) {
		if p.Name == "locked" {
			t.Fatal("a profile whose key could not be stored was added")
		}
	}

	// A keyring that works: the key is in it, not in the file; exec and
	// test read it from there; remove deletes it.
	bus := sessionBus(t)
	ss := startSecretService(t, bus, false)
	ring := providerEnv(bus)
	k3 := randomKey(t, "sk-ring-")
	srv.RequireKey(k3)
	srv.Append(pt.Say("from the keyring"))
	res = runFoyaIn(t, bin, ring, k3, "providers", "add", "ring", "--base-url", srv.URL, "--model", "m", "--api-key-stdin", "--db", db)
	if res.code != 0 || !strings.Contains(res.stdout, "system keyring") || strings.Contains(res.stdout, "notice") {
		t.Fatalf("add with a keyring: %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	if vals := ss.values(); len(vals) != 1 || !strings.Contains(vals[0], k3) {
		t.Fatalf("keyring holds %q; want the key", vals)
	}
	if b, _ := os.ReadFile(keyFile); bytes.Contains(b, []byte(k3)) {
		t.Fatal("a keyring's key went to the file too")
	}
	if res = runFoya(t, bin, ring, "providers", "test", "ring", "--db", db); res.code != 0 {
		t.Fatalf("test with the keyring's key: %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	if res = runFoya(t, bin, ring, "exec", "--provider", "ring", "--workdir", dir, "--db", db, "--json", "hi"); res.code != 0 {
		t.Fatalf("exec with the keyring's key: %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	// Without the bus, the key cannot be read: a clear error, exit 1.
	res = runFoya(t, bin, providerEnv(""), "exec", "--provider", "ring", "--workdir", dir, "--db", db, "hi")
	if res.code != 1 || !strings.Contains(res.stderr, "no keyring is reachable") {
		t.Fatalf("exec with the keyring gone: %d %s", res.code, res.stderr)
	}
	// A locked keyring when the key is needed: a clear error, exit 1.
	res = runFoya(t, bin, providerEnv(busLocked), "exec", "--provider", "ring", "--workdir", dir, "--db", db, "hi")
	if res.code != 1 || !strings.Contains(res.stderr, "keyring is locked") {
		t.Fatalf("exec with the keyring locked: %d %s", res.code, res.stderr)
	}
	if res = runFoya(t, bin, ring, "providers", "remove", "ring", "--db", db); res.code != 0 || len(ss.values()) != 0 {
		t.Fatalf("remove: %d %s; keyring holds %d", res.code, res.stderr, len(ss.values()))
	}
}
