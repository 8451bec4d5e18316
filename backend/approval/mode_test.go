package approval

import "testing"

func TestParseMode(t *testing.T) {
	for in, want := range map[string]Mode{"manual": Manual, "AUTO": Auto, "full-access": FullAccess, "Full Access": FullAccess, "full_access": FullAccess} {
		if got, err := ParseMode(in); got != want || err != nil {
			t.Errorf("ParseMode(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "yolo", "fullaccess"} {
		if _, err := ParseMode(bad); err == nil {
			t.Errorf("ParseMode(%q) succeeded; want an error", bad)
		}
	}
}
