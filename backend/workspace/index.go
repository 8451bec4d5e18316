package workspace

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"

	"foya/backend/tools/files"
)

// Entry is what the index knows of one path: its stat data, and for a file
// or link its digest and whether its content is kept as a blob.
type Entry struct {
	// Mode is the Unix st_mode (type and permission bits).
	Mode  uint32
	Size  int64
	MTime int64 // modification time, ns
	CTime int64 // change time, ns (0 where the system has none)
	Ino   uint64
	// SHA is the sha256 of the content (a link's target); "" when not known.
	SHA string
	// Kept says the content is in the blob folder; Why says why not.
	Kept bool
	Why  string
}

// IsDir reports whether the entry is a folder.
func (e Entry) IsDir() bool { return e.Mode&modeTypeMask == modeDir }

// sameStat reports whether the disk shows the same thing the index saw.
func sameStat(a, b Entry) bool {
	return a.Mode == b.Mode && a.Ino == b.Ino && a.CTime == b.CTime &&
		(a.IsDir() || a.Size == b.Size && a.MTime == b.MTime)
}

// Unix file type bits, as st_mode carries them.
const (
	modeTypeMask = 0o170000
	modeRegular  = 0o100000
	modeDir      = 0o040000
	modeSymlink  = 0o120000
)

func entryOf(fi fs.FileInfo) Entry {
	e := Entry{Mode: files.UnixMode(fi.Mode()), Size: fi.Size(), MTime: fi.ModTime().UnixNano()}
	e.Ino, e.CTime = sysStat(fi)
	if e.IsDir() {
		e.Size, e.MTime = 0, 0
	}
	return e
}

// Limits bound what an index keeps.
type Limits struct {
	// MaxFile is the largest file whose content is kept.
	MaxFile int64
	// MaxTotal bounds the bytes (before compression) of all kept contents
	// of one index.
	MaxTotal int64
	// MaxKept bounds the bytes on disk (compressed) of the blob folder,
	// which every session shares: the index's contents, and the earlier
	// ones a capture handed over as its "before" and no saved index needs
	// any more, until they are pruned. Zero or less
	// means twice MaxTotal.
	MaxKept int64
}

// KeptBound returns the bound on the blob folder in force: MaxKept, or
// twice MaxTotal when MaxKept is zero or less.
func (l Limits) KeptBound() int64 {
	switch {
	case l.MaxKept > 0:
		return l.MaxKept
	case l.MaxTotal > math.MaxInt64/2:
		return math.MaxInt64
	}
	return 2 * l.MaxTotal
}

// Defaults of Limits.
const (
	DefaultMaxFile  = 8 << 20
	DefaultMaxTotal = 2 << 30
	// MaxEntries bounds the paths one index tracks (memory); a workspace
	// with more is tracked up to the bound and says so.
	MaxEntries = 500_000
	// hashCap bounds the bytes read to hash a file whose content is not
	// kept (too large, ignored).
	hashCap = 256 << 20
)

// Reasons a content is not kept, worded for people.
const (
	whyIgnored    = "it is ignored by .gitignore, so Foya keeps no copy of it"
	whyUnstable   = "it changed while Foya read it, so no consistent copy could be kept"
	whyNotRegular = "it is not a regular file"
)

// scanned is one path the walk found: stat data and whether .gitignore
// ignores it.
type scanned struct {
	e       Entry
	ignored bool
}

// scan stats every path below rel (a folder relative to root, "" for the
// root itself) that is not ignored, never following links and never
// entering .git or ignored folders. Folders are read by scanWorkers
// goroutines at once (a walk is bound by system calls). It stops at max
// paths and says so. What skip holds is passed over: never stat'ed, never
// opened.
//
// Each folder is opened relative to its parent's descriptor with
// O_NOFOLLOW (openDirAt), never by its path: a folder swapped for a link
// to elsewhere after its parent was listed is not entered, so no name from
// outside the workspace is recorded. A parent stays open until its last
// sub-folder is opened; the jobs waiting are taken newest first, so few
// are open at once (about two per level).
func scan(ctx context.Context, root *os.Root, abs, rel string, rules []gitignore.Pattern, skip skipSet, out map[string]scanned, max int) (full bool, err error) {
	type job struct {
		parent *dirRef // nil: open rel from abs
		name   string
		rel    string
		rules  []gitignore.Pattern
	}
	var (
		mu      sync.Mutex
		cond    = sync.NewCond(&mu)
		stack   = []job{{rel: rel, rules: rules}}
		pending = 1 // jobs queued or being read
		count   = len(out)
		stopped bool
	)
	parts := make([]map[string]scanned, scanWorkers)
	var wg sync.WaitGroup
	for w := range scanWorkers {
		part := map[string]scanned{}
		parts[w] = part
		wg.Go(func() {
			for {
				mu.Lock()
				for len(stack) == 0 && pending > 0 {
					cond.Wait()
				}
				if pending == 0 {
					mu.Unlock()
					return
				}
				j := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				quit := stopped || ctx.Err() != nil
				mu.Unlock()
				var subs []job
				var dir *os.File
				n := 0
				if !quit {
					dir = openJob(abs, j.parent, j.name, j.rel)
				}
				j.parent.release()
				if dir != nil {
					dirAbs := abs
					if j.rel != "" {
						dirAbs = filepath.Join(abs, filepath.FromSlash(j.rel))
					}
					readFolder(root, dir, j.rel, j.rules, skip.in(dirAbs), func(childRel string, sc scanned, pats []gitignore.Pattern) {
						part[childRel] = sc
						n++
						if sc.e.IsDir() {
							subs = append(subs, job{name: path.Base(childRel), rel: childRel, rules: pats})
						}
					})
				}
				mu.Lock()
				count += n
				if count >= max {
					stopped = true
				}
				if !stopped && len(subs) > 0 {
					ref := &dirRef{f: dir, refs: len(subs)}
					for i := range subs {
						subs[i].parent = ref
					}
					stack = append(stack, subs...)
					pending += len(subs)
				} else if dir != nil {
					dir.Close()
				}
				pending--
				cond.Broadcast()
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	for _, part := range parts {
		for k, v := range part {
			out[k] = v
		}
	}
	if err := ctx.Err(); err != nil {
		return false, err
	}
	return !stopped, nil
}

// scanWorkers is how many folders a walk reads at once.
const scanWorkers = 2

// dirRef is an open folder shared by the jobs of its sub-folders; the
// last one to open its sub-folder closes it.
type dirRef struct {
	f    *os.File
	mu   sync.Mutex
	refs int
}

func (d *dirRef) release() {
	if d == nil {
		return
	}
	d.mu.Lock()
	d.refs--
	last := d.refs == 0
	d.mu.Unlock()
	if last {
		d.f.Close()
	}
}

// testHookOpenDir, when set (by tests only), is called with a folder's
// path relative to the root just before the walk opens it.
var testHookOpenDir func(rel string)

// openJob opens the folder of a walk's job: name in parent, or rel below
// abs one element at a time, each beneath the last, refusing links. It
// returns nil when the folder is gone, unreadable, or no longer a folder.
func openJob(abs string, parent *dirRef, name, rel string) *os.File {
	if testHookOpenDir != nil {
		testHookOpenDir(rel)
	}
	if parent != nil {
		f, err := openDirAt(parent.f, name)
		if err != nil {
			return nil
		}
		return f
	}
	f, err := os.Open(abs)
	if err != nil {
		return nil
	}
	for _, c := range splitRel(rel) {
		next, err := openDirAt(f, c)
		f.Close()
		if err != nil {
			return nil
		}
		f = next
	}
	return f
}

// readFolder lists the open folder dir (rel below the root) and stats
// what it holds, calling found for each path that is not skipped (.git,
// ignored folders, the names in skip), with the rules in force below it.
func readFolder(root *os.Root, dir *os.File, rel string, rules []gitignore.Pattern, skip []string, found func(rel string, sc scanned, pats []gitignore.Pattern)) {
	list, _ := dir.ReadDir(-1)
	comps := splitRel(rel)
	pats := rules
	if slices.ContainsFunc(list, func(d fs.DirEntry) bool { return d.Name() == ".gitignore" }) {
		pats = append(slices.Clip(pats), readIgnore(root, path.Join(rel, ".gitignore"), comps)...)
	}
	m := gitignore.NewMatcher(pats)
	for _, d := range list {
		name := d.Name()
		if name == ".git" || len(skip) > 0 && slices.Contains(skip, name) {
			continue
		}
		childRel := name
		if rel != "" {
			childRel = rel + "/" + name
		}
		isDir := d.IsDir()
		ign := len(pats) > 0 && m.Match(append(slices.Clip(comps), name), isDir)
		if ign && isDir {
			continue
		}
		e, ok := statAt(dir, dir.Name(), name)
		if !ok {
			continue
		}
		found(childRel, scanned{e: e, ignored: ign}, pats)
	}
}

func splitRel(rel string) []string {
	if rel == "" {
		return nil
	}
	return strings.Split(rel, "/")
}

// readIgnore returns the patterns of an ignore file beneath root.
func readIgnore(root *os.Root, rel string, domain []string) []gitignore.Pattern {
	f, err := root.Open(filepath.FromSlash(rel))
	if err != nil {
		return nil
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, 1<<20))
	if err != nil {
		return nil
	}
	var out []gitignore.Pattern
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		out = append(out, gitignore.ParsePattern(line, domain))
	}
	return out
}

// rulesAbove returns the ignore rules in force in the folder rel: the
// repository's info/exclude and the .gitignore files of the folders above
// it, and whether rel itself (or a folder above it) is ignored.
func rulesAbove(root *os.Root, rel string) ([]gitignore.Pattern, bool) {
	pats := readIgnore(root, ".git/info/exclude", nil)
	comps := splitRel(rel)
	for i := 0; i < len(comps); i++ {
		pats = append(pats, readIgnore(root, path.Join(path.Join(comps[:i]...), ".gitignore"), comps[:i])...)
		if comps[i] == ".git" || len(pats) > 0 && gitignore.NewMatcher(pats).Match(comps[:i+1], true) {
			return nil, true
		}
	}
	return pats, false
}

// content reads what a file or link holds now, beneath root: the bytes
// and their digest, or why they cannot be kept. A file that changed while
// it was read (its size or times moved, or it is another file than the one
// stat saw) is not kept.
func content(root *os.Root, rel string, e Entry, maxFile int64) (data []byte, sha, why string) {
	name := filepath.FromSlash(rel)
	switch e.Mode & modeTypeMask {
	case modeSymlink:
		target, err := root.Readlink(name)
		if err != nil {
			return nil, "", "it could not be read (" + errText(err) + ")"
		}
		return []byte(target), digest([]byte(target)), ""
	case modeRegular:
	default:
		return nil, "", whyNotRegular
	}
	if e.Size > maxFile {
		sha, why := hashOnly(root, name, e)
		return nil, sha, why
	}
	f, err := root.OpenFile(name, os.O_RDONLY|noFollow, 0)
	if err != nil {
		return nil, "", "it could not be read (" + errText(err) + ")"
	}
	defer f.Close()
	data, err = io.ReadAll(io.LimitReader(f, maxFile+1))
	if err != nil {
		return nil, "", "it could not be read (" + errText(err) + ")"
	}
	fi, err := f.Stat()
	if err != nil {
		return nil, "", "it could not be read (" + errText(err) + ")"
	}
	now := entryOf(fi)
	if int64(len(data)) > maxFile {
		return nil, "", fmt.Sprintf("it grew past %s while Foya read it, so no copy was kept", files.Size(maxFile))
	}
	if !sameStat(now, e) || int64(len(data)) != now.Size {
		return nil, "", whyUnstable
	}
	return data, digest(data), ""
}

// hashOnly returns the digest of a file too large to keep (read up to
// hashCap), and the reason it is not kept.
func hashOnly(root *os.Root, name string, e Entry) (string, string) {
	why := fmt.Sprintf("it is larger (%s) than the index keeps (workspace.maxFileBytes)", files.Size(e.Size))
	if e.Size > hashCap {
		return "", why
	}
	f, err := root.OpenFile(name, os.O_RDONLY|noFollow, 0)
	if err != nil {
		return "", why
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, io.LimitReader(f, hashCap+1)); err != nil {
		return "", why
	}
	return hex.EncodeToString(h.Sum(nil)), why
}

func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return err.Error()
}
