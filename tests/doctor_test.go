package tests

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"foya/backend/cli"
	"foya/backend/doctor"
	"foya/backend/mcp/mcptest"
	pt "foya/backend/provider/providertest"
	"foya/backend/sandbox"
	"foya/backend/trash"
)

// doctorEnv is providerEnv with HOME and the data home inside dir, so that
// foya doctor looks at a data folder and a trash of the test's own.
func doctorEnv(dir string) []string {
	return append(providerEnv(""), "HOME="+filepath.Join(dir, "home"), "XDG_DATA_HOME="+filepath.Join(dir, "data"))
}

// downURL returns the base URL of a loopback port where nothing listens.
func downURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr + "/v1"
}

// silentURL returns the base URL of a loopback server that accepts
// connections and never answers.
func silentURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var conns []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c)
		}
	}()
	t.Cleanup(func() {
		l.Close()
		<-done
		for _, c := range conns {
			c.Close()
		}
	})
	return "http://" + l.Addr().String() + "/v1"
}

// doctorLine finds the line of a finding in foya doctor's text: its status
// and name, then its detail.
func doctorLine(out, status, name string) string {
	re := regexp.MustCompile(`(?m)^  ` + regexp.QuoteMeta(status) + ` +` + regexp.QuoteMeta(name) + ` .*$`)
	return re.FindString(out)
}

// foya doctor on a working database with three provider profiles: one
// that answers (the scripted server), one where nothing listens and one
// that never answers. Every section is printed; the working provider is
// ok, the two others are problems with what to do, and the exit code says
// there are problems. --json carries the same.
//
// spec: W4
func TestDoctorReportsEachSection(t *testing.T) {
	bin := foyaBinary(t)
	dir := t.TempDir()
	env := doctorEnv(dir)
	db := filepath.Join(dir, "data", "foya", "foya.db")
	srv := pt.New(t, pt.Say("ok"), pt.Say("ok")) // one streamed request for each doctor
	srv.SetModels("m")
	for _, p := range [][]string{{"up", srv.URL}, {"down", downURL(t)}, {"silent", silentURL(t)}} {
		res := runFoyaIn(t, bin, env, "sk-doctor\n", "providers", "add", p[0], "--base-url", p[1], "--model", "m",
			"--api-key-stdin", "--db", db)
		if res.code != 0 {
			t.Fatalf("providers add %s: exit %d\n%s%s", p[0], res.code, res.stdout, res.stderr)
		}
	}

	res := runFoya(t, bin, env, "doctor", "--db", db, "--timeout", "2s")
	if res.code != 1 {
		t.Fatalf("doctor: exit %d, want 1 (two providers are problems)\n%s%s", res.code, res.stdout, res.stderr)
	}
	out := res.stdout
	for _, section := range []string{"Folders", "Database", "Sandbox", "Trash", "Providers"} {
		if !regexp.MustCompile(`(?m)^` + section + `$`).MatchString(out) {
			t.Errorf("no %s section in:\n%s", section, out)
		}
	}
	if !strings.HasPrefix(out, "foya ") {
		t.Errorf("the report does not start with the version:\n%s", out)
	}
	checks := []struct{ status, name, want string }{
		{"ok", "data folder", filepath.Join(dir, "data", "foya")},
		{"ok", "database", "integrity ok"},
		{"ok", "trash", filepath.Join(dir, "data", "Trash")},
		{"ok", "up (default)", "a streamed request answered"},
		{"problem", "down", "no answer from"},
		{"problem", "silent", "within 2s"},
	}
	if runtime.GOOS == "linux" {
		checks = append(checks, struct{ status, name, want string }{"", "sandbox", "Landlock"})
	}
	for _, c := range checks {
		line := ""
		if c.status == "" {
			for _, s := range []string{"ok", "warning", "problem"} {
				line += doctorLine(out, s, c.name)
			}
		} else {
			line = doctorLine(out, c.status, c.name)
		}
		if line == "" || !strings.Contains(line, c.want) {
			t.Errorf("%s line = %q; want status %q and %q in:\n%s", c.name, line, c.status, c.want, out)
		}
	}
	// Each problem says what to do: the two providers that do not answer.
	if n := strings.Count(out, "what to do: start the model server, or correct the base URL (foya providers edit "); n != 2 {
		t.Errorf("%d provider problems say what to do; want 2:\n%s", n, out)
	}
	if !strings.Contains(out, "2 problems") {
		t.Errorf("no count of problems in:\n%s", out)
	}

	res = runFoya(t, bin, env, "doctor", "--db", db, "--timeout", "2s", "--json")
	var r doctor.Report
	if err := json.Unmarshal([]byte(res.stdout), &r); err != nil || res.code != 1 {
		t.Fatalf("doctor --json: exit %d, %v\n%s%s", res.code, err, res.stdout, res.stderr)
	}
	if r.Database.Path != db || !r.Database.Exists || r.Database.Size == 0 || !slices.Equal(r.Database.Integrity, []string{"ok"}) {
		t.Errorf("database = %+v; want %s, a size and integrity ok", r.Database, db)
	}
	if want := filepath.Join(dir, "data", "Trash"); r.Trash.Path != want {
		t.Errorf("trash = %q; want %q", r.Trash.Path, want)
	}
	if runtime.GOOS == "linux" && r.Sandbox.Landlock != sandbox.Probe().Landlock {
		t.Errorf("sandbox = %+v; want Landlock ABI %d", r.Sandbox, sandbox.Probe().Landlock)
	}
	status := map[string]string{}
	for _, p := range r.Providers.Profiles {
		status[p.Name] = p.Status
		if p.Status != doctor.OK && p.Fix == "" {
			t.Errorf("provider %s: %s with nothing to do", p.Name, p.Status)
		}
	}
	if want := map[string]string{"up": "ok", "down": "problem", "silent": "problem"}; !maps.Equal(status, want) {
		t.Errorf("provider statuses = %v; want %v", status, want)
	}
	if n := len(r.Problems()); n != 2 {
		t.Errorf("%d problems; want 2: %+v", n, r.Problems())
	}
}

// A database file that is not SQLite, and one whose pages are damaged,
// give a problem line for the database that says what to do, not a crash;
// the other sections are still reported, and the providers are not
// checked: a broken database is what doctor is for.
//
// spec: W4
func TestDoctorCorruptDatabase(t *testing.T) {
	bin := foyaBinary(t)
	for _, tc := range []struct {
		name   string
		damage func(t *testing.T, db string, env []string)
		want   string
	}{
		{"not sqlite", func(t *testing.T, db string, env []string) {
			if err := os.WriteFile(db, []byte(strings.Repeat("this is no database\n", 400)), 0o600); err != nil {
				t.Fatal(err)
			}
		}, "not a Foya database"},
		{"damaged pages", func(t *testing.T, db string, env []string) {
			// A real database (foya makes it), with its pages after the
			// first overwritten: the header still says SQLite.
			res := runFoya(t, bin, env, "settings", "--db", db)
			if res.code != 0 {
				t.Fatalf("settings: exit %d\n%s%s", res.code, res.stdout, res.stderr)
			}
			b, err := os.ReadFile(db)
			if err != nil || len(b) < 3*4096 {
				t.Fatalf("database of %d bytes (%v); want a few pages", len(b), err)
			}
			for i := 4096; i < len(b); i++ {
				b[i] = byte(i * 7)
			}
			if err := os.WriteFile(db, b, 0o600); err != nil {
				t.Fatal(err)
			}
		}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			env := doctorEnv(dir)
			db := filepath.Join(dir, "foya.db")
			tc.damage(t, db, env)
			before, _ := os.ReadFile(db)

			res := runFoya(t, bin, env, "doctor", "--db", db)
			if res.code != 1 || res.stderr != "" {
				t.Fatalf("doctor: exit %d, want 1 and nothing on stderr\n%s%s", res.code, res.stdout, res.stderr)
			}
			line := doctorLine(res.stdout, "problem", "database")
			if line == "" || !strings.Contains(line, tc.want) {
				t.Errorf("database line = %q; want a problem with %q in:\n%s", line, tc.want, res.stdout)
			}
			if !strings.Contains(res.stdout, "what to do: quit Foya, move the file aside (mv "+db+" "+db+".broken)") {
				t.Errorf("the database problem does not say what to do:\n%s", res.stdout)
			}
			for _, section := range []string{"\nSandbox\n", "\nTrash\n", "\nProviders\n"} {
				if !strings.Contains(res.stdout, section) {
					t.Errorf("no %q section after a damaged database:\n%s", strings.TrimSpace(section), res.stdout)
				}
			}
			if line := doctorLine(res.stdout, "warning", "providers"); !strings.Contains(line, "not checked") {
				t.Errorf("providers line = %q; want not checked", line)
			}
			// The doctor only looked.
			if after, _ := os.ReadFile(db); string(after) != string(before) {
				t.Errorf("foya doctor changed the damaged database")
			}
		})
	}
}

// Doctor on a machine where nothing can confine commands, and where the
// trash is a file: both are problems that say what to do, and a missing
// database is no problem (it is made at the first start).
//
// spec: W4
func TestDoctorWithoutSandboxOrTrash(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	if err := os.MkdirAll(filepath.Join(home, ".local", "share"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".local", "share", "Trash"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := doctor.Run(t.Context(), doctor.Options{
		DBPath: filepath.Join(dir, "none", "foya.db"),
		Probe: func() sandbox.Capability {
			return sandbox.Capability{Reason: "sandbox unavailable: no Landlock in this kernel"}
		},
		Trash: trash.New(trash.Options{Home: home}),
	})
	if r.Sandbox.Status != doctor.Problem || !strings.Contains(r.Sandbox.Detail, "no Landlock") || r.Sandbox.Fix == "" {
		t.Errorf("sandbox = %+v; want a problem with its reason and what to do", r.Sandbox)
	}
	if r.Trash.Status != doctor.Problem || !strings.Contains(r.Trash.Fix, "move that file aside") {
		t.Errorf("trash = %+v; want a problem saying to move the file aside", r.Trash)
	}
	if r.Database.Status != doctor.OK || r.Database.Exists {
		t.Errorf("database = %+v; want ok, not made yet", r.Database)
	}
	if _, err := os.Stat(filepath.Join(dir, "none")); err == nil {
		t.Errorf("Doctor made the database's folder")
	}
	if r.Providers.Status != doctor.Warning || !strings.Contains(r.Providers.Fix, "foya providers add") {
		t.Errorf("providers = %+v; want a warning saying how to add one", r.Providers)
	}
	if n := len(r.Problems()); n != 2 {
		t.Errorf("%d problems; want 2 (sandbox, trash): %+v", n, r.Problems())
	}
}

// TestDoctorReportsMCPServers checks foya doctor's MCP section: a server
// that starts is ready with its tools; one whose program
// is not there is a problem, with what to do. The command line runs in this
// process, as in TestMCPCommandLine; the test binary is the MCP server.
//
// spec: K5, M1
func TestDoctorReportsMCPServers(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "foya.db")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	foya := func(args ...string) (string, int) {
		var out, errb bytes.Buffer
		code := cli.Run(context.Background(), args, cli.Env{Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }})
		return out.String() + errb.String(), code
	}
	if out, code := foya("mcp", "--db", db, "add", "local", "--env", mcptest.Env+"=ok", "--", exe, "-test.run=none"); code != 0 {
		t.Fatalf("mcp add local: exit %d\n%s", code, out)
	}
	gone := filepath.Join(dir, "no-such-program")
	foya("mcp", "--db", db, "add", "gone", "--", gone)
	// Nothing listens on port 9 of loopback: an HTTP server that is down.
	foya("mcp", "--db", db, "add", "web", "--url", "http://127.0.0.1:9/mcp")

	out, code := foya("doctor", "--db", db, "--timeout", "2s")
	if code != 1 {
		t.Fatalf("doctor: exit %d, want 1 (a server does not start)\n%s", code, out)
	}
	if !regexp.MustCompile(`(?m)^MCP servers$`).MatchString(out) {
		t.Fatalf("no MCP servers section in:\n%s", out)
	}
	if !regexp.MustCompile(`(?m)^  ok +local +user, stdio: ready, \d+ tools$`).MatchString(out) {
		t.Errorf("the working server is not reported ready with its tools:\n%s", out)
	}
	if !regexp.MustCompile(`(?m)^  problem +gone +user, stdio: failed`).MatchString(out) ||
		!strings.Contains(out, "what to do: check that "+gone+" runs by itself") {
		t.Errorf("the broken server is not a problem with what to do:\n%s", out)
	}
	if !regexp.MustCompile(`(?m)^  problem +web +user, http: failed: the server at http://127.0.0.1:9/mcp cannot be reached`).MatchString(out) ||
		!strings.Contains(out, "what to do: check that the server at http://127.0.0.1:9/mcp is running and that this machine reaches it") {
		t.Errorf("the HTTP server that is down is not a problem saying it cannot be reached, with its URL:\n%s", out)
	}

	out, _ = foya("doctor", "--db", db, "--timeout", "2s", "--json")
	var r doctor.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("doctor --json: %v\n%s", err, out)
	}
	if r.MCP.Status != doctor.Warning || len(r.MCP.Servers) != 3 {
		t.Errorf("doctor --json mcp = %+v", r.MCP)
	}
}

// foya doctor prints each profile's model window and where it comes from:
// the server (a recorded vLLM model list), the profile's setting (a server
// that is down), or a guess that says how to set it. Issue 28, item 1.
func TestDoctorPrintsEachModelWindow(t *testing.T) {
	bin := foyaBinary(t)
	dir := t.TempDir()
	env := doctorEnv(dir)
	db := filepath.Join(dir, "data", "foya", "foya.db")
	vllm := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/models" {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"object":"list","data":[{"id":"m","object":"model","max_model_len":32768}]}`))
			return
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(vllm.Close)
	down := downURL(t)
	for _, p := range [][]string{
		{"served", "--base-url", vllm.URL + "/v1", "--model", "m"},
		{"set", "--base-url", down, "--model", "m", "--context-window", "65536", "--max-output", "8192"},
		{"guessed", "--base-url", down, "--model", "m"},
	} {
		res := runFoyaIn(t, bin, env, "", append([]string{"providers", "add", p[0]}, append(p[1:], "--db", db)...)...)
		if res.code != 0 {
			t.Fatalf("providers add %s: exit %d\n%s%s", p[0], res.code, res.stdout, res.stderr)
		}
	}
	res := runFoya(t, bin, env, "doctor", "--db", db, "--timeout", "5s")
	out := res.stdout
	for _, want := range []string{
		"model m: context window 32,768 tokens, output up to 4,096, from the server's /models (max_model_len)",
		"model m: context window 65,536 tokens, output up to 8,192, from the profile's setting (the server does not say)",
		"model m: context window 8,192 tokens, output up to 2,048, (a guess: the server does not say; set it in Settings, Providers (or foya providers edit guessed --context-window N))",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	res = runFoyaIn(t, bin, env, "", "providers", "add", "bad", "--base-url", down, "--model", "m", "--context-window", "12", "--db", db)
	if res.code != 2 || !strings.Contains(res.stderr, "too small") {
		t.Errorf("--context-window 12: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
}
