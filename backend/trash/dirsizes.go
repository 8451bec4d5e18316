//go:build unix && !darwin

package trash

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// sizesFile is the directory size cache of a trash (specification 1.0).
const sizesFile = "directorysizes"

// addDirSize records the trashed folder name in root's directorysizes: its
// disk usage in bytes (blocks, as `du -B1` counts them) and the mtime of
// its info file.
func (t *Trash) addDirSize(root, name, infoPath, trashed string) error {
	size, err := diskUsage(trashed)
	if err != nil {
		return err
	}
	fi, err := os.Stat(infoPath)
	if err != nil {
		return err
	}
	line := strconv.FormatUint(size, 10) + " " + strconv.FormatInt(fi.ModTime().Unix(), 10) + " " + encodePath(name)
	return t.rewriteSizes(root, name, line)
}

// removeDirSize drops name's line from root's directorysizes, if any.
func (t *Trash) removeDirSize(root, name string) error {
	return t.rewriteSizes(root, name, "")
}

// rewriteSizes replaces every line for name with line (none when empty) and
// writes the file through a temporary file and rename(2), as the
// specification requires. Lines it does not understand are kept as they
// are. When nothing changes the file is left alone.
func (t *Trash) rewriteSizes(root, name, line string) error {
	t.sizesMu.Lock()
	defer t.sizesMu.Unlock()
	path := filepath.Join(root, sizesFile)
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("read %s: %w", path, err)
	}
	var out bytes.Buffer
	changed := false
	sc := bufio.NewScanner(bytes.NewReader(old))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		l := sc.Text()
		if n, ok := sizesLineName(l); ok && n == name {
			changed = true
			continue
		}
		if l != "" {
			out.WriteString(l)
			out.WriteByte('\n')
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	if line != "" {
		out.WriteString(line)
		out.WriteByte('\n')
		changed = true
	}
	if !changed {
		return nil
	}
	tmp, err := os.CreateTemp(root, "."+sizesFile+".tmp*")
	if err != nil {
		return fmt.Errorf("update %s: %w", path, err)
	}
	_, werr := tmp.Write(out.Bytes())
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("update %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("update %s: %w", path, err)
	}
	return nil
}

// sizesLineName returns the decoded folder name of a directorysizes line
// "SIZE MTIME NAME". The name is the rest of the line, so names other tools
// wrote with bare spaces still match.
func sizesLineName(l string) (string, bool) {
	size, rest, ok := strings.Cut(l, " ")
	if !ok {
		return "", false
	}
	mtime, name, ok := strings.Cut(rest, " ")
	if !ok || name == "" {
		return "", false
	}
	if _, err := strconv.ParseUint(size, 10, 64); err != nil {
		return "", false
	}
	if _, err := strconv.ParseInt(mtime, 10, 64); err != nil {
		return "", false
	}
	return decodePath(name), true
}

// diskUsage returns the bytes of disk blocks used by p and everything under
// it, counting hard-linked files once, as `du -B1` does.
func diskUsage(p string) (uint64, error) {
	type fileID struct{ dev, ino uint64 }
	seen := map[fileID]bool{}
	var total uint64
	err := filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !ok {
			total += uint64(fi.Size())
			return nil
		}
		if !fi.IsDir() && st.Nlink > 1 {
			id := fileID{uint64(st.Dev), uint64(st.Ino)}
			if seen[id] {
				return nil
			}
			seen[id] = true
		}
		total += uint64(st.Blocks) * 512
		return nil
	})
	return total, err
}
