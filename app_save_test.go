package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wailsapp/wails/v2/pkg/runtime"
)

// spec: W4
// The desktop saves an export (the review panel's patch) through the
// system's save dialog: the chosen file gets the text; a cancelled dialog
// writes nothing; a missing dialog or an unwritable file is an error that
// says what to do.
func TestAppSaveText(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, dialog string
		err          error
		want         string
		wantErr      string
	}{
		{name: "saved", dialog: filepath.Join(dir, "x.patch"), want: filepath.Join(dir, "x.patch")},
		{name: "cancelled", dialog: ""},
		{name: "no dialog", err: errors.New("no display"), wantErr: "foya patch SESSION -o FILE"},
		{name: "unwritable", dialog: filepath.Join(dir, "no", "such", "x.patch"), wantErr: "choose another folder"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, _, _, _ := newTestApp(t, AppOptions{})
			var asked runtime.SaveDialogOptions
			a.saveAs = func(_ context.Context, o runtime.SaveDialogOptions) (string, error) {
				asked = o
				return tt.dialog, tt.err
			}
			a.startup(t.Context())
			defer a.shutdown(t.Context())
			got, err := a.SaveText("s.patch", "diff\n")
			if got != tt.want || (tt.wantErr == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("SaveText = %q, %v; want %q, an error with %q", got, err, tt.want, tt.wantErr)
			}
			if asked.DefaultFilename != "s.patch" {
				t.Errorf("the dialog proposed %q; want s.patch", asked.DefaultFilename)
			}
			if tt.want != "" {
				if b, _ := os.ReadFile(tt.want); string(b) != "diff\n" {
					t.Errorf("the file holds %q", b)
				}
			}
		})
	}
}
