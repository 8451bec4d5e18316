package kernel

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"foya/backend/approval"
	"foya/backend/llm"
	"foya/backend/tools/files"
	"foya/backend/tools/shell"
)

// fill sets every field of v (a pointer) to a value that is not zero, one
// element in each slice and map, so that no field is left out of JSON.
func fill(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		fill(v.Elem())
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			v.Set(reflect.ValueOf(time.Date(2026, 12, 1, 11, 25, 0, 0, time.UTC)))
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i))
			}
		}
	case reflect.Slice:
		if v.Type() == reflect.TypeFor[json.RawMessage]() {
			v.SetBytes([]byte(`{}`))
			return
		}
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		fill(v.Index(0))
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fill(k)
		fill(e)
		m.SetMapIndex(k, e)
		v.Set(m)
	case reflect.String:
		v.SetString("x")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64, reflect.Int32:
		v.SetInt(7)
	case reflect.Uint32, reflect.Uint64:
		v.SetUint(7)
	}
}

func filled[T any]() T {
	var v T
	fill(reflect.ValueOf(&v))
	return v
}

// jsonMap is v's JSON as a generic value, without the keys named in drop
// (at any depth).
func jsonMap(t *testing.T, v any, drop ...string) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	var strip func(any)
	strip = func(x any) {
		switch x := x.(type) {
		case map[string]any:
			for _, k := range drop {
				delete(x, k)
			}
			for _, e := range x {
				strip(e)
			}
		case []any:
			for _, e := range x {
				strip(e)
			}
		}
	}
	strip(m)
	return m
}

// The DTOs marshal to the JSON the inner types did, field for field: front
// ends, stored settings and foya's --json output keep reading the same
// names. Only a call's argsRef, a storage detail, is gone.
//
// spec: W3
func TestDTOsKeepTheJSON(t *testing.T) {
	req := filled[approval.Request]()
	ans := filled[approval.Answer]()
	ans.Choice = approval.AllowSession
	rec := filled[llm.ApprovalRecord]()
	rec.Request, rec.Answer = llm.Data(req), llm.Data(ans)
	call := filled[llm.CallRecord]()
	msg := filled[llm.StoredMessage]()
	for _, c := range []struct {
		name         string
		inner, outer any
		drop         []string
	}{
		{"Session", filled[llm.Session](), sessionOf(filled[llm.Session]()), nil},
		{"Run", filled[llm.Run](), runOf(filled[llm.Run]()), nil},
		{"Call", call, callOf(call), []string{"argsRef"}},
		{"Conflict", filled[files.Conflict](), conflictOf(filled[files.Conflict]()), nil},
		{"Message", msg, messageOf(msg), []string{"argsRef"}},
		{"Artifact", filled[llm.Artifact](), artifactOf(filled[llm.Artifact]()), nil},
		{"BackgroundCommand", filled[shell.Background](), backgroundOf(filled[shell.Background]()), nil},
		{"Approval", filled[approval.Pending](), approvalOf(filled[approval.Pending]()), nil},
		{"ApprovalRecord", rec, approvalRecordOf(rec), nil},
		{"Rule", filled[approval.Rule](), ruleOf(filled[approval.Rule]()), nil},
	} {
		got, want := jsonMap(t, c.outer), jsonMap(t, c.inner, c.drop...)
		if !reflect.DeepEqual(got, want) {
			g, _ := json.Marshal(got)
			w, _ := json.Marshal(want)
			t.Errorf("%s: JSON\n%s\nwant\n%s", c.name, g, w)
		}
	}

	// What front ends send converts back exactly.
	in := filled[approval.Answer]()
	var a Answer
	b, _ := json.Marshal(in)
	if err := json.Unmarshal(b, &a); err != nil || !reflect.DeepEqual(a.inner(), in) {
		t.Errorf("answer %s came back as %+v", b, a.inner())
	}
	s := filled[llm.Session]()
	if !reflect.DeepEqual(sessionOf(s).record(), s) {
		t.Error("a session does not convert back exactly")
	}
}
