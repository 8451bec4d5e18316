package secret

import (
	"encoding/json"
	"path"
	"regexp"
	"slices"
	"strings"
)

// MinMasked is the shortest value that is masked: a shorter value (a "1",
// a "true") would mask ordinary text, and no real key or token is that
// short.
const MinMasked = 8

// Policy says which environment variables commands get beyond the
// default rules. Patterns are variable names or globs (path.Match syntax:
// AWS_*, *_TOKEN), compared without regard to case.
type Policy struct {
	// Allow lists variables kept even though they look secret (the
	// setting shell.env.allow). A known secret value (the provider's key)
	// is dropped even when its variable is allowed.
	Allow []string
	// Deny lists more variables to drop (the setting shell.env.deny).
	Deny []string
}

// ParsePatterns splits a setting's value (names or globs separated by
// commas, spaces or newlines) into patterns, and checks each.
func ParsePatterns(s string) ([]string, error) {
	var out []string
	for _, p := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' || r == '\t' }) {
		if _, err := path.Match(p, ""); err != nil {
			return nil, &PatternError{Pattern: p}
		}
		out = append(out, p)
	}
	return out, nil
}

// PatternError is a malformed pattern.
type PatternError struct{ Pattern string }

func (e *PatternError) Error() string {
	return "bad pattern " + e.Pattern + ": want a variable name or a glob such as AWS_* or *_TOKEN"
}

// A Secret is a value that must not reach a command (unless allowed), a
// stored record or the model, with the name it is shown by when masked.
type Secret struct {
	Name  string
	Value string
}

// Filter returns env (NAME=value entries) without the variables that look
// secret, unless p allows them, without those p denies, and without any
// whose value is one of known (the provider's key, whatever the variable
// is called). secrets are the values commands must not show: every
// variable of env whose name or value marks a credential, or that is
// denied, allowed or not (a command may need a token; the model never needs
// to read it), and known. A variable dropped only for its provider prefix
// (AWS_REGION, GITHUB_WORKSPACE) is not masked: its value is a setting,
// not a credential, and masking it would hide ordinary text.
func Filter(env []string, p Policy, known []Secret) (kept []string, secrets []Secret) {
	isKnown := map[string]bool{}
	for _, s := range known {
		if len(s.Value) >= MinMasked {
			isKnown[s.Value] = true
			secrets = append(secrets, s)
		}
	}
	for _, kv := range env {
		name, value, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		denied := matchAny(p.Deny, name)
		drop, mask := classify(name, value)
		if denied || mask {
			secrets = append(secrets, Secret{Name: name, Value: value})
		}
		switch {
		case isKnown[value], denied:
		case drop && !matchAny(p.Allow, name):
		default:
			kept = append(kept, kv)
		}
	}
	return kept, secrets
}

func matchAny(patterns []string, name string) bool {
	name = strings.ToUpper(name)
	for _, p := range patterns {
		if ok, _ := path.Match(strings.ToUpper(p), name); ok {
			return true
		}
	}
	return false
}

// secretWords are name parts that mark a secret: a part equal to one of
// them, or ending with one (APIKEY, AUTHTOKEN, PGPASSWORD, OAUTH), with or
// without a plural s.
var secretWords = []string{"KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "CREDENTIAL",
	"PRIVATE", "AUTH", "SESSION", "COOKIE"}

// exactWords are name parts that mark a secret only as a whole part.
var exactWords = []string{"PASS", "PWD", "DSN", "SIGNATURE", "JWT", "BEARER"}

// secretPrefixes are cloud and model providers whose variables are
// account settings and credentials; none is needed by a build or a test.
var secretPrefixes = []string{"AWS_", "AZURE_", "GCP_", "GOOGLE_", "GCLOUD_", "CLOUDSDK_", "OPENAI_",
	"ANTHROPIC_", "OPENROUTER_", "HF_", "HUGGING_FACE_", "HUGGINGFACE_", "GITHUB_", "GH_", "GITLAB_",
	"BITBUCKET_", "VAULT_", "DIGITALOCEAN_", "CLOUDFLARE_", "HEROKU_"}

// harmless are names that the rules above would drop although their
// values are no secret and programs need them: the working directories,
// the desktop session's variables (a bus address or an agent socket is a
// path; reaching it is the sandbox's business, not the environment's).
var harmless = []string{"PWD", "OLDPWD", "SSH_AUTH_SOCK", "SSH_AGENT_PID", "GPG_AGENT_INFO",
	"DBUS_SESSION_BUS_ADDRESS", "SESSION_MANAGER", "DESKTOP_SESSION", "XDG_SESSION_ID",
	"XDG_SESSION_TYPE", "XDG_SESSION_CLASS", "XDG_SESSION_DESKTOP", "XDG_SESSION_PATH",
	"XAUTHORITY", "KEYTIMEOUT", "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_AUTHOR_DATE"}

// tokenValue matches values shaped like well-known credentials, whatever
// the variable is called: OpenAI and Anthropic keys, GitHub, GitLab, Slack,
// Hugging Face, npm and Stripe tokens, AWS access key IDs, Google API keys,
// a private key in PEM, and a URL with a password (user:pass@host).
var tokenValue = regexp.MustCompile(`^(sk-[A-Za-z0-9_-]{16,}|sk-ant-[A-Za-z0-9_-]{16,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|` +
	`glpat-[A-Za-z0-9_-]{16,}|xox[abposr]-[A-Za-z0-9-]{10,}|hf_[A-Za-z0-9]{20,}|npm_[A-Za-z0-9]{20,}|` +
	`[rs]k_(live|test)_[A-Za-z0-9]{16,}|(AKIA|ASIA)[A-Z0-9]{16}|AIza[A-Za-z0-9_-]{30,})$|-----BEGIN [A-Z ]*PRIVATE KEY-----|` +
	`^[a-zA-Z][a-zA-Z0-9+.-]*://[^/@\s:]*:[^/@\s]+@`)

// LooksSecret reports whether commands do not get a variable by default:
// its name marks a credential (its parts between underscores) or a cloud or
// model provider (its prefix), or its value has the shape of a credential.
func LooksSecret(name, value string) bool {
	drop, _ := classify(name, value)
	return drop
}

// classify says whether a variable is dropped by default, and whether its
// value is masked: a credential's is, a provider's setting's is not.
func classify(name, value string) (drop, mask bool) {
	up := strings.ToUpper(name)
	if slices.Contains(harmless, up) || strings.HasPrefix(up, "XDG_SESSION_") {
		return false, false
	}
	if tokenValue.MatchString(value) {
		return true, true
	}
	parts := strings.FieldsFunc(up, func(r rune) bool { return r == '_' || r == '-' || r == '.' })
	for _, part := range parts {
		bare := strings.TrimSuffix(part, "S")
		for _, w := range secretWords {
			if strings.HasSuffix(part, w) || strings.HasSuffix(bare, w) {
				return true, true
			}
		}
		if slices.Contains(exactWords, part) || slices.Contains(exactWords, bare) {
			return true, true
		}
	}
	for _, p := range secretPrefixes {
		if strings.HasPrefix(up, p) {
			return true, false
		}
	}
	return false, false
}

// A Masker replaces known secret values in text with "[secret NAME
// hidden]". The zero value and a nil Masker mask nothing. It is safe for
// concurrent use.
//
// Each value is searched with strings.Index, which runs at memory speed;
// with the few dozen values an environment holds this beats a
// general multi-pattern replacer (strings.Replacer's trie) by two orders
// of magnitude on megabytes of output.
type Masker struct {
	values []string // longest first
	repl   []string // repl[i] replaces values[i]
}

// NewMasker returns a Masker for the values of secrets of at least
// MinMasked bytes. Text encoded as a JSON string is masked too: each value
// is also searched in its JSON-escaped form.
func NewMasker(secrets []Secret) *Masker {
	byValue := map[string]string{}
	for _, s := range secrets {
		if len(s.Value) < MinMasked {
			continue
		}
		for _, v := range []string{s.Value, jsonEscaped(s.Value)} {
			if _, ok := byValue[v]; !ok {
				byValue[v] = s.Name
			}
		}
	}
	m := &Masker{}
	for v := range byValue {
		m.values = append(m.values, v)
	}
	// Longer values first, so that a value holding another is masked whole.
	slices.SortFunc(m.values, func(a, b string) int {
		if len(a) != len(b) {
			return len(b) - len(a)
		}
		return strings.Compare(a, b)
	})
	for _, v := range m.values {
		m.repl = append(m.repl, "[secret "+label(byValue[v])+" hidden]")
	}
	return m
}

// Mask returns s with every known secret value replaced. Where two values
// overlap, the one that starts first wins, and the longer one at the same
// place.
func (m *Masker) Mask(s string) string {
	if m == nil || len(m.values) == 0 {
		return s
	}
	type hit struct{ start, end, value int }
	var hits []hit
	for i, v := range m.values {
		for off := 0; ; {
			j := strings.Index(s[off:], v)
			if j < 0 {
				break
			}
			hits = append(hits, hit{off + j, off + j + len(v), i})
			off += j + len(v)
		}
	}
	if len(hits) == 0 {
		return s
	}
	slices.SortFunc(hits, func(a, b hit) int {
		if a.start != b.start {
			return a.start - b.start
		}
		return a.value - b.value // longer first
	})
	var b strings.Builder
	b.Grow(len(s))
	at := 0
	for _, h := range hits {
		if h.start < at {
			continue // inside a value already masked
		}
		b.WriteString(s[at:h.start])
		b.WriteString(m.repl[h.value])
		at = h.end
	}
	b.WriteString(s[at:])
	return b.String()
}

// label is a variable name as shown in a mask: characters that would need
// escaping in JSON or could pass for markup are left out.
func label(name string) string {
	b := make([]byte, 0, len(name))
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c == '_' || c == '-' || c == '.' || c == ' ' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			b = append(b, c)
		}
	}
	if len(b) == 0 {
		return "value"
	}
	return string(b)
}

// jsonEscaped is s as it appears inside a JSON string written by
// encoding/json.
func jsonEscaped(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}
