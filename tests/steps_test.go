package tests

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"foya/backend/cli"
	"foya/backend/engine"
	"foya/backend/kernel"
	pt "foya/backend/provider/providertest"
	"foya/backend/tools"
)

// recordTurns returns n turns that each call the record tool once, then one
// that answers.
func recordTurns(n int) []pt.Turn {
	turns := make([]pt.Turn, 0, n+1)
	for i := range n {
		turns = append(turns, pt.Calls(call(fmt.Sprintf("c%d", i), "record", fmt.Sprintf(`{"tag":"%d"}`, i))))
	}
	return append(turns, pt.Say("done"))
}

// The step limit of a turn is the run.max_steps setting,
// 500 by default, and a turn's own limit wins over it; the stop at the
// limit is clear and says how to go on. Bad values are refused with a
// message and change nothing.
func TestStepLimitIsASetting(t *testing.T) {
	ctx := context.Background()
	t.Run("default fits fifty calls", func(t *testing.T) {
		// 50 calls and an answer are 51 steps: more than the old limit.
		h := newHarness(t, []tools.Tool{recorder{&tracker{}}}, recordTurns(50)...)
		run := h.runIn(ctx, h.session("auto").ID, "fifty calls")
		if run.Status != kernel.RunCompleted || run.Steps != 51 {
			t.Fatalf("run %s after %d steps (%s); want completed after 51", run.Status, run.Steps, run.Error)
		}
		if s, _ := h.k.Settings(ctx); s[kernel.SettingMaxSteps] != fmt.Sprint(engine.DefaultMaxSteps) || engine.DefaultMaxSteps != 500 {
			t.Errorf("settings say %s = %q; want the default 500", kernel.SettingMaxSteps, s[kernel.SettingMaxSteps])
		}
	})
	t.Run("setting stops the turn", func(t *testing.T) {
		h := newHarness(t, []tools.Tool{recorder{&tracker{}}}, recordTurns(3)...)
		if err := h.k.SetSetting(ctx, kernel.SettingMaxSteps, "2"); err != nil {
			t.Fatal(err)
		}
		run := h.runIn(ctx, h.session("auto").ID, "loop")
		if run.Status != kernel.RunFailed || run.Steps != 2 || !strings.Contains(run.Error, "stopped after 2 model steps") ||
			!strings.Contains(run.Error, "send another message to continue") || !strings.Contains(run.Error, kernel.SettingMaxSteps) {
			t.Fatalf("run %s after %d steps: %q; want a failure at 2 steps that says how to continue", run.Status, run.Steps, run.Error)
		}
	})
	t.Run("the turn's own limit wins", func(t *testing.T) {
		h := newHarness(t, []tools.Tool{recorder{&tracker{}}}, recordTurns(3)...)
		if err := h.k.SetSetting(ctx, kernel.SettingMaxSteps, "2"); err != nil {
			t.Fatal(err)
		}
		run, err := h.k.Run(ctx, kernelRun(h.session("auto").ID, "loop", h, 4))
		if err != nil || run.Status != kernel.RunCompleted || run.Steps != 4 {
			t.Fatalf("run %s after %d steps (%q, %v); want completed after 4", run.Status, run.Steps, run.Error, err)
		}
		if _, err := h.k.Run(ctx, kernelRun(h.session("auto").ID, "loop", h, -1)); err == nil {
			t.Error("a negative step limit started a run")
		}
		if _, err := h.k.Run(ctx, kernelRun(h.session("auto").ID, "loop", h, engine.MaxStepsLimit+1)); err == nil {
			t.Error("a step limit beyond the most started a run")
		}
	})
	t.Run("bad values", func(t *testing.T) {
		h := newHarness(t, nil)
		if err := h.k.SetSetting(ctx, kernel.SettingMaxSteps, "7"); err != nil {
			t.Fatal(err)
		}
		for value, want := range map[string]string{
			"0":                     "at least 1",
			"-3":                    "at least 1",
			"-99999999999999999999": "at least 1",
			"abc":                   "whole number",
			"1.5":                   "whole number",
			"1e3":                   "whole number",
			"":                      "whole number",
			"100001":                "too large",
			"99999999999999999999":  "too large",
		} {
			err := h.k.SetSetting(ctx, kernel.SettingMaxSteps, value)
			if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), kernel.SettingMaxSteps) {
				t.Errorf("SetSetting(%s, %q) = %v; want an error saying %q", kernel.SettingMaxSteps, value, err, want)
			}
		}
		if s, _ := h.k.Settings(ctx); s[kernel.SettingMaxSteps] != "7" {
			t.Errorf("after bad values the setting is %q; want 7 kept", s[kernel.SettingMaxSteps])
		}
		if err := h.k.SetSetting(ctx, kernel.SettingMaxSteps, " 100000 "); err != nil {
			t.Errorf("the largest limit was refused: %v", err)
		}
	})
}

// foya runs the command line in this process and returns its exit code and
// its standard output and error.
func foya(t *testing.T, extra []tools.Tool, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := cli.Run(context.Background(), args, cli.Env{
		Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Tools: extra,
		Getenv: func(string) string { return "" },
	})
	return code, out.String(), errb.String()
}

// The step limit from the command line: foya settings set run.max_steps
// checks its value, foya exec stops at the setting, and --max-steps wins.
func TestStepLimitFromTheCLI(t *testing.T) {
	db := filepath.Join(t.TempDir(), "foya.db")
	dir := t.TempDir()
	for _, value := range []string{"0", "-1", "ten", "99999999999999999999", "100001"} {
		code, _, stderr := foya(t, nil, "settings", "set", "run.max_steps", value, "--db", db)
		if code != cli.ExitUsage || !strings.Contains(stderr, "run.max_steps") {
			t.Errorf("settings set run.max_steps %s: exit %d %q; want 2 and a message", value, code, stderr)
		}
	}
	if code, stdout, _ := foya(t, nil, "settings", "--db", db); code != 0 || !strings.Contains(stdout, "run.max_steps = 500") {
		t.Fatalf("settings: %d %q; want the default 500 listed", code, stdout)
	}
	if code, _, stderr := foya(t, nil, "settings", "set", "run.max_steps", "2", "--db", db); code != 0 {
		t.Fatalf("settings set run.max_steps 2: exit %d %s", code, stderr)
	}
	if code, stdout, _ := foya(t, nil, "settings", "--db", db); !strings.Contains(stdout, "run.max_steps = 2") {
		t.Fatalf("settings: %d %q; want run.max_steps = 2", code, stdout)
	}

	rec := []tools.Tool{recorder{&tracker{}}}
	exec := func(extra ...string) (int, string) {
		srv := pt.New(t, recordTurns(3)...)
		args := append([]string{"exec", "--db", db, "--workdir", dir, "--base-url", srv.URL, "--model", "m", "--approval", "auto"}, extra...)
		code, _, stderr := foya(t, rec, append(args, "loop")...)
		return code, stderr
	}
	code, stderr := exec()
	if code != cli.ExitFailed || !strings.Contains(stderr, "stopped after 2 model steps") || !strings.Contains(stderr, "continue") {
		t.Fatalf("exec with run.max_steps 2: exit %d\n%s\nwant exit 1 and the stop with its hint", code, stderr)
	}
	if code, stderr := exec("--max-steps", "4"); code != cli.ExitOK {
		t.Fatalf("exec --max-steps 4: exit %d\n%s\nwant the flag to win over the setting", code, stderr)
	}
	for _, value := range []string{"0", "-2", "many", "1e9", "99999999999999999999", "100001"} {
		if code, stderr := exec("--max-steps", value); code != cli.ExitUsage || !strings.Contains(stderr, "--max-steps") {
			t.Errorf("exec --max-steps %s: exit %d %q; want 2 and a message", value, code, stderr)
		}
	}
}
