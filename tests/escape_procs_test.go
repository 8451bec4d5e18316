//go:build linux

package tests

import (
	"encoding/base64"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// Secrets in Foya's environment must not reach a
// command's output as the model sees it, in every mode, Full Access
// included: variables that hold credentials are not in a command's
// environment, and a known secret value is masked wherever it shows up
// (a file). (A command's parent's environment is pinned by the sandbox's
// TestHelperHasCommandsEnvironment, and Foya's own /proc environ by
// TestExecKeepsProviderKeyFromCommands: this process's environ is the one
// it started with, without the variables these attempts set.)
//
// A command's processes die with its call in every
// mode, Full Access included, however they leave its process group.

// envSecret returns a setup that puts name=value into Foya's environment,
// and a check that value reached the result.
func envSecret(name, value string) (func(t *testing.T, b *escBox), func(b *escBox, result string) bool) {
	return func(t *testing.T, b *escBox) { t.Setenv(name, value) },
		func(_ *escBox, result string) bool { return strings.Contains(result, value) }
}

func secretAttempt(name, command, varName, value string) escapeAttempt {
	setup, happened := envSecret(varName, value)
	return escapeAttempt{name: name, setup: setup, command: command, happened: happened, everyMode: true}
}

// daemonAttempt starts a process that leaves the command's process group
// the given way (form runs SLEEP once it has left, after touching the file
// ready); the command waits until it has. It happened if the process is
// alive once the call is done.
func daemonAttempt(name, form string) escapeAttempt {
	m := sleepMarker()
	return escapeAttempt{
		name: name, everyMode: true,
		command: strings.ReplaceAll(form, "SLEEP", "sleep "+m) + "\nwhile [ ! -e ready ]; do sleep 0.01; done; echo started",
		happened: func(*escBox, string) bool {
			alive := processesWith(m)
			for pid := range alive {
				syscall.Kill(pid, syscall.SIGKILL) // an escaped one must not outlive the test
			}
			return len(alive) > 0
		},
	}
}

var secretEnvAttempts = []escapeAttempt{
	secretAttempt("env shows a cloud secret", `env`, "AWS_SECRET_ACCESS_KEY", "esc-aws-secret-0123456789abcdef"),
	secretAttempt("printenv of a token", `printenv GITHUB_TOKEN`, "GITHUB_TOKEN", "ghp_escapetest0123456789abcdefABCDEF"),
	secretAttempt("a model key by its name", `echo "$OPENAI_API_KEY"`, "OPENAI_API_KEY", "sk-esc-openai-0123456789abcdefgh"),
	secretAttempt("a password variable", `echo "$PGPASSWORD"`, "PGPASSWORD", "esc-pg-password-0123456789"),
	secretAttempt("a token-shaped value under a plain name", `echo "$MY_BUILD_THING"`, "MY_BUILD_THING", "ghp_escapeplainname0123456789abcdefAB"),
	secretAttempt("a URL with a password", `echo "$DATABASE_URL"`, "DATABASE_URL", "postgres://app:esc-db-pw-0123456789@db/app"),
	{
		name: "a file holding a secret value", command: `cat notes.txt`, everyMode: true,
		setup: func(t *testing.T, b *escBox) {
			t.Setenv("ESC_FILE_API_KEY", "esc-file-api-key-0123456789abc")
			escWrite(t, filepath.Join(b.ws, "notes.txt"), "the key: esc-file-api-key-0123456789abc\n")
		},
		happened: func(_ *escBox, result string) bool { return strings.Contains(result, "esc-file-api-key-0123456789abc") },
	},
	{
		name: "a secret variable, encoded", command: `printf %s "$ESC_ENCODED_TOKEN" | base64`, everyMode: true,
		setup: func(t *testing.T, b *escBox) { t.Setenv("ESC_ENCODED_TOKEN", "esc-encoded-token-0123456789") },
		happened: func(_ *escBox, result string) bool {
			return strings.Contains(result, base64.StdEncoding.EncodeToString([]byte("esc-encoded-token-0123456789")))
		},
	},
}

var processAttempts = []escapeAttempt{
	daemonAttempt("a setsid daemon outlives its call", `setsid sh -c 'touch ready; exec SLEEP' > /dev/null 2>&1 &`),
	daemonAttempt("a nohup daemon outlives its call", `nohup sh -c 'touch ready; exec SLEEP' > /dev/null 2>&1 &`),
	daemonAttempt("a double-forked daemon outlives its call", `( ( touch ready; exec SLEEP ) > /dev/null 2>&1 & )`),
	daemonAttempt("a setsid double fork that ignores SIGTERM outlives its call",
		`setsid sh -c '( trap "" TERM HUP; touch ready; exec SLEEP ) > /dev/null 2>&1 &' > /dev/null 2>&1 &`),
}
