// Package api is the method set the front ends call: the desktop binds
// *Service in Wails, and foya serve exposes the same methods over HTTP.
//
// This file is the transport branch's stand-in for the package the server
// branch writes (issue 11 item 5): only the three methods the desktop
// window uses today (Info, Sessions, Events), with the constructor and the
// error shape of the contract between the two, so that app.go and main.go
// bind the real thing. It goes when that package lands.
//
// It must not import the Wails runtime; its methods take plain JSON values.
package api

import (
	"context"
	"encoding/json"

	"foya/backend/kernel"
	"foya/backend/llm"
)

// Error is what every Service method fails with: a code a front end
// branches on (kernel.Code) and a message a person reads.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Error returns the JSON text {"code":...,"message":...}: Wails rejects a
// bound call with this text, and the front end parses it.
func (e *Error) Error() string {
	b, err := json.Marshal(e)
	if err != nil {
		return `{"code":"internal","message":"encode an error"}`
	}
	return string(b)
}

// wrap turns a kernel error into an *Error; nil stays nil.
func wrap(err error) error {
	if err == nil {
		return nil
	}
	return &Error{Code: kernel.Code(err), Message: err.Error()}
}

// Service is the bound API over a kernel that get opens (or reopens) on
// demand: the desktop opens its kernel lazily and may retry.
type Service struct {
	ctx context.Context
	get func() (*kernel.Kernel, error)
}

// New returns a Service whose calls run under ctx against the kernel get
// returns.
func New(ctx context.Context, get func() (*kernel.Kernel, error)) *Service {
	return &Service{ctx: ctx, get: get}
}

// Info returns the kernel's version and where it keeps its data; when the
// kernel cannot be opened, only the version.
func (s *Service) Info() (kernel.Info, error) {
	k, err := s.kernel()
	if err != nil {
		return kernel.Info{Version: kernel.Version}, nil
	}
	return k.Info(), nil
}

// kernel returns the kernel, or why there is none (code unavailable).
func (s *Service) kernel() (*kernel.Kernel, error) {
	k, err := s.get()
	if err != nil {
		return nil, &Error{Code: kernel.CodeUnavailable, Message: err.Error()}
	}
	return k, nil
}

// Sessions lists the stored sessions, newest first; never nil.
func (s *Service) Sessions() ([]kernel.Session, error) {
	k, err := s.kernel()
	if err != nil {
		return nil, err
	}
	ss, err := k.Sessions(s.ctx)
	if err != nil {
		return nil, wrap(err)
	}
	if ss == nil {
		ss = []kernel.Session{}
	}
	return ss, nil
}

// Events returns a session's stored events with seq > after; never nil.
func (s *Service) Events(sessionID string, after int64) ([]llm.Event, error) {
	k, err := s.kernel()
	if err != nil {
		return nil, err
	}
	evs, err := k.Events(s.ctx, sessionID, after)
	if err != nil {
		return nil, wrap(err)
	}
	if evs == nil {
		evs = []llm.Event{}
	}
	return evs, nil
}
