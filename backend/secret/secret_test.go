package secret

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// TestLooksSecret pins which variables commands do not get by default
// (a command's output reaches the model and the database), and the
// harmless ones that must stay.
//
// spec: A1, A2
func TestLooksSecret(t *testing.T) {
	secret := map[string]string{
		"OPENAI_API_KEY": "sk-test", "AWS_SECRET_ACCESS_KEY": "x", "AWS_ACCESS_KEY_ID": "x", "AWS_SESSION_TOKEN": "x",
		"AWS_REGION": "us-east-1", "GITHUB_TOKEN": "x", "GH_TOKEN": "x", "GITLAB_TOKEN": "x", "NPM_TOKEN": "x",
		"ANTHROPIC_API_KEY": "x", "OPENROUTER_API_KEY": "x", "HF_TOKEN": "x", "HUGGING_FACE_HUB_TOKEN": "x",
		"AZURE_CLIENT_SECRET": "x", "GOOGLE_APPLICATION_CREDENTIALS": "/k.json", "GCP_SA": "x",
		"DOCKER_PASSWORD": "x", "DOCKER_AUTH_CONFIG": "x", "PGPASSWORD": "x", "MYSQL_PWD": "x", "DB_PASS": "x",
		"SMTP_PASSWD": "x", "APIKEY": "x", "MY_APIKEYS": "x", "SLACK_BOT_TOKEN": "x", "STRIPE_SECRET": "x",
		"SENTRY_DSN": "x", "VAULT_TOKEN": "x", "CI_JOB_TOKEN": "x", "OAUTH_CLIENT": "x", "SESSION_SECRET": "x",
		"SSH_PRIVATE_KEY": "x", "GPG_PASSPHRASE": "x", "AUTH": "x", "api_key": "x", "npm_config__authToken": "x",
		"my-token": "x", "APP_CREDENTIALS": "x", "COOKIE_JAR_KEY": "x",
		// By value, whatever the name.
		"MY_THING":     "ghp_0123456789abcdefghij0123456789",
		"OTHER":        "sk-proj-0123456789abcdefABCDEF",
		"KEYLESS_ID":   "AKIAIOSFODNN7EXAMPLE",
		"PEM":          "-----BEGIN OPENSSH PRIVATE KEY-----\nabc",
		"DATABASE_URL": "postgres://app:hunter2secret@db:5432/app",
		"https_proxy":  "http://me:pw@proxy:3128",
	}
	for name, value := range secret {
		if !LooksSecret(name, value) {
			t.Errorf("LooksSecret(%s, %q) = false; want true", name, value)
		}
	}
	harmless := map[string]string{
		"PATH": "/usr/bin", "HOME": "/home/u", "LANG": "C.UTF-8", "TERM": "xterm", "PWD": "/w", "OLDPWD": "/",
		"SSH_AUTH_SOCK": "/run/user/1000/ssh", "DBUS_SESSION_BUS_ADDRESS": "unix:path=/run/user/1000/bus",
		"XDG_SESSION_TYPE": "wayland", "DESKTOP_SESSION": "gnome", "SESSION_MANAGER": "local/h:@/tmp/.ICE-unix/1",
		"GIT_AUTHOR_NAME": "A", "GIT_AUTHOR_EMAIL": "a@b", "XAUTHORITY": "/run/user/1000/xauth", "TMPDIR": "/tmp",
		"TOKENIZERS_PARALLELISM": "false", "SSH_ASKPASS": "/usr/bin/ssh-askpass", "SSL_CERT_FILE": "/etc/ssl/c.pem",
		"GOPATH": "/go", "DATABASE_HOST": "db", "HTTP_PROXY": "http://proxy:3128", "EDITOR": "vi",
		"KEYTIMEOUT": "1", "GIT_REMOTE": "git@github.com:foo/bar.git", "USER": "u", "SHELL": "/bin/bash",
	}
	for name, value := range harmless {
		if LooksSecret(name, value) {
			t.Errorf("LooksSecret(%s, %q) = true; want false", name, value)
		}
	}
}

// TestFilter checks the policy: allowed names come through (but are still
// masked), denied names never do, and the provider's key is dropped
// whatever its variable is called, allowed or not.
//
// spec: A1, A2
func TestFilter(t *testing.T) {
	env := []string{
		"PATH=/usr/bin", "HOME=/home/u",
		"OPENAI_API_KEY=sk-test-provider-key-0123456789",
		"MY_KEY_COPY=sk-test-provider-key-0123456789",
		"GITHUB_TOKEN=gho_allowedtoken0123456789",
		"AWS_REGION=eu-west-1",
		"FOO_SETTING=plain-but-denied",
		"EMPTY=",
	}
	p := Policy{Allow: []string{"github_token", "MY_*"}, Deny: []string{"FOO_*"}}
	kept, secrets := Filter(env, p, []Secret{{Name: "provider API key", Value: "sk-test-provider-key-0123456789"}})
	want := []string{"PATH=/usr/bin", "HOME=/home/u", "GITHUB_TOKEN=gho_allowedtoken0123456789", "EMPTY="}
	if !slices.Equal(kept, want) {
		t.Errorf("Filter kept %q; want %q", kept, want)
	}
	masked := map[string]bool{}
	for _, s := range secrets {
		masked[s.Value] = true
	}
	for _, v := range []string{"sk-test-provider-key-0123456789", "gho_allowedtoken0123456789", "plain-but-denied"} {
		if !masked[v] {
			t.Errorf("Filter did not return %q as a secret to mask", v)
		}
	}
	if masked["eu-west-1"] {
		t.Error("AWS_REGION's value is masked; a provider's setting is dropped, not masked")
	}
	if _, err := ParsePatterns("A_*, B [x"); err == nil {
		t.Error("ParsePatterns accepted a malformed glob")
	}
	if got, _ := ParsePatterns("A_*, B\nC"); !slices.Equal(got, []string{"A_*", "B", "C"}) {
		t.Errorf("ParsePatterns = %q", got)
	}
}

// TestMasker masks every known value in one pass, longest first, in plain
// text and in JSON, and leaves short values and other text alone.
//
// spec: A1, A2
func TestMasker(t *testing.T) {
	m := NewMasker([]Secret{
		{Name: "OPENAI_API_KEY", Value: "sk-abcdefgh"},
		{Name: "LONGER", Value: "sk-abcdefgh-and-more"},
		{Name: "QUOTED", Value: `pa"ss<w>rd`},
		{Name: "SHORT", Value: "abc"},
	})
	cases := []struct{ in, want string }{
		{"key=sk-abcdefgh.", "key=[secret OPENAI_API_KEY hidden]."},
		{"sk-abcdefgh-and-more", "[secret LONGER hidden]"},
		{"abc abc", "abc abc"},
		{"nothing here", "nothing here"},
		{`x pa"ss<w>rd y`, "x [secret QUOTED hidden] y"},
		{"sk-abcdefghsk-abcdefgh", "[secret OPENAI_API_KEY hidden][secret OPENAI_API_KEY hidden]"},
	}
	for _, c := range cases {
		if got := m.Mask(c.in); got != c.want {
			t.Errorf("Mask(%q) = %q; want %q", c.in, got, c.want)
		}
	}
	b, _ := json.Marshal(map[string]string{"tail": `the password is pa"ss<w>rd`})
	got := m.Mask(string(b))
	var back map[string]string
	if err := json.Unmarshal([]byte(got), &back); err != nil || strings.Contains(got, "ss") && strings.Contains(back["tail"], "pa\"ss") {
		t.Errorf("Mask(JSON) = %s (%v); want valid JSON without the value", got, err)
	}
	var nilMasker *Masker
	if nilMasker.Mask("sk-abcdefgh") != "sk-abcdefgh" || NewMasker(nil).Mask("x") != "x" {
		t.Error("an empty Masker changed text")
	}
}

func BenchmarkMask(b *testing.B) {
	var secrets []Secret
	for i := range 40 {
		secrets = append(secrets, Secret{Name: "V", Value: strings.Repeat(string(rune('a'+i%26)), 8) + "-secret-value"})
	}
	m := NewMasker(secrets)
	text := strings.Repeat("ordinary build output line with some words 0123456789\n", 20000) // 1 MiB
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		m.Mask(text)
	}
}
