package tests

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"foya/backend/approval"
	"foya/backend/kernel"
	"foya/backend/profiles"
)

// Every kernel method fed bad input fails with an error whose code a front
// end can branch on: unknown IDs are not_found, bad
// modes, settings, names and paths invalid, clashes with the current state
// conflict, and a missing answerer unavailable. The specific sentinels
// keep holding beside the general ones.
//
// spec: W3, W4
func TestKernelErrorCodes(t *testing.T) {
	h := newHarness(t, nil)
	ctx := context.Background()
	k := h.k
	sess := h.session("auto")
	rules := t.TempDir()
	os.MkdirAll(filepath.Join(rules, ".foya"), 0o755)
	os.WriteFile(filepath.Join(rules, approval.RulesFile), []byte(`{"allow":[{"tool":"write"}]}`), 0o644)
	broken := t.TempDir()
	os.MkdirAll(filepath.Join(broken, ".foya"), 0o755)
	os.WriteFile(filepath.Join(broken, approval.RulesFile), []byte(`{"allow":`), 0o644)
	file := filepath.Join(t.TempDir(), "f")
	os.WriteFile(file, nil, 0o644)
	if _, err := k.Profiles().Add(ctx, profiles.ProviderInput{Name: "p1", BaseURL: h.srv.URL, Model: "m"}); err != nil {
		t.Fatal(err)
	}
	err1 := func(_ any, err error) error { return err }
	err3 := func(_ any, _, _ string, err error) error { return err }
	for _, c := range []struct {
		name string
		err  error
		code string
	}{
		{"Session unknown", err1(k.Session(ctx, "ses_nope")), kernel.CodeNotFound},
		{"Runs unknown session", err1(k.Runs(ctx, "ses_nope")), kernel.CodeNotFound},
		{"Messages unknown session", err1(k.Messages(ctx, "ses_nope")), kernel.CodeNotFound},
		{"Events unknown session", err1(k.Events(ctx, "ses_nope", 0)), kernel.CodeNotFound},
		{"Events negative seq", err1(k.Events(ctx, sess.ID, -1)), kernel.CodeInvalid},
		{"Changes unknown session", err1(k.Changes(ctx, "ses_nope")), kernel.CodeNotFound},
		{"Approvals unknown session", err1(k.Approvals(ctx, "ses_nope")), kernel.CodeNotFound},
		{"RunInstructions unknown session", err1(k.RunInstructions(ctx, "ses_nope")), kernel.CodeNotFound},
		{"Calls unknown run", err1(k.Calls(ctx, "run_nope")), kernel.CodeNotFound},
		{"Change unknown", err1(k.Change(ctx, "chg_nope")), kernel.CodeNotFound},
		{"Diff unknown change", err1(k.Diff(ctx, "chg_nope")), kernel.CodeNotFound},
		{"Artifact unknown", err1(k.Artifact(ctx, sess.ID, "art_nope")), kernel.CodeNotFound},
		{"Revert nothing selected", err1(k.Revert(ctx, kernel.RevertRequest{})), kernel.CodeInvalid},
		{"Revert two selections", err1(k.Revert(ctx, kernel.RevertRequest{RunID: "run_x", ToChangeID: "chg_x"})), kernel.CodeInvalid},
		{"Revert hunks of two changes", err1(k.Revert(ctx, kernel.RevertRequest{ChangeIDs: []string{"a", "b"}, Hunks: []int{1}})), kernel.CodeInvalid},
		{"Revert unknown change", err1(k.Revert(ctx, kernel.RevertRequest{ChangeIDs: []string{"chg_nope"}})), kernel.CodeNotFound},
		{"Revert unknown run", err1(k.Revert(ctx, kernel.RevertRequest{RunID: "run_nope"})), kernel.CodeNotFound},
		{"Revert to unknown change", err1(k.Revert(ctx, kernel.RevertRequest{ToChangeID: "chg_nope"})), kernel.CodeNotFound},
		{"CreateSession no folder", err1(k.CreateSession(ctx, kernel.NewSession{Workdir: "", ApprovalMode: "auto"})), kernel.CodeInvalid},
		{"CreateSession missing folder", err1(k.CreateSession(ctx, kernel.NewSession{Workdir: filepath.Join(h.dir, "nope"), ApprovalMode: "auto"})), kernel.CodeInvalid},
		{"CreateSession a file", err1(k.CreateSession(ctx, kernel.NewSession{Workdir: file, ApprovalMode: "auto"})), kernel.CodeInvalid},
		{"CreateSession NUL", err1(k.CreateSession(ctx, kernel.NewSession{Workdir: "/tmp/\x00x", ApprovalMode: "auto"})), kernel.CodeInvalid},
		{"CreateSession bad mode", err1(k.CreateSession(ctx, kernel.NewSession{Workdir: h.dir, ApprovalMode: "turbo"})), kernel.CodeInvalid},
		{"UpdateSession unknown", k.UpdateSession(ctx, kernel.Session{ID: "ses_nope", Title: "x"}), kernel.CodeNotFound},
		{"UpdateSession bad mode", k.UpdateSession(ctx, kernel.Session{ID: sess.ID, Title: "x", ApprovalMode: "turbo"}), kernel.CodeInvalid},
		{"Run empty prompt", err1(k.Run(ctx, kernel.RunOptions{SessionID: sess.ID, Prompt: "  ", Model: h.model()})), kernel.CodeInvalid},
		{"Run negative steps", err1(k.Run(ctx, kernel.RunOptions{SessionID: sess.ID, Prompt: "x", MaxSteps: -1, Model: h.model()})), kernel.CodeInvalid},
		{"Run unknown session", err1(k.Run(ctx, kernel.RunOptions{SessionID: "ses_nope", Prompt: "x", Model: h.model()})), kernel.CodeNotFound},
		{"SetMode bad mode", k.SetMode(ctx, sess.ID, "turbo"), kernel.CodeInvalid},
		{"SetMode unknown session", k.SetMode(ctx, "ses_nope", "auto"), kernel.CodeNotFound},
		{"SetDefaultMode bad mode", k.SetDefaultMode(ctx, "turbo"), kernel.CodeInvalid},
		{"SetSetting unknown key", k.SetSetting(ctx, "no.such.key", "1"), kernel.CodeInvalid},
		{"SetSetting bad steps", k.SetSetting(ctx, kernel.SettingMaxSteps, "zero"), kernel.CodeInvalid},
		{"SetSetting bad bytes", k.SetSetting(ctx, kernel.SettingMaxWrite, "-1"), kernel.CodeInvalid},
		{"SetSetting bad duration", k.SetSetting(ctx, kernel.SettingIdleTimeout, "soon"), kernel.CodeInvalid},
		{"SetSetting relative readable", k.SetSetting(ctx, kernel.SettingSandboxReadable, "rel/path"), kernel.CodeInvalid},
		{"SetSetting bad mode", k.SetSetting(ctx, kernel.SettingDefaultMode, "turbo"), kernel.CodeInvalid},
		{"SetSetting bad images", k.SetSetting(ctx, "model.images.m", "maybe"), kernel.CodeInvalid},
		{"SetSetting unknown default provider", k.SetSetting(ctx, profiles.SettingDefaultProvider, "nope"), kernel.CodeNotFound},
		{"SetImageInput no model", k.Profiles().SetImageInput(ctx, " ", true), kernel.CodeInvalid},
		{"Provider unknown", err1(k.Profiles().Get(ctx, "nope")), kernel.CodeNotFound},
		{"EditProvider unknown", err1(k.Profiles().Edit(ctx, "nope", profiles.ProviderEdit{})), kernel.CodeNotFound},
		{"RemoveProvider unknown", k.Profiles().Remove(ctx, "nope"), kernel.CodeNotFound},
		{"SetDefaultProvider unknown", k.Profiles().SetDefault(ctx, "nope"), kernel.CodeNotFound},
		{"TestProvider unknown", err1(k.Profiles().Test(ctx, "nope")), kernel.CodeNotFound},
		{"AddProvider bad name", err1(k.Profiles().Add(ctx, profiles.ProviderInput{Name: "a b", BaseURL: h.srv.URL, Model: "m"})), kernel.CodeInvalid},
		{"AddProvider bad URL", err1(k.Profiles().Add(ctx, profiles.ProviderInput{Name: "p2", BaseURL: "ftp://x", Model: "m"})), kernel.CodeInvalid},
		{"AddProvider existing", err1(k.Profiles().Add(ctx, profiles.ProviderInput{Name: "p1", BaseURL: h.srv.URL, Model: "m"})), kernel.CodeConflict},
		{"ProviderModel unknown", err3(k.Profiles().Client(ctx, profiles.ModelChoice{Provider: "nope"})), kernel.CodeNotFound},
		{"TrustProjectRules no file", k.TrustProjectRules(ctx, h.dir, "abc"), kernel.CodeNotFound},
		{"TrustProjectRules changed", k.TrustProjectRules(ctx, rules, strings.Repeat("0", 64)), kernel.CodeConflict},
		{"TrustProjectRules unparsable", k.TrustProjectRules(ctx, broken, strings.Repeat("0", 64)), kernel.CodeInvalid},
		{"KillBackground unknown", err1(k.KillBackground(sess.ID, "bg_nope")), kernel.CodeNotFound},
		{"Answer unknown", k.Answer("apr_nope", kernel.Answer{Choice: kernel.AllowOnce}), kernel.CodeNotFound},
		{"DeleteSession unknown", k.DeleteSession(ctx, "ses_nope"), kernel.CodeNotFound},
		{"WatchSession unknown", err1(k.WatchSession(ctx, "ses_nope")), kernel.CodeNotFound},
		{"CompletePath relative", err1(k.CompletePath(ctx, "src/foya")), kernel.CodeInvalid},
	} {
		if got := kernel.Code(c.err); got != c.code {
			t.Errorf("%s: code %q (%v); want %q", c.name, got, c.err, c.code)
		}
		if c.err != nil && strings.TrimSpace(c.err.Error()) == "" {
			t.Errorf("%s: an error without a message", c.name)
		}
	}

	// The specific sentinels hold beside the general ones.
	if err := err1(k.Profiles().Get(ctx, "nope")); !errors.Is(err, profiles.ErrProviderNotFound) || !errors.Is(err, kernel.ErrNotFound) {
		t.Errorf("unknown provider: %v; want ErrProviderNotFound and ErrNotFound", err)
	}
	if err := err1(k.Profiles().Add(ctx, profiles.ProviderInput{Name: "p1", BaseURL: h.srv.URL, Model: "m"})); !errors.Is(err, profiles.ErrProviderExists) {
		t.Errorf("existing provider: %v; want ErrProviderExists", err)
	}
	if err := err1(k.Profiles().Add(ctx, profiles.ProviderInput{Name: "", BaseURL: h.srv.URL, Model: "m"})); !errors.Is(err, profiles.ErrInvalidProvider) {
		t.Errorf("bad provider: %v; want ErrInvalidProvider", err)
	}
	if err := err1(k.Revert(ctx, kernel.RevertRequest{})); !kernel.IsBadRevert(err) {
		t.Errorf("empty revert: %v; want IsBadRevert", err)
	}
	if err := err1(k.KillBackground(sess.ID, "bg_nope")); !errors.Is(err, kernel.ErrNoCommand) {
		t.Errorf("unknown command: %v; want ErrNoCommand", err)
	}
	if kernel.Code(profiles.ErrKeyringLocked) != kernel.CodeUnavailable {
		t.Error("a locked keyring is not unavailable")
	}
	if kernel.Code(errors.New("disk on fire")) != kernel.CodeInternal || kernel.Code(nil) != "" {
		t.Error("other errors are not internal, or nil has a code")
	}

	// A kernel no one can answer for refuses answers as unavailable.
	headless, err := kernel.Open(ctx, kernel.Options{DBPath: filepath.Join(t.TempDir(), "h.db"), Headless: true})
	if err != nil {
		t.Fatal(err)
	}
	defer headless.Close()
	if err := headless.Answer("apr_x", kernel.Answer{Choice: kernel.AllowOnce}); kernel.Code(err) != kernel.CodeUnavailable {
		t.Errorf("headless answer: %v; want unavailable", err)
	}
}
