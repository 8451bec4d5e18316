package jsonkeys

import (
	"errors"
	"reflect"
	"testing"
)

type inner struct {
	Name string `json:"name"`
}

type Embedded struct {
	Shared string `json:"shared"`
}

type outer struct {
	Embedded
	Path    string            `json:"path"`
	Items   []inner           `json:"items"`
	One     *inner            `json:"one"`
	Labels  map[string]string `json:"labels"`
	Any     any               `json:"any"`
	Skipped string            `json:"-"`
	Plain   int
	hidden  int
}

// TestCheck pins which keys Check refuses and how it names them: the
// place of the key (items[1].name), whether it is given twice, and the
// field it matches when case is ignored.
//
// spec: K1
func TestCheck(t *testing.T) {
	typ := reflect.TypeOf(&outer{})
	for _, c := range []struct {
		in   string
		want *Error
	}{
		{`{"path":"a","items":[{"name":"x"}],"one":{"name":"y"},"labels":{"A":"1","a":"2"},"any":{"k":[1,{"z":2}]},"shared":"s","Plain":1}`, nil},
		{`{}`, nil},
		{`{"path":"a","path":"b"}`, &Error{Key: "path", Twice: true}},
		{`{"Path":"a"}`, &Error{Key: "Path", Want: "path"}},
		{`{"items":[{"name":"x"},{"NAME":"y"}]}`, &Error{Key: "items[1].NAME", Want: "name"}},
		{`{"one":{"name":"x","name":"y"}}`, &Error{Key: "one.name", Twice: true}},
		{`{"labels":{"a":"1","a":"2"}}`, &Error{Key: "labels.a", Twice: true}},
		{`{"any":{"k":1,"k":2}}`, &Error{Key: "any.k", Twice: true}},
		{`{"SHARED":"s"}`, &Error{Key: "SHARED", Want: "shared"}},
		{`{"plain":1}`, &Error{Key: "plain", Want: "Plain"}},
		{`{"Skipped":"x"}`, &Error{Key: "Skipped"}},
		{`{"hidden":1}`, &Error{Key: "hidden"}},
	} {
		err := Check([]byte(c.in), typ)
		var got *Error
		errors.As(err, &got)
		if c.want == nil && err != nil || c.want != nil && (got == nil || *got != *c.want) {
			t.Errorf("Check(%s) = %v; want %v", c.in, err, c.want)
		}
	}
}
