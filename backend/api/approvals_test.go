package api_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"foya/backend/api"
	"foya/backend/kernel"
)

// TestParseCommand: the approval dialog shows a shell command as the
// policy reads it: every simple command, including those hidden in sh -c,
// what deletes for good and what Foya cannot read; a command that does not
// parse is invalid, and no open kernel is needed.
//
// spec: A1
func TestParseCommand(t *testing.T) {
	svc := api.New(context.Background(), func() (*kernel.Kernel, error) { return nil, errors.New("not open") })
	for _, tc := range []struct {
		command string
		want    api.ParsedCommand
	}{
		{"go test ./...", api.ParsedCommand{Simple: [][]string{{"go", "test", "./..."}}, Deletes: []string{}, Opaque: []string{}}},
		{"cd 'my pkg' && go test -run X | tee out.txt", api.ParsedCommand{
			Simple: [][]string{{"cd", "my pkg"}, {"go", "test", "-run", "X"}, {"tee", "out.txt"}}, Deletes: []string{}, Opaque: []string{}}},
	} {
		got, err := svc.ParseCommand(tc.command)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseCommand(%q) = %+v, %v; want %+v", tc.command, got, err, tc.want)
		}
	}

	hidden, err := svc.ParseCommand(`echo ok && sh -c "rm -rf build"`)
	if err != nil {
		t.Fatal(err)
	}
	if !slicesHave(hidden.Simple, []string{"rm", "-rf", "build"}) || len(hidden.Deletes) == 0 {
		t.Errorf("sh -c hiding rm = %+v; want rm -rf build among the commands and in the deletes", hidden)
	}
	opaque, err := svc.ParseCommand(`eval "$CMD"`)
	if err != nil || len(opaque.Opaque) == 0 {
		t.Errorf("eval of a variable = %+v, %v; want a reason it cannot be read", opaque, err)
	}

	for _, bad := range []string{"echo 'unterminated", "if then fi ((", strings.Repeat("(", 10000)} {
		_, err := svc.ParseCommand(bad)
		var e *api.Error
		if !errors.As(err, &e) || e.Code != kernel.CodeInvalid || e.Message == "" {
			t.Errorf("ParseCommand(%.20q) = %v; want invalid with a reason", bad, err)
		}
	}
}

func slicesHave(all [][]string, one []string) bool {
	for _, s := range all {
		if reflect.DeepEqual(s, one) {
			return true
		}
	}
	return false
}
