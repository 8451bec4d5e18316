package store

import (
	"context"
	"errors"
	"testing"
)

func TestUpdateSetting(t *testing.T) {
	s := open(t)
	ctx := context.Background()
	add := func(v string, ok bool) (string, bool, error) { return v + "x", false, nil }
	for range 2 {
		if err := s.UpdateSetting(ctx, "k", add); err != nil {
			t.Fatal(err)
		}
	}
	if v, ok, _ := s.Setting(ctx, "k"); !ok || v != "xx" {
		t.Fatalf("after two updates: %q %v", v, ok)
	}
	boom := errors.New("boom")
	err := s.UpdateSetting(ctx, "k", func(string, bool) (string, bool, error) { return "lost", false, boom })
	if err != boom {
		t.Fatalf("fn's error came back as %v", err)
	}
	if v, _, _ := s.Setting(ctx, "k"); v != "xx" {
		t.Fatalf("a failed update changed the setting to %q", v)
	}
	if err := s.UpdateSetting(ctx, "k", func(string, bool) (string, bool, error) { return "", true, nil }); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := s.Setting(ctx, "k"); ok {
		t.Fatal("removed setting is still there")
	}
}
