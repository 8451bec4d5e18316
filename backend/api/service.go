package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"foya/backend/kernel"
)

// Error is what a Service method returns when it fails: a code from
// kernel.Code ("not_found", "invalid", "conflict", "busy", "unavailable",
// "internal") and a message a user can read. Its Error() is its JSON text,
// because Wails rejects a call with the error's text and the front end
// parses it back; foya serve sends the same object as the response body.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func (e *Error) Error() string {
	b, _ := json.Marshal(e)
	return string(b)
}

// AsError returns err as an *Error: itself if it is one, else with the code
// kernel.Code gives it. nil stays nil.
func AsError(err error) *Error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return &Error{Code: kernel.Code(err), Message: err.Error()}
}

// Service is the API of the graphical front ends, over a kernel that may
// open late: get is asked for it at every call, so a kernel that failed to
// open can be retried by the caller's get (the desktop does so).
type Service struct {
	ctx context.Context
	get func() (*kernel.Kernel, error)

	runs sync.WaitGroup // runs started by Run
}

// New returns a Service over the kernel get returns. ctx is the context of
// every call and of every run started through Run: cancelling it cancels
// them.
func New(ctx context.Context, get func() (*kernel.Kernel, error)) *Service {
	return &Service{ctx: ctx, get: get}
}

// Wait waits until every run started through s has ended. Runs end when
// they finish or when the context s was built with is cancelled. It is a
// function, not a method, so that it is not part of the bound API.
func Wait(s *Service) { s.runs.Wait() }

// kernel returns the kernel, or why there is none (code unavailable).
func (s *Service) kernel() (*kernel.Kernel, error) {
	k, err := s.get()
	if err != nil {
		return nil, &Error{Code: kernel.CodeUnavailable, Message: err.Error()}
	}
	if k == nil {
		return nil, &Error{Code: kernel.CodeUnavailable, Message: "the kernel is not open: restart Foya"}
	}
	return k, nil
}

// call runs f on the kernel and turns its error into an *Error.
func call[T any](s *Service, f func(k *kernel.Kernel) (T, error)) (T, error) {
	k, err := s.kernel()
	if err != nil {
		var zero T
		return zero, err
	}
	v, err := f(k)
	if err != nil {
		return v, AsError(err)
	}
	return v, nil
}

// do is call for methods without a result.
func do(s *Service, f func(k *kernel.Kernel) error) error {
	_, err := call(s, func(k *kernel.Kernel) (struct{}, error) { return struct{}{}, f(k) })
	return err
}

// list is call for listings: never nil, so the front end receives [] and
// not null.
func list[T any](s *Service, f func(k *kernel.Kernel) ([]T, error)) ([]T, error) {
	v, err := call(s, f)
	if v == nil && err == nil {
		v = []T{}
	}
	return v, err
}

// invalid is an *Error with code invalid.
func invalid(format string, a ...any) error {
	return &Error{Code: kernel.CodeInvalid, Message: fmt.Sprintf(format, a...)}
}

// need checks that a required string argument is not empty.
func need(name, v string) error {
	if strings.TrimSpace(v) == "" {
		return invalid("%s is empty: give one", name)
	}
	return nil
}
