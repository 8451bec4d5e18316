package workspace

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/klauspost/compress/zstd"
)

// blobs is a folder of zstd-compressed contents named by their sha256:
// dir/ab/abcdef….zst. A blob is written to a temporary name and renamed, so
// a reader never sees half of one.
type blobs struct {
	dir string
}

var (
	codecOnce sync.Once
	encoder   *zstd.Encoder
	decoder   *zstd.Decoder
)

// codec returns the shared encoder and decoder; EncodeAll and DecodeAll are
// safe for concurrent use.
func codec() (*zstd.Encoder, *zstd.Decoder) {
	codecOnce.Do(func() {
		// Neither constructor fails with these options.
		encoder, _ = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderConcurrency(1))
		decoder, _ = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(1<<31))
	})
	return encoder, decoder
}

func digest(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func (b *blobs) path(sha string) string {
	return filepath.Join(b.dir, sha[:2], sha+".zst")
}

// has reports whether the blob is kept.
func (b *blobs) has(sha string) bool {
	_, err := os.Stat(b.path(sha))
	return err == nil
}

// errFull says a blob was not kept: the folder holds as much as its bound
// allows.
var errFull = errors.New("the kept contents are at their bound")

// put keeps data under its digest, sha (given, so it is not computed
// twice), and returns the bytes it added to the folder. A blob already kept is left as it is, and its time is
// refreshed so that a prune running meanwhile does not take it for an old
// one. fits, when not nil, is asked for room for the compressed size n
// and may refuse it (errFull, nothing written); unfit is called to give
// the room back when the write then fails.
func (b *blobs) put(sha string, data []byte, fits func(n int64) bool, unfit func(n int64)) (int64, error) {
	p := b.path(sha)
	if _, err := os.Stat(p); err == nil {
		now := time.Now()
		os.Chtimes(p, now, now)
		return 0, nil
	}
	enc, _ := codec()
	packed := enc.EncodeAll(data, nil)
	n := int64(len(packed))
	if fits != nil && !fits(n) {
		return 0, errFull
	}
	fail := func(err error) (int64, error) {
		if unfit != nil {
			unfit(n)
		}
		return 0, fmt.Errorf("keep blob: %w", err)
	}
	// The folder is made when missing only: one system call less per
	// content kept, after every command that changed a file.
	f, err := os.CreateTemp(filepath.Dir(p), ".tmp-")
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			return fail(err)
		}
		f, err = os.CreateTemp(filepath.Dir(p), ".tmp-")
	}
	if err != nil {
		return fail(err)
	}
	_, werr := f.Write(packed)
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(f.Name())
		return fail(err)
	}
	if err := os.Rename(f.Name(), p); err != nil {
		os.Remove(f.Name())
		return fail(err)
	}
	return n, nil
}

// get returns a blob's content, checked against its digest.
func (b *blobs) get(sha string) ([]byte, error) {
	if len(sha) != 64 || strings.Trim(sha, "0123456789abcdef") != "" {
		return nil, fmt.Errorf("blob %q: not a sha256 digest", sha)
	}
	raw, err := os.ReadFile(b.path(sha))
	if err != nil {
		return nil, fmt.Errorf("blob %s: %w", sha[:12], err)
	}
	_, dec := codec()
	data, err := dec.DecodeAll(raw, nil)
	if err != nil {
		return nil, fmt.Errorf("blob %s: %w", sha[:12], err)
	}
	if digest(data) != sha {
		return nil, fmt.Errorf("blob %s: damaged (its digest does not match)", sha[:12])
	}
	return data, nil
}

// prune removes the blobs not in keep and not written in the last grace
// (another kernel sharing the folder may be indexing them now), and
// leftover temporary files. ours, when not nil, names blobs that may go
// within grace too (see Manager.Prune). It returns how many blobs and bytes it
// removed.
func (b *blobs) prune(keep map[string]bool, grace time.Duration, ours func(sha string, mtime time.Time) bool) (int, int64, error) {
	n, bytes := 0, int64(0)
	cut := time.Now().Add(-grace)
	err := filepath.WalkDir(b.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if d.IsDir() {
			return nil
		}
		name := d.Name()
		sha, ok := strings.CutSuffix(name, ".zst")
		if ok && keep[sha] {
			return nil
		}
		fi, err := d.Info()
		if err != nil || fi.ModTime().After(cut) && !(ok && ours != nil && ours(sha, fi.ModTime())) {
			return nil
		}
		if os.Remove(p) == nil {
			n++
			bytes += fi.Size()
		}
		return nil
	})
	return n, bytes, err
}

// usage returns how many blobs there are and the bytes they take.
func (b *blobs) usage() (int, int64) {
	n, bytes := 0, int64(0)
	filepath.WalkDir(b.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if fi, err := d.Info(); err == nil {
			n++
			bytes += fi.Size()
		}
		return nil
	})
	return n, bytes
}
