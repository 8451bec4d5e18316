package trash

import (
	"strings"
	"testing"
	"time"
)

func TestParseInfo(t *testing.T) {
	date := time.Date(2024, 3, 5, 14, 7, 9, 0, time.Local)
	tests := []struct {
		name, in string
		path     string
		deleted  time.Time
		err      string
	}{
		{"ours", "[Trash Info]\nPath=/a/b%20c\nDeletionDate=2024-03-05T14:07:09\n", "/a/b c", date, ""},
		{"spaces around =", "[Trash Info]\nPath = /x\nDeletionDate = 2024-03-05T14:07:09", "/x", date, ""},
		{"first Path wins", "[Trash Info]\nPath=/first\nPath=/second\n", "/first", time.Time{}, ""},
		{"other groups ignored", "[Other]\nPath=/no\n[Trash Info]\nPath=/yes\n[X]\nPath=/no2\n", "/yes", time.Time{}, ""},
		{"comments and CRLF", "# c\r\n[Trash Info]\r\nPath=/crlf\r\nDeletionDate=2024-03-05T14:07:09\r\n", "/crlf", date, ""},
		{"bad date kept as zero", "[Trash Info]\nPath=/p\nDeletionDate=yesterday\n", "/p", time.Time{}, ""},
		{"no header", "Path=/p\n", "", time.Time{}, "no [Trash Info] group"},
		{"no path", "[Trash Info]\nDeletionDate=2024-03-05T14:07:09\n", "", time.Time{}, "no Path key"},
		{"empty", "", "", time.Time{}, "no [Trash Info] group"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseInfo([]byte(tt.in))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("parseInfo(%q) error = %v; want %q", tt.in, err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("parseInfo(%q): %v", tt.in, err)
			}
			if got.path != tt.path || !got.deleted.Equal(tt.deleted) {
				t.Errorf("parseInfo(%q) = %q, %v; want %q, %v", tt.in, got.path, got.deleted, tt.path, tt.deleted)
			}
		})
	}
}

func TestDecodePathLenient(t *testing.T) {
	tests := []struct{ in, want string }{
		{"a%20b", "a b"},
		{"%e6%97%a5", "日"},
		{"100%", "100%"},
		{"%zz%4", "%zz%4"},
		{"%%41", "%A"},
	}
	for _, tt := range tests {
		if got := decodePath(tt.in); got != tt.want {
			t.Errorf("decodePath(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
}

func FuzzPathEncoding(f *testing.F) {
	for _, s := range []string{"/a b/c%d", "/ü/日本\n", "/x\x00\xff", "", "%", "/tmp/a+b=c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		enc := encodePath(p)
		if got := decodePath(enc); got != p {
			t.Fatalf("decodePath(encodePath(%q)) = %q", p, got)
		}
		for i := 0; i < len(enc); i++ {
			c := enc[i]
			ok := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
				strings.IndexByte("-_.~/%", c) >= 0
			if !ok {
				t.Fatalf("encodePath(%q) = %q keeps %q literal", p, enc, c)
			}
		}
	})
}
