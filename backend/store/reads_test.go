package store

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"
)

// The stale-read guard's records: one per session and path, replaced on
// each read, marked when changed outside, gone with their session, and
// still there after the database is opened again.
func TestFileReads(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "foya.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	session(t, s, "s1")
	session(t, s, "s2")
	mt := time.Unix(1700000000, 123456789)
	r := FileRead{SessionID: "s1", Path: "/w/a.txt", SHA256: "abc", Size: 3, ModTime: mt, ReadAt: mt}
	if err := s.PutFileRead(ctx, r); err != nil {
		t.Fatal(err)
	}
	if err := s.PutFileRead(ctx, FileRead{SessionID: "s2", Path: "/w/a.txt", Size: 9, ModTime: mt}); err != nil {
		t.Fatal(err)
	}
	got, err := s.FileRead(ctx, "s1", "/w/a.txt")
	if err != nil || got.SHA256 != "abc" || got.Size != 3 || !got.ModTime.Equal(mt) || got.Outside || got.Absent {
		t.Fatalf("FileRead = %+v, %v", got, err)
	}
	r.SHA256, r.Absent = "", true
	if err := s.PutFileRead(ctx, r); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.FileRead(ctx, "s1", "/w/a.txt"); got.SHA256 != "" || !got.Absent {
		t.Fatalf("replaced = %+v", got)
	}
	if first, err := s.MarkFileReadOutside(ctx, "s1", "/w/a.txt"); !first || err != nil {
		t.Fatalf("mark = %v %v", first, err)
	}
	if again, _ := s.MarkFileReadOutside(ctx, "s1", "/w/a.txt"); again {
		t.Fatal("marked twice")
	}
	if _, err := s.FileRead(ctx, "s1", "/w/none"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("missing read: %v", err)
	}
	if err := s.PutFileRead(ctx, FileRead{SessionID: "nope", Path: "/x"}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown session: %v", err)
	}
	if err := s.PutFileRead(ctx, FileRead{SessionID: "s1"}); err == nil {
		t.Fatal("empty path accepted")
	}
	s.Close()

	s, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	list, err := s.FileReads(ctx, "s1")
	if err != nil || len(list) != 1 || !list[0].Outside {
		t.Fatalf("after reopen: %+v %v", list, err)
	}
	if err := s.DeleteSession(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	if list, _ := s.FileReads(ctx, "s1"); len(list) != 0 {
		t.Fatalf("reads outlived their session: %+v", list)
	}
	if list, _ := s.FileReads(ctx, "s2"); len(list) != 1 {
		t.Fatalf("other session's reads: %+v", list)
	}
}
