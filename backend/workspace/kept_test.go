package workspace

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"foya/backend/tools/files"
)

// noise returns n bytes zstd cannot shrink, different for each seed.
func noise(seed uint64, n int) []byte {
	var key [32]byte
	key[0], key[1] = byte(seed), 21
	b := make([]byte, n)
	rand.NewChaCha8(key).Read(b)
	return b
}

// Issue 21 item 10: the contents kept for revert are bounded. Five 7 MiB
// rewrites of one file under an 8 MiB index (workspace.maxTotalBytes) left
// all six versions in the blob folder, 42 MiB; the earlier versions the
// captures handed over as their "before" are pruned once no saved index
// needs them, so the folder stays within its bound (twice the index's by
// default) and every rewrite is still restorable.
func TestRewritesKeepTheBlobFolderBounded(t *testing.T) {
	ws, dir := t.TempDir(), t.TempDir()
	const size = 7 << 20
	f := filepath.Join(ws, "big.bin")
	if err := os.WriteFile(f, noise(0, size), 0o644); err != nil {
		t.Fatal(err)
	}
	m := New(Options{Dir: dir, Limits: func(context.Context) Limits {
		return Limits{MaxFile: 8 << 20, MaxTotal: 8 << 20}
	}})
	defer m.Close()
	ctx := context.Background()
	for i := range 5 {
		if _, err := m.Before(ctx, "s", ws); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, noise(uint64(i+1), size), 0o644); err != nil {
			t.Fatal(err)
		}
		cp, err := m.After(ctx, "s", ws)
		if err != nil {
			t.Fatal(err)
		}
		if len(cp.Changes) != 1 {
			t.Fatalf("rewrite %d: %d changes; want 1", i+1, len(cp.Changes))
		}
		if c := cp.Changes[0]; c.Before == nil || c.NotRestorable != "" {
			t.Errorf("rewrite %d: before kept %v, not restorable %q; want kept and restorable", i+1, c.Before != nil, c.NotRestorable)
		}
	}
	if _, err := m.Before(ctx, "s", ws); err != nil {
		t.Fatal(err)
	}
	if u := DirUsage(dir); u.BlobBytes > 16<<20 {
		t.Errorf("the blob folder takes %s in %d blobs after five rewrites; want at most 16 MiB (twice workspace.maxTotalBytes)", files.Size(u.BlobBytes), u.Blobs)
	}
}

// Issue 21 item 10, bad input: a content past workspace.maxKeptBytes is
// not kept, and the change that needed it as its "before" is recorded,
// marked not restorable with the reason the user reads; nothing is lost
// silently.
//
// spec: F1
func TestPastMaxKeptIsNotRestorableWithTheReason(t *testing.T) {
	ws, dir := t.TempDir(), t.TempDir()
	const size = 7 << 20
	a, b := filepath.Join(ws, "a.bin"), filepath.Join(ws, "b.bin")
	os.WriteFile(a, noise(1, size), 0o644)
	os.WriteFile(b, noise(2, size), 0o644)
	m := New(Options{Dir: dir, Limits: func(context.Context) Limits {
		return Limits{MaxFile: 8 << 20, MaxTotal: 64 << 20, MaxKept: 10 << 20}
	}})
	defer m.Close()
	ctx := context.Background()
	if _, err := m.Before(ctx, "s", ws); err != nil {
		t.Fatal(err)
	}
	if u := DirUsage(dir); u.BlobBytes > 10<<20 || u.Blobs != 1 {
		t.Fatalf("the blob folder holds %d blobs, %s; want one, within 10 MiB", u.Blobs, files.Size(u.BlobBytes))
	}
	os.WriteFile(a, []byte("a, rewritten\n"), 0o644)
	os.WriteFile(b, []byte("b, rewritten\n"), 0o644)
	cp, err := m.After(ctx, "s", ws)
	if err != nil {
		t.Fatal(err)
	}
	var kept, refused int
	for _, c := range cp.Changes {
		switch {
		case c.NotRestorable == "" && c.Before != nil:
			kept++
		case strings.Contains(c.NotRestorable, "workspace.maxKeptBytes allows (10.0 MiB)"):
			refused++
			if c.SHABefore == "" {
				t.Errorf("%s: no digest before; want it recorded", c.Path)
			}
		default:
			t.Errorf("%s: not restorable %q", c.Path, c.NotRestorable)
		}
	}
	if kept != 1 || refused != 1 || len(cp.Changes) != 2 {
		t.Errorf("%d changes, %d restorable, %d past the bound; want 2, 1 and 1", len(cp.Changes), kept, refused)
	}
}

// Issue 21 item 10: pruning the earlier contents never takes one another
// session's saved index still needs (a restart compares the disk with it,
// and Recover reads its contents as the "before" of a crashed command's
// changes), while the one no index needs goes.
func TestTidyKeepsWhatAnotherSessionNeeds(t *testing.T) {
	ws, dir := t.TempDir(), t.TempDir()
	const size = 3 << 20
	f := filepath.Join(ws, "f.bin")
	v := [][]byte{noise(10, size), noise(11, size), noise(12, size), noise(13, size)}
	os.WriteFile(f, v[0], 0o644)
	m := New(Options{Dir: dir, Limits: func(context.Context) Limits {
		return Limits{MaxFile: 8 << 20, MaxTotal: 8 << 20} // bound 16 MiB, tidied past 8
	}})
	defer m.Close()
	ctx := context.Background()
	if _, err := m.Before(ctx, "two", ws); err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(v); i++ {
		if _, err := m.Before(ctx, "one", ws); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(f, v[i], 0o644)
		if _, err := m.After(ctx, "one", ws); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := m.Before(ctx, "one", ws); err != nil {
		t.Fatal(err)
	}
	if !m.blobs.has(digest(v[0])) {
		t.Error("the first version, which session two's index needs, was pruned")
	}
	if m.blobs.has(digest(v[1])) {
		t.Error("the second version, which no index needs, was kept")
	}
	if !m.blobs.has(digest(v[3])) {
		t.Error("the last version, which session one's index needs, was pruned")
	}
}
