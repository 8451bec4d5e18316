package profiles_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"foya/backend/fault"
	"foya/backend/profiles"
)

// Issue 25, item 7: a profile's prices, in US dollars per million prompt
// and completion tokens, for the cost the composer's meter shows.

// Prices are kept with the profile, checked, and reach the window the meter asks.
func TestProfilePrices(t *testing.T) {
	ctx := context.Background()
	s := windowService(t)
	down := "http://127.0.0.1:1/v1" // nothing answers: the window is the guess
	p, err := s.Add(ctx, profiles.ProviderInput{Name: "priced", BaseURL: down, Model: "m", InputPrice: 3, OutputPrice: 15})
	if err != nil || p.InputPrice != 3 || p.OutputPrice != 15 {
		t.Fatalf("add with prices: %+v, %v", p, err)
	}
	if got, _ := s.Get(ctx, "priced"); got.InputPrice != 3 || got.OutputPrice != 15 {
		t.Fatalf("stored: %+v", got)
	}
	w, err := s.Window(ctx, "priced", "")
	if err != nil || w.InputPrice != 3 || w.OutputPrice != 15 {
		t.Fatalf("window: %+v, %v; want the prices", w, err)
	}

	// An edit of one price keeps the other; an edit that leaves one alone is refused.
	in := 0.15
	if p, err = s.Edit(ctx, "priced", profiles.ProviderEdit{InputPrice: &in}); err != nil || p.InputPrice != 0.15 || p.OutputPrice != 15 {
		t.Fatalf("edit the input price: %+v, %v", p, err)
	}
	if w, _ = s.Window(ctx, "priced", ""); w.InputPrice != 0.15 {
		t.Fatalf("window after the edit: %+v; want the new price", w)
	}
	zero := 0.0
	_, err = s.Edit(ctx, "priced", profiles.ProviderEdit{InputPrice: &zero})
	if !errors.Is(err, fault.ErrInvalid) || !strings.Contains(err.Error(), "give an input price as well as the output one") {
		t.Fatalf("unset the input price alone: %v", err)
	}
	if p, err = s.Edit(ctx, "priced", profiles.ProviderEdit{InputPrice: &zero, OutputPrice: &zero}); err != nil || p.InputPrice != 0 || p.OutputPrice != 0 {
		t.Fatalf("unset both: %+v, %v", p, err)
	}
	if w, _ = s.Window(ctx, "priced", ""); w.InputPrice != 0 || w.OutputPrice != 0 {
		t.Fatalf("window without prices: %+v", w)
	}

	// Other edits keep the prices.
	if _, err = s.Edit(ctx, "priced", profiles.ProviderEdit{InputPrice: new(2.5), OutputPrice: new(10.0)}); err != nil {
		t.Fatal(err)
	}
	model := "m2"
	if p, err = s.Edit(ctx, "priced", profiles.ProviderEdit{Model: &model}); err != nil || p.InputPrice != 2.5 || p.OutputPrice != 10 {
		t.Fatalf("edit the model: %+v, %v; want the prices kept", p, err)
	}
}

func TestProfilePricesChecked(t *testing.T) {
	ctx := context.Background()
	s := windowService(t)
	for _, tc := range []struct {
		in, out float64
		want    string
	}{
		{-1, 15, "an input price of -1: give US dollars per million tokens, from 0 (not set) to 1000"},
		{3, -0.5, "an output price of -0.5"},
		{math.NaN(), 15, "an input price of NaN"},
		{3, math.Inf(1), "an output price of +Inf"},
		{1001, 15, "an input price of 1001"},
		{3, 1e300, "an output price of 1e+300"},
		{3, 0, "give an output price as well as the input one ($3 per million tokens)"},
		{0, 15, "give an input price as well as the output one ($15 per million tokens)"},
	} {
		_, err := s.Add(ctx, profiles.ProviderInput{Name: "p", BaseURL: "http://127.0.0.1:1/v1", Model: "m", InputPrice: tc.in, OutputPrice: tc.out})
		if !errors.Is(err, fault.ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("add with prices %v, %v: %v; want invalid, %q", tc.in, tc.out, err, tc.want)
		}
	}
	if _, err := s.Get(ctx, "p"); !errors.Is(err, profiles.ErrProviderNotFound) {
		t.Fatalf("a refused profile was kept: %v", err)
	}
	if p, err := s.Add(ctx, profiles.ProviderInput{Name: "p", BaseURL: "http://127.0.0.1:1/v1", Model: "m", InputPrice: 1000, OutputPrice: 0.01}); err != nil || p.InputPrice != 1000 {
		t.Fatalf("the largest price: %+v, %v", p, err)
	}
}
