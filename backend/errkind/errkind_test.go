package errkind

import (
	"errors"
	"io/fs"
	"testing"
)

func TestMarkKeepsTheTextAndBothChains(t *testing.T) {
	err := Errorf(Invalid, "read %s: %w", "x", fs.ErrNotExist)
	if err.Error() != "read x: file does not exist" {
		t.Errorf("Error() = %q", err.Error())
	}
	if !errors.Is(err, Invalid) || !errors.Is(err, fs.ErrNotExist) || errors.Is(err, Conflict) {
		t.Errorf("errors.Is does not find the kind and the cause only: %v", err)
	}
	if Mark(nil, Invalid) != nil {
		t.Error("Mark(nil) is not nil")
	}
	if Mark(err, Invalid) != err {
		t.Error("marking twice wrapped again")
	}
}
