package api_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"foya/backend/api"
	"foya/backend/kernel"
)

// TestErrorIsItsJSON: an *api.Error's text is the {code, message} JSON the
// Wails transport parses, and AsError codes kernel errors.
func TestErrorIsItsJSON(t *testing.T) {
	e := &api.Error{Code: "busy", Message: `session "s" has a run going`}
	if got, want := e.Error(), `{"code":"busy","message":"session \"s\" has a run going"}`; got != want {
		t.Fatalf("Error() = %s; want %s", got, want)
	}
	for err, code := range map[error]string{
		fmt.Errorf("session x: %w", kernel.ErrNotFound): "not_found",
		fmt.Errorf("bad: %w", kernel.ErrInvalid):        "invalid",
		errors.New("disk on fire"):                      "internal",
		fmt.Errorf("wrapped: %w", e):                    "busy",
	} {
		if got := api.AsError(err); got.Code != code || got.Message == "" {
			t.Errorf("AsError(%v) = %+v; want code %s", err, got, code)
		}
	}
	if api.AsError(nil) != nil {
		t.Fatal("AsError(nil) is not nil")
	}
}

// TestKernelNotOpen: when the kernel cannot be opened, Info still gives the
// version and every other call says why, with code unavailable.
func TestKernelNotOpen(t *testing.T) {
	tries := 0
	svc := api.New(context.Background(), func() (*kernel.Kernel, error) {
		tries++
		return nil, errors.New("open kernel: database is locked by another program")
	})
	info, err := svc.Info()
	if err != nil || info.Version != kernel.Version {
		t.Fatalf("Info = %+v, %v; want the version and no error", info, err)
	}
	_, err = svc.Sessions()
	var e *api.Error
	if !errors.As(err, &e) || e.Code != kernel.CodeUnavailable || e.Message != "open kernel: database is locked by another program" {
		t.Fatalf("Sessions = %v; want unavailable with the reason", err)
	}
	if _, err := svc.Run("ses_x", "hi"); !errors.As(err, &e) || e.Code != kernel.CodeUnavailable {
		t.Fatalf("Run = %v; want unavailable", err)
	}
	if tries < 3 {
		t.Fatalf("the kernel was asked for %d times; want once per call (so that a retry can open it)", tries)
	}
}
