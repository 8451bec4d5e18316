package tests

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"foya/backend/api"
	"foya/backend/kernel"
	"foya/backend/profiles"
	"foya/backend/provider/providertest"
)

// Issue 25, item 7: a profile's prices (US dollars per million prompt and
// completion tokens), from which the composer's meter shows a session's
// cost.

// The command line sets, changes, lists and unsets a profile's prices, and
// refuses bad ones (exit 2, the profile unchanged).
func TestProviderPricesCommandLine(t *testing.T) {
	bin := foyaBinary(t)
	env := providerEnv("")
	db := filepath.Join(t.TempDir(), "foya.db")
	down := downURL(t)
	foya := func(args ...string) execResult {
		return runFoyaIn(t, bin, env, "", append(args, "--db", db)...)
	}
	if res := foya("providers", "add", "cloud", "--base-url", down, "--model", "m", "--input-price", "3", "--output-price", "15"); res.code != 0 {
		t.Fatalf("add with prices: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	if res := foya("providers", "add", "local", "--base-url", down, "--model", "m"); res.code != 0 {
		t.Fatalf("add without prices: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	res := foya("providers", "list")
	lines := strings.Split(res.stdout, "\n")
	if res.code != 0 || len(lines) < 2 || !strings.HasSuffix(lines[0], " · $3/M input, $15/M output") || strings.Contains(lines[1], "$") {
		t.Fatalf("list: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	prices := func(name string) (float64, float64) {
		for _, p := range listProviders(t, bin, env, db) {
			if p.Name == name {
				return p.InputPrice, p.OutputPrice
			}
		}
		t.Fatalf("no profile %s", name)
		return 0, 0
	}
	if in, out := prices("cloud"); in != 3 || out != 15 {
		t.Fatalf("list --json: prices %v, %v", in, out)
	}

	// One price changed, the other kept.
	if res := foya("providers", "edit", "cloud", "--input-price", "0.15"); res.code != 0 {
		t.Fatalf("edit the input price: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	if in, out := prices("cloud"); in != 0.15 || out != 15 {
		t.Fatalf("after edit: prices %v, %v", in, out)
	}
	if res := foya("providers", "list"); !strings.Contains(res.stdout, "$0.15/M input, $15/M output") {
		t.Fatalf("list after edit:\n%s", res.stdout)
	}

	for name, c := range map[string]struct {
		args []string
		want string
	}{
		"not a number":   {[]string{"providers", "edit", "cloud", "--input-price", "cheap"}, "invalid value"},
		"negative":       {[]string{"providers", "edit", "cloud", "--output-price", "-2"}, "an output price of -2"},
		"NaN":            {[]string{"providers", "edit", "cloud", "--input-price", "NaN"}, "an input price of NaN"},
		"infinite":       {[]string{"providers", "edit", "cloud", "--output-price", "Inf"}, "an output price of +Inf"},
		"too large":      {[]string{"providers", "edit", "cloud", "--input-price", "3000000"}, "from 0 (not set) to 1000"},
		"one unset":      {[]string{"providers", "edit", "cloud", "--input-price", "0"}, "give an input price as well as the output one"},
		"add input only": {[]string{"providers", "add", "half", "--base-url", down, "--model", "m", "--input-price", "3"}, "give an output price as well"},
		"add on unknown": {[]string{"providers", "edit", "nope", "--input-price", "3"}, "no such provider"},
	} {
		res := foya(c.args...)
		if res.code != 2 || !strings.Contains(res.stderr, c.want) {
			t.Errorf("%s: exit %d, stderr %q; want 2 and %q", name, res.code, res.stderr, c.want)
		}
	}
	if in, out := prices("cloud"); in != 0.15 || out != 15 {
		t.Fatalf("bad input changed the prices: %v, %v", in, out)
	}
	if len(listProviders(t, bin, env, db)) != 2 {
		t.Fatal("a refused profile was added")
	}

	// 0 for both unsets them.
	if res := foya("providers", "edit", "cloud", "--input-price", "0", "--output-price", "0"); res.code != 0 {
		t.Fatalf("unset the prices: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	if res := foya("providers", "list"); strings.Contains(res.stdout, "$") {
		t.Fatalf("list after unsetting the prices:\n%s", res.stdout)
	}
	if res := foya("providers", "list", "--json"); strings.Contains(res.stdout, "Price") {
		t.Fatalf("list --json after unsetting the prices:\n%s", res.stdout)
	}
}

// The prices reach the front end with the window the meter asks
// (ContextWindow, through the bound API as JSON): those of the profile the
// session's next run uses, so after a change of profile the new one's;
// none for a profile without prices.
func TestProviderPricesThroughTheAPI(t *testing.T) {
	noKeyring(t)
	h := newHarness(t, nil, providertest.Say("hi"))
	ctx := context.Background()
	svc := api.New(ctx, func() (*kernel.Kernel, error) { return h.k, nil })
	var in profiles.ProviderInput
	if err := json.Unmarshal([]byte(`{"name":"cloud","baseUrl":"`+h.srv.URL+`","model":"m","inputPrice":3,"outputPrice":15}`), &in); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.AddProvider(in); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.AddProvider(profiles.ProviderInput{Name: "local", BaseURL: h.srv.URL, Model: "m"}); err != nil {
		t.Fatal(err)
	}
	sess := h.session("auto")
	r, err := h.k.Run(ctx, kernel.RunOptions{SessionID: sess.ID, Prompt: "hello"})
	if err != nil || r.Status != kernel.RunCompleted {
		t.Fatalf("run: %+v, %v", r, err)
	}
	window := func() map[string]any {
		t.Helper()
		w, err := svc.ContextWindow(sess.ID)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(w)
		var m map[string]any
		_ = json.Unmarshal(b, &m)
		return m
	}
	if w := window(); w["provider"] != "cloud" || w["inputPrice"] != 3.0 || w["outputPrice"] != 15.0 {
		t.Fatalf("ContextWindow = %v; want cloud's prices", w)
	}
	// Edited prices are the new ones at once.
	out := 12.5
	if _, err := svc.EditProvider("cloud", profiles.ProviderEdit{OutputPrice: &out}); err != nil {
		t.Fatal(err)
	}
	if w := window(); w["outputPrice"] != 12.5 {
		t.Fatalf("ContextWindow after edit = %v", w)
	}
	// A bad price through the API: invalid, naming the field.
	bad := -1.0
	_, err = svc.EditProvider("cloud", profiles.ProviderEdit{InputPrice: &bad})
	var e *api.Error
	if !errors.As(err, &e) || e.Code != "invalid" || !strings.Contains(e.Message, "an input price of -1") {
		t.Fatalf("EditProvider with a negative price: %v", err)
	}
	// The session moved to a profile without prices: none, never 0s.
	if _, err := svc.SetModel(kernel.ModelChoice{SessionID: sess.ID, Provider: "local", Model: "m"}); err != nil {
		t.Fatal(err)
	}
	w := window()
	if _, ok := w["inputPrice"]; ok || w["provider"] != "local" {
		t.Fatalf("ContextWindow after the change to local = %v; want no prices", w)
	}
	if _, ok := w["outputPrice"]; ok {
		t.Fatalf("ContextWindow after the change to local = %v; want no prices", w)
	}
}
