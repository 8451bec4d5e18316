package fault

import (
	"errors"
	"io/fs"
	"testing"
)

func TestKinds(t *testing.T) {
	base := errors.New("disk on fire")
	if Wrap(nil, ErrInvalid) != nil {
		t.Error("Wrap(nil) is not nil")
	}
	w := Wrap(base, ErrUnavailable)
	if !errors.Is(w, base) || !errors.Is(w, ErrUnavailable) || errors.Is(w, ErrInvalid) || w.Error() != base.Error() {
		t.Errorf("Wrap(%v, unavailable) = %v; want the same text, both in its chain, nothing else", base, w)
	}
	if Wrap(w, ErrUnavailable) != w {
		t.Error("Wrap of an error that already means the kind wrapped it again")
	}
	e := Errorf(ErrConflict, "name %s: %w", "x", fs.ErrExist)
	if !errors.Is(e, ErrConflict) || !errors.Is(e, fs.ErrExist) || e.Error() != "name x: file already exists" {
		t.Errorf("Errorf = %v; want a conflict wrapping fs.ErrExist", e)
	}
	s := New("no such provider", ErrInvalid)
	if !errors.Is(s, ErrInvalid) || errors.Is(s, ErrConflict) || s.Error() != "no such provider" {
		t.Errorf("New = %v; want a sentinel meaning invalid only", s)
	}
}
