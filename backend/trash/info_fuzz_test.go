package trash

import (
	"testing"
	"time"
)

// FuzzParseInfo reads any bytes as a .trashinfo file (the trash folder is
// shared with every other program of the user): no panic, a parsed file
// always has a path, and what parses writes back and parses to the same
// path and deletion time (to the second, in local time).
//
// spec: D1
func FuzzParseInfo(f *testing.F) {
	for _, s := range []string{
		"[Trash Info]\nPath=/home/u/a%20b\nDeletionDate=2026-12-01T14:10:00\n",
		"[Trash Info]\nPath=rel/x\nDeletionDate=20040831T22:32:08\n",
		"[Other]\nPath=/x\n[Trash Info]\nPath=/y\nPath=/z\n",
		"[Trash Info]\r\nPath=/x\r\n", "[Trash Info]\nPath=\n", "Path=/x\n", "[Trash Info]\nPath=%zz%\n", "",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		info, err := parseInfo(data)
		if err != nil {
			return
		}
		if info.path == "" {
			t.Fatalf("parseInfo(%q) = an empty path and no error", data)
		}
		again, err := parseInfo(formatInfo(encodePath(info.path), info.deleted))
		if err != nil {
			t.Fatalf("parseInfo(%q) = %+v; written back it does not parse: %v", data, info, err)
		}
		if again.path != info.path {
			t.Fatalf("parseInfo(%q): path %q, written back and read %q", data, info.path, again.path)
		}
		if !info.deleted.IsZero() && !again.deleted.Equal(info.deleted.Truncate(time.Second)) {
			t.Fatalf("parseInfo(%q): deleted %v, written back and read %v", data, info.deleted, again.deleted)
		}
	})
}

// FuzzInfoRoundTrip writes an info file for any path and time and reads it
// back: the path comes back byte for byte (spaces, newlines, "%", invalid
// UTF-8), the time to the second.
//
// spec: D1
func FuzzInfoRoundTrip(f *testing.F) {
	f.Add("/home/u/a b", int64(1764598200))
	f.Add("/x\n[Trash Info]\nPath=/etc/passwd", int64(0))
	f.Add(" /lead and trail ", int64(-1))
	f.Fuzz(func(t *testing.T, p string, unix int64) {
		if p == "" {
			return
		}
		when := time.Unix(unix%(1<<35), 0) // years 0 to 3000 or so
		if when.Year() < 1 || when.Year() > 9999 {
			return
		}
		info, err := parseInfo(formatInfo(encodePath(p), when))
		if err != nil {
			t.Fatalf("the info file of %q does not parse: %v", p, err)
		}
		if info.path != p {
			t.Fatalf("the info file of %q reads back %q", p, info.path)
		}
		if !info.deleted.Equal(when) {
			t.Fatalf("the info file of %v reads back %v", when, info.deleted)
		}
	})
}
