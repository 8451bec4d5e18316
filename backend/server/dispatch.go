package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"

	"foya/backend/api"
	"foya/backend/kernel"
)

// method is one exported method of api.Service, callable by name with
// JSON arguments.
type method struct {
	fn   reflect.Value // bound to the service
	in   []reflect.Type
	out  reflect.Type // nil when the method returns only an error
	name string
}

var errorType = reflect.TypeFor[error]()

// methods returns the exported methods of svc by name. A method that does
// not return (T, error) or error is a programmer error: it panics, so that
// the API cannot hold a method no transport can call.
func methods(svc *api.Service) map[string]method {
	v := reflect.ValueOf(svc)
	t := v.Type()
	out := make(map[string]method, t.NumMethod())
	for i := range t.NumMethod() {
		m := t.Method(i)
		ft := m.Type // receiver first
		md := method{fn: v.Method(i), name: m.Name}
		for j := 1; j < ft.NumIn(); j++ {
			md.in = append(md.in, ft.In(j))
		}
		switch {
		case ft.NumOut() == 1 && ft.Out(0) == errorType:
		case ft.NumOut() == 2 && ft.Out(1) == errorType:
			md.out = ft.Out(0)
		default:
			panic(fmt.Sprintf("api.Service.%s must return (T, error) or error", m.Name))
		}
		out[m.Name] = md
	}
	return out
}

// signature describes a method's parameters for error messages:
// "(string, int64)".
func (m method) signature() string {
	names := make([]string, len(m.in))
	for i, t := range m.in {
		names[i] = t.String()
	}
	return "(" + strings.Join(names, ", ") + ")"
}

// decodeArgs parses body, a JSON array with one element per parameter (an
// empty body counts as []), into the method's argument values.
func (m method) decodeArgs(body []byte) ([]reflect.Value, error) {
	var raw []json.RawMessage
	if len(bytes.TrimSpace(body)) > 0 {
		dec := json.NewDecoder(bytes.NewReader(body))
		if err := dec.Decode(&raw); err != nil {
			return nil, fmt.Errorf("the body of a call to %s must be a JSON array of its arguments %s: %v", m.name, m.signature(), err)
		}
		if _, err := dec.Token(); !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("the body of a call to %s has data after its JSON array of arguments", m.name)
		}
	}
	if len(raw) != len(m.in) {
		return nil, fmt.Errorf("%s takes %d argument(s) %s, got %d", m.name, len(m.in), m.signature(), len(raw))
	}
	args := make([]reflect.Value, len(m.in))
	for i, t := range m.in {
		p := reflect.New(t)
		if err := json.Unmarshal(raw[i], p.Interface()); err != nil {
			return nil, fmt.Errorf("argument %d of %s must be %s: %v", i+1, m.name, t, err)
		}
		args[i] = p.Elem()
	}
	return args, nil
}

// invoke calls the method. A panic inside it becomes an internal error, so
// that one bad call never takes the server down.
func (m method) invoke(args []reflect.Value) (result any, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &api.Error{Code: kernel.CodeInternal, Message: fmt.Sprintf("%s failed: %v", m.name, p)}
		}
	}()
	res := m.fn.Call(args)
	if e := res[len(res)-1].Interface(); e != nil {
		return nil, e.(error)
	}
	if m.out == nil {
		return nil, nil
	}
	return res[0].Interface(), nil
}
