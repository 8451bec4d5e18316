package files

import (
	"bufio"
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"

	"foya/backend/fspath"
)

// ignoreRules are the .gitignore patterns in force in one folder, in
// increasing priority, with paths relative to base.
type ignoreRules struct {
	base string
	pats []gitignore.Pattern
}

// ignored reports whether the entry at comps (relative to base) is ignored.
func (r *ignoreRules) ignored(comps []string, isDir bool) bool {
	if len(r.pats) == 0 {
		return false
	}
	return gitignore.NewMatcher(r.pats).Match(comps, isDir)
}

// readIgnoreFile returns the patterns of one ignore file, for paths under
// domain; a missing file has none. A file inside the workspace workdir is
// read beneath its root ws when ws is given, so a link swapped in on the
// way cannot make it read an outside file as rules.
func readIgnoreFile(ws *os.Root, workdir, path string, domain []string) []gitignore.Pattern {
	var data []byte
	var err error
	if rel, ok := fspath.Rel(workdir, path); ok && ws != nil && workdir != "" {
		data, err = ws.ReadFile(rel)
	} else {
		data, err = os.ReadFile(path)
	}
	if err != nil || len(data) > ignoreMax {
		return nil
	}
	return parseIgnore(data, domain)
}

// parseIgnore returns the patterns of an ignore file's content.
func parseIgnore(data []byte, domain []string) []gitignore.Pattern {
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

// ignoreMax bounds the .gitignore files a walk reads.
const ignoreMax = 1 << 20

// repoBase returns the folder whose .gitignore files apply to root: the
// nearest folder holding .git at or above root, else workdir when root is
// inside it, else root.
func repoBase(root, workdir string) string {
	for d := root; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	if _, ok := fspath.Rel(workdir, root); ok && workdir != "" {
		return workdir
	}
	return root
}

// rulesFor returns the ignore rules in force at root (a folder): the
// repository's info/exclude and the .gitignore files from the base down to
// root's parent. Root's own .gitignore is read by the walk. When root
// itself is ignored (the model asked for it by name), the rules above it
// are dropped, as ripgrep does with paths it is given.
//
// ws, when not nil, is the workspace workdir opened as a root: the ignore
// files inside it are read beneath it.
func rulesFor(ws *os.Root, root, workdir string) (*ignoreRules, []string) {
	base := repoBase(root, workdir)
	r := &ignoreRules{base: base}
	rel, ok := fspath.Rel(base, root)
	if !ok {
		return &ignoreRules{base: root}, nil
	}
	var comps []string
	if rel != "." {
		comps = strings.Split(filepath.ToSlash(rel), "/")
	}
	r.pats = append(r.pats, readIgnoreFile(ws, workdir, filepath.Join(base, ".git", "info", "exclude"), nil)...)
	for i := 0; i < len(comps); i++ {
		r.pats = append(r.pats, readIgnoreFile(ws, workdir, filepath.Join(base, filepath.Join(comps[:i]...), ".gitignore"), comps[:i])...)
	}
	for i := 1; i <= len(comps); i++ {
		if r.ignored(comps[:i], true) {
			return &ignoreRules{base: root}, nil
		}
	}
	return r, comps
}

// entry is one file or folder the walk found.
type entry struct {
	// dir is the open folder holding it, valid during the visit; name is
	// its name there; abs is its absolute path as the user knows it (for
	// messages and the watcher, never opened); rel is its path relative to
	// the walk's root, with forward slashes.
	dir            *dirHandle
	name, abs, rel string
	typ            fs.FileMode
}

// walkStats counts what a walk could not enter.
type walkStats struct {
	mu         sync.Mutex
	unreadable []string
}

func (s *walkStats) failed(rel string) {
	s.mu.Lock()
	s.unreadable = append(s.unreadable, rel)
	s.mu.Unlock()
}

// dirRef is an open folder shared by the jobs of its sub-folders: the last
// one to open its own folder closes it, so a walk holds about one
// descriptor per level it is working on, not one per folder waiting.
type dirRef struct {
	h    *dirHandle
	refs atomic.Int32
}

func (r *dirRef) release() {
	if r.refs.Add(-1) == 0 {
		r.h.close()
	}
}

// dirJob is a folder to read: the entry name of parent (or, for the first
// job, the open folder top).
type dirJob struct {
	parent *dirRef
	top    *dirHandle
	name   string
	abs    string
	rel    string
	comps  []string // relative to the rules' base
	rules  *ignoreRules
}

// walk visits every file and folder below the folder at l in parallel,
// skipping .git folders and whatever .gitignore files ignore, and never
// following symbolic links. Each folder is opened relative to its parent's
// descriptor, never by a path from the top, so a folder swapped for a link
// during the walk is not entered. realRoot and workdir (resolved paths)
// find the ignore rules above l. visit is called from several goroutines
// at once, in no particular order; it returns false to skip a folder's
// contents. The walk stops early when ctx ends.
func walk(ctx context.Context, l loc, realRoot, workdir string, visit func(e entry) bool) (*walkStats, error) {
	top, err := openDirHandle(l)
	if err != nil {
		return nil, err
	}
	rules, comps := rulesFor(l.root, realRoot, workdir)
	stats := &walkStats{}
	var (
		mu      sync.Mutex
		cond    = sync.NewCond(&mu)
		stack   = []dirJob{{top: top, abs: l.path, rel: "", comps: comps, rules: rules}}
		pending = 1
	)
	workers := max(2, runtime.GOMAXPROCS(0)*2)
	var wg sync.WaitGroup
	for range workers {
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
				job := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				mu.Unlock()

				var subs []dirJob
				if ctx.Err() == nil {
					subs = readDir(job, stats, visit)
				} else if job.parent != nil {
					job.parent.release()
				} else {
					job.top.close()
				}
				mu.Lock()
				stack = append(stack, subs...)
				pending += len(subs) - 1
				cond.Broadcast()
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return stats, ctx.Err()
}

// readDir opens and lists one folder, visits its entries and returns the
// folders to walk next.
func readDir(job dirJob, stats *walkStats, visit func(e entry) bool) []dirJob {
	h := job.top
	if job.parent != nil {
		var err error
		h, err = job.parent.h.openDir(job.name)
		job.parent.release()
		if err != nil {
			stats.failed(job.rel)
			return nil
		}
	}
	ref := &dirRef{h: h}
	ref.refs.Store(1)
	defer ref.release()
	list, err := h.readDir()
	if err != nil && len(list) == 0 {
		stats.failed(job.rel)
		return nil
	}
	rules := job.rules
	if slices.ContainsFunc(list, func(d fs.DirEntry) bool { return d.Name() == ".gitignore" }) {
		if data, err := h.readFile(".gitignore", nil, ignoreMax); err == nil {
			if more := parseIgnore(data, job.comps); len(more) > 0 {
				rules = &ignoreRules{base: rules.base, pats: append(slices.Clip(rules.pats), more...)}
			}
		}
	}
	var subs []dirJob
	for _, d := range list {
		name := d.Name()
		isDir := d.IsDir()
		if isDir && name == ".git" {
			continue
		}
		comps := append(slices.Clip(job.comps), name)
		if rules.ignored(comps, isDir) {
			continue
		}
		rel := name
		if job.rel != "" {
			rel = job.rel + "/" + name
		}
		e := entry{dir: h, name: name, abs: filepath.Join(job.abs, name), rel: rel, typ: d.Type()}
		if !visit(e) || !isDir {
			continue
		}
		ref.refs.Add(1)
		subs = append(subs, dirJob{parent: ref, name: name, abs: e.abs, rel: rel, comps: comps, rules: rules})
	}
	return subs
}
