package files

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// MaxListed is the most entries List returns.
const MaxListed = 5000

// maxFolderNames is the most names a mentioned folder's attachment lists.
const maxFolderNames = 200

// ErrNoWorkdir means the session's working directory is missing or is not
// a folder any more: listing or reading in it cannot work until it is back.
var ErrNoWorkdir = errors.New("the session's folder cannot be used")

// ErrNoFile means a mentioned path does not name a file or folder inside
// the session's folder (it was deleted or renamed, or it leads outside).
var ErrNoFile = errors.New("no such file in the session's folder")

// Listed is one file or folder of a workspace listing.
type Listed struct {
	// Path is relative to the working directory, with forward slashes.
	Path string
	Dir  bool
}

// List returns the files and folders below the working directory dir, as
// the file tools walk it: .git folders and whatever .gitignore files
// ignore are skipped, and so are hidden folders (names starting with a
// dot) and everything in them. At most max entries (MaxListed when max is
// 0 or more than that) come back, sorted by path; truncated says some were
// left out. A workdir that is gone or not a folder is ErrNoWorkdir.
func List(ctx context.Context, dir string, max int) (list []Listed, truncated bool, err error) {
	if max <= 0 || max > MaxListed {
		max = MaxListed
	}
	wd, err := workdir(dir)
	if err != nil {
		return nil, false, fmt.Errorf("%w: %w", ErrNoWorkdir, err)
	}
	root, err := os.OpenRoot(wd)
	if err != nil {
		return nil, false, fmt.Errorf("%w: %w", ErrNoWorkdir, err)
	}
	defer root.Close()
	// The walk visits in no order; once max are found it is stopped, and
	// what it found is kept (which max is a matter of the walk's order).
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	var mu sync.Mutex
	_, err = walk(ctx, rootLoc(root, wd, "."), wd, wd, func(e entry) bool {
		isDir := e.typ.IsDir()
		if isDir && strings.HasPrefix(e.name, ".") {
			return false
		}
		mu.Lock()
		defer mu.Unlock()
		if len(list) >= max {
			truncated = true
			stop()
			return false
		}
		list = append(list, Listed{Path: e.rel, Dir: isDir})
		return true
	})
	if err != nil && (!truncated || !errors.Is(err, context.Canceled)) {
		return nil, false, err
	}
	slices.SortFunc(list, func(a, b Listed) int { return strings.Compare(a.Path, b.Path) })
	return list, truncated, nil
}

// Mention returns what the model is given for a file or folder the user
// mentioned (@path) in a message: a heading that names it, then a text
// file's lines as read shows them, bounded as one read is (ReadMaxLines
// lines, ReadMaxBytes bytes, with read's notice of what was left out); a
// binary file or an image is named and said not included; a folder lists
// its names (at most maxFolderNames). rel is relative to the working
// directory dir and is opened beneath it, so it cannot lead outside. A
// path that is not there (deleted since it was picked) is ErrNoFile; a
// workdir that is gone is ErrNoWorkdir.
func Mention(dir, rel string) (string, error) {
	if err := checkPath(rel); err != nil {
		return "", fmt.Errorf("%w: %w", ErrNoFile, err)
	}
	wd, err := workdir(dir)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrNoWorkdir, err)
	}
	root, err := os.OpenRoot(wd)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrNoWorkdir, err)
	}
	defer root.Close()
	name := filepath.Clean(filepath.FromSlash(rel))
	show := filepath.ToSlash(name)
	fi, err := root.Stat(name)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || isEscape(err) {
			return "", fmt.Errorf("%w: %s", ErrNoFile, show)
		}
		return "", fmt.Errorf("@%s: %w", show, err)
	}
	head := fmt.Sprintf("[file %s, mentioned by the user]", show)
	if fi.IsDir() {
		return folderMention(root, name, show)
	}
	if !fi.Mode().IsRegular() {
		return head + fmt.Sprintf("\n(not a regular file (%s), not included)", fi.Mode().Type()), nil
	}
	f, err := root.Open(name)
	if err != nil {
		return "", fmt.Errorf("@%s: %w", show, err)
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	peek, err := br.Peek(8 << 10)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return "", fmt.Errorf("@%s: %w", show, err)
	}
	kind := http.DetectContentType(peek)
	switch {
	case isImage(kind):
		return head + fmt.Sprintf("\n(an image, %s, %s, not included: use read to see it)", kind, Size(fi.Size())), nil
	case isBinary(peek):
		return head + fmt.Sprintf("\n(binary file, %s, detected as %s, not included)", Size(fi.Size()), kind), nil
	}
	text, _, err := readLines(br, fi.Size(), 1, ReadMaxLines, false)
	if err != nil {
		var past errPastEnd
		if errors.As(err, &past) { // an empty file
			return head + "\n(empty file)", nil
		}
		return "", fmt.Errorf("@%s: %w", show, err)
	}
	return head + "\n" + text, nil
}

// folderMention lists a mentioned folder's names, folders with a final
// slash, sorted, at most maxFolderNames.
func folderMention(root *os.Root, name, show string) (string, error) {
	f, err := root.Open(name)
	if err != nil {
		return "", fmt.Errorf("@%s: %w", show, err)
	}
	defer f.Close()
	ents, err := f.ReadDir(-1)
	if err != nil && len(ents) == 0 {
		return "", fmt.Errorf("@%s: %w", show, err)
	}
	names := make([]string, 0, len(ents))
	for _, e := range ents {
		n := e.Name()
		if e.IsDir() {
			n += "/"
		}
		names = append(names, n)
	}
	slices.Sort(names)
	var b strings.Builder
	fmt.Fprintf(&b, "[folder %s, mentioned by the user: %d entries]", show, len(names))
	for _, n := range names[:min(len(names), maxFolderNames)] {
		b.WriteString("\n" + n)
	}
	if len(names) > maxFolderNames {
		fmt.Fprintf(&b, "\n(%d more not listed: use ls to see them)", len(names)-maxFolderNames)
	}
	return b.String(), nil
}
