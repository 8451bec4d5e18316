package isolate

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"foya/backend/fault"
)

// Headroom is what a plain copy leaves free on the disk besides itself:
// a copy that would leave less is refused.
const Headroom = 64 << 20

// makeCopy copies rec.Folder twice: base/ (the folder as it was, the base
// Apply compares with) and work/ (where the session works). Each file is
// cloned (FICLONE) where the file system can, else copied; a plain copy
// that would not fit in the free space is refused before anything is
// copied.
func (i *Isolator) makeCopy(rec *Record, skip []string) error {
	size, files, err := treeSize(rec.Folder, skip)
	if err != nil {
		return err
	}
	base, work := filepath.Join(rec.Dir, "base"), filepath.Join(rec.Dir, "work")
	if !canClone(rec.Folder, rec.Dir) {
		free, err := i.freeSpace(rec.Dir)
		if err != nil {
			return fmt.Errorf("free space for the copy: %w", err)
		}
		// Two copies of every file, and a block at least per file.
		need := 2*size + 2*4096*files + Headroom
		if uint64(need) > free {
			return fault.Errorf(fault.ErrUnavailable, "a copy of %s needs about %s (the folder twice: the session's copy and the base it is compared with) and the disk holding %s has %s free: free some space, or work in the folder itself",
				rec.Folder, human(need), filepath.Dir(rec.Dir), human(int64(free)))
		}
	}
	if err := copyTree(rec.Folder, base, skip); err != nil {
		return err
	}
	if err := copyTree(base, work, nil); err != nil {
		return err
	}
	rec.Workdir = work
	return nil
}

func (i *Isolator) freeSpace(path string) (uint64, error) {
	if i.FreeSpace != nil {
		return i.FreeSpace(path)
	}
	return freeSpace(path)
}

// treeSize returns the bytes and the count of the regular files beneath dir.
func treeSize(dir string, skip []string) (size, files int64, err error) {
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("read %s: %w", path, err)
		}
		if slices.Contains(skip, path) {
			return skipEntry(d)
		}
		if d.Type().IsRegular() {
			fi, err := d.Info()
			if err != nil {
				return err
			}
			size += fi.Size()
			files++
		}
		return nil
	})
	return size, files, err
}

// canClone reports whether a file of folder can be cloned into dir: it
// clones a file it makes in dir from one of folder's, then removes it.
func canClone(folder, dir string) bool {
	var src string
	_ = filepath.WalkDir(folder, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			src = path
			return fs.SkipAll
		}
		return nil
	})
	if src == "" {
		return true // nothing to copy but folders
	}
	probe := filepath.Join(dir, ".clone-probe")
	defer os.Remove(probe)
	return cloneFile(src, probe, 0o600) == nil
}

// copyTree copies src's files, folders and symbolic links into dst (whose
// folders beneath it must not exist): each file cloned where possible, else copied. Other
// kinds of file (sockets, pipes, devices) and the paths in skip are left
// out.
func copyTree(src, dst string, skip []string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("copy %s: %w", path, err)
		}
		if slices.Contains(skip, path) {
			return skipEntry(d)
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		fi, err := d.Info()
		if err != nil {
			return fmt.Errorf("copy %s: %w", path, err)
		}
		switch {
		case d.IsDir():
			mkdir := os.Mkdir
			if path == src {
				mkdir = os.MkdirAll // a worktree's folder git made (Fork)
			}
			if err := mkdir(to, fi.Mode().Perm()|0o700); err != nil {
				return fmt.Errorf("copy %s: %w", path, err)
			}
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(path)
			if err != nil {
				return fmt.Errorf("copy %s: %w", path, err)
			}
			if err := os.Symlink(target, to); err != nil {
				return fmt.Errorf("copy %s: %w", path, err)
			}
		case d.Type().IsRegular():
			if err := cloneFile(path, to, fi.Mode().Perm()); err != nil {
				if err := plainCopy(path, to, fi.Mode().Perm()); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

func skipEntry(d fs.DirEntry) error {
	if d.IsDir() {
		return fs.SkipDir
	}
	return nil
}

func plainCopy(src, dst string, perm fs.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("copy %s: %w", src, err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
	if err != nil {
		return fmt.Errorf("copy %s: %w", src, err)
	}
	_, err = io.Copy(out, in)
	err = errors.Join(err, out.Close())
	if err != nil {
		return fmt.Errorf("copy %s: %w", src, err)
	}
	return nil
}

// human writes a byte count as people read it.
func human(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
