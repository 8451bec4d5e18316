package workspace

import (
	"bytes"
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"

	"foya/backend/tools/files"
)

// index is one session's index of its workspace.
type index struct {
	m       *Manager
	session string
	root    string // the workspace, resolved

	ready  chan struct{} // closed once built (or failed: err)
	cancel context.CancelFunc

	mu      sync.Mutex // one sync at a time; guards what follows
	err     error
	files   map[string]Entry // by path relative to root, with forward slashes
	kept    int64            // bytes of the kept contents
	full    bool             // false when the walk stopped at MaxEntries
	pending []Change         // found by the build against the saved index
	gone    bool             // the session was deleted: never saved again
	// unsaved: a look changed the index and did not save it. The saved
	// copy is what recovery compares the disk with, so it must not hold a
	// change before the record of it is stored: a kill in between would
	// leave it unsaved. After, Settled, Look, Recover and a build
	// against a saved index leave it unsaved; the next Before (the records
	// are stored by then), Save or Close saves.
	unsaved bool
	// dirty are the paths put or dropped since the last save, which a save
	// appends to the saved index's journal (see journal.go) instead of
	// writing the whole index again; gen is the generation of the whole
	// index this Manager last wrote (0: none yet, the next save writes it
	// whole), journaled the bytes appended to it since.
	dirty     map[string]bool
	gen       int64
	journaled int64
	baseBytes int64
	base      os.FileInfo // the whole index as this Manager wrote it

	wmu      sync.Mutex // guards the watcher's state
	attached bool
	watcher  Barrier // the attached watcher, nil without one
	degraded bool
	narrow   bool // a full walk ran while a whole watcher was attached
	touched  map[string]bool
	overflow bool
	lastLook time.Time // when the last sync started
}

// Change is one path that changed between two looks: Before or After is
// nil where the path did not exist.
type Change struct {
	// Path is absolute.
	Path          string
	Before, After *Entry
}

// build loads the saved index, if any, and walks the workspace. What
// differs from the saved index changed while no Foya looked: it is kept
// for the next Before, as changes made outside.
func (ix *index) build(ctx context.Context) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	defer close(ix.ready)
	saved, err := ix.m.load(ix.session)
	hadSaved := err == nil && saved.Root == ix.root
	if hadSaved {
		ix.files = saved.Files
		for _, e := range ix.files {
			if e.Kept {
				ix.kept += e.Size
			}
		}
		ix.forgetSkipped()
	}
	// A first build saves what it found at once; a build against a saved
	// index does not, since what differs (pending) is not recorded yet: a
	// crash before it is would leave recovery nothing to find.
	changes, err := ix.sync(ctx, false, !hadSaved)
	if err != nil {
		ix.err = fmt.Errorf("build the workspace index of %s: %w", ix.root, err)
		return
	}
	if hadSaved {
		ix.pending = changes
	}
}

// sync compares the index with the disk, updates it (keeping the new
// contents as blobs) and returns what changed. With narrow, and a whole
// watcher attached since the last full walk, only the paths it reported
// are looked at.
func (ix *index) sync(ctx context.Context, narrow, save bool) ([]Change, error) {
	ix.wmu.Lock()
	touched, overflow := ix.touched, ix.overflow
	ix.touched, ix.overflow = map[string]bool{}, false
	ix.lastLook = time.Now()
	canNarrow := ix.narrow && !ix.degraded
	attached := ix.attached && !ix.degraded
	ix.wmu.Unlock()
	lim := ix.m.limits(ctx)
	root, err := os.OpenRoot(ix.root)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	var changes []Change
	if narrow && canNarrow && !overflow && !ignoreTouched(touched) {
		var rels []string
		for p := range touched {
			if rel, ok := relOf(ix.root, p); ok {
				rels = append(rels, rel)
			}
		}
		for _, rel := range roots(rels) {
			more, err := ix.syncSubtree(ctx, root, rel, lim)
			if err != nil {
				return changes, err
			}
			changes = append(changes, more...)
		}
	} else {
		changes, err = ix.syncSubtree(ctx, root, "", lim)
		if err != nil {
			return changes, err
		}
		if attached {
			ix.wmu.Lock()
			ix.narrow = !ix.degraded
			ix.wmu.Unlock()
		}
	}
	if len(changes) > 0 {
		ix.unsaved = true
	}
	if save {
		ix.saveIfChanged()
	}
	return changes, nil
}

// saveIfChanged saves the index when a sync changed it since the last
// save. ix.mu is held. A failure to save loses only the comparison at the
// next start, which then takes the disk as it finds it.
func (ix *index) saveIfChanged() {
	if ix.unsaved && !ix.gone {
		ix.save()
		ix.unsaved = false
	}
}

// save writes what changed since the last save: the changed paths
// appended to the saved index's journal, or the whole index when this
// Manager has not written it yet, or when the journal has grown past the
// whole index's size (so that loading never costs more than twice a
// whole index).
func (ix *index) save() {
	if ix.gen != 0 && ix.journaled < max(ix.baseBytes, minJournal) && ix.m.baseIs(ix.session, ix.base) {
		n, err := ix.m.appendJournal(ix.session, ix.gen, ix.files, ix.dirty)
		if err == nil {
			ix.journaled += n
			clear(ix.dirty)
			return
		}
	}
	gen := newGen()
	n, err := ix.m.save(ix.session, saved{Root: ix.root, Files: ix.files, Gen: gen})
	if err != nil {
		ix.gen = 0 // written whole at the next save
		return
	}
	ix.gen, ix.baseBytes, ix.journaled = gen, n, 0
	ix.base, _ = os.Stat(ix.m.savedPath(ix.session))
	if ix.base == nil {
		ix.gen = 0
	}
	clear(ix.dirty)
}

// roots returns the paths of rels (relative, with forward slashes) that
// no other of them is below, sorted. A look brings each of them up to
// date with what is below it, so each path is looked at once: looked at
// twice (a folder and a file in it, both reported by the watcher), a
// file a running command changes in between would be found changed
// twice, its creation in one walk and its write in the other.
func roots(rels []string) []string {
	set := make(map[string]bool, len(rels))
	for _, rel := range rels {
		set[rel] = true
	}
	out := make([]string, 0, len(set))
	for rel := range set {
		above := rel != "" && set[""]
		for p := path.Dir(rel); !above && p != "." && p != "/"; p = path.Dir(p) {
			above = set[p]
		}
		if !above {
			out = append(out, rel)
		}
	}
	slices.Sort(out)
	return out
}

// onePerPath merges the changes of one path (found in the order given)
// into one, from the first one's before side to the last one's after
// side, and drops a path that ends as it began. The caller records each
// change as a File Change of its own, and those of one look are stored
// together in capture's order (changes in place before creations), not
// in the order they were found: two of one path would not follow one
// another.
func onePerPath(changes []Change) []Change {
	at := make(map[string]int, len(changes))
	var merged []int
	out := changes[:0:0]
	for _, c := range changes {
		i, ok := at[c.Path]
		if !ok {
			at[c.Path] = len(out)
			out = append(out, c)
			continue
		}
		out[i].After = c.After
		merged = append(merged, i)
	}
	if len(merged) == 0 {
		return out
	}
	drop := map[int]bool{}
	for _, i := range merged {
		drop[i] = sameEntry(out[i].Before, out[i].After)
	}
	keep := out[:0]
	for i, c := range out {
		if !drop[i] {
			keep = append(keep, c)
		}
	}
	return keep
}

// sameEntry reports whether a and b (nil: absent) hold the same thing as
// a look tells it: both absent, folders of one mode, or files of one mode
// and one known content.
func sameEntry(a, b *Entry) bool {
	switch {
	case a == nil || b == nil:
		return a == b
	case a.Mode != b.Mode:
		return false
	case a.IsDir():
		return true
	}
	return a.SHA != "" && a.SHA == b.SHA
}

// ignoreTouched reports whether a .gitignore is among the touched paths:
// what it ignores, or no longer ignores, lies beyond the paths touched.
func ignoreTouched(touched map[string]bool) bool {
	for p := range touched {
		if filepath.Base(p) == ".gitignore" {
			return true
		}
	}
	return false
}

// relOf returns p relative to root with forward slashes ("" for root).
func relOf(root, p string) (string, bool) {
	if p == root {
		return "", true
	}
	rel, err := filepath.Rel(root, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// under reports whether rel is sub or below it.
func under(rel, sub string) bool {
	return sub == "" || rel == sub || strings.HasPrefix(rel, sub+"/")
}

// syncSubtree brings the index up to date for sub and what is below it.
func (ix *index) syncSubtree(ctx context.Context, root *os.Root, sub string, lim Limits) ([]Change, error) {
	found := map[string]scanned{}
	if sub == "" {
		rules, _ := rulesAbove(root, "")
		full, err := scan(ctx, root, ix.root, "", rules, ix.m.skip, found, MaxEntries)
		if err != nil {
			return nil, err
		}
		ix.full = full
	} else {
		dir, name := "", sub
		if i := strings.LastIndexByte(sub, '/'); i >= 0 {
			dir, name = sub[:i], sub[i+1:]
		}
		rules, ignoredDir := rulesAbove(root, dir)
		fi, err := root.Lstat(filepath.FromSlash(sub))
		switch {
		case ignoredDir || name == ".git" || ix.m.skip.has(ix.abs(sub)):
			return nil, nil
		case errors.Is(err, fs.ErrNotExist) || err != nil && isNotDir(err):
			// gone: everything at or below it is deleted
		case err != nil:
			return nil, nil
		default:
			comps := append(splitRel(dir), name)
			// The folder's own .gitignore does not apply to itself.
			rules = append(rules, readIgnore(root, pathJoin(dir, ".gitignore"), splitRel(dir))...)
			ign := matches(rules, comps, fi.IsDir())
			if ign && fi.IsDir() {
				return nil, nil
			}
			found[sub] = scanned{e: entryOf(fi), ignored: ign}
			if fi.IsDir() {
				if _, err := scan(ctx, root, ix.root, sub, rules, ix.m.skip, found, MaxEntries); err != nil {
					return nil, err
				}
			}
		}
	}
	var changes []Change
	gone := func(rel string, old Entry) {
		if _, ok := found[rel]; !ok {
			o := old
			changes = append(changes, Change{Path: ix.abs(rel), Before: &o})
			ix.drop(rel, old)
		}
	}
	if ix.leaf(sub, found) {
		// One file: nothing of the index is below it, so the look costs
		// what the path holds, not what the workspace does.
		if old, had := ix.files[sub]; had {
			gone(sub, old)
		}
	} else {
		for rel, old := range ix.files {
			if under(rel, sub) {
				gone(rel, old)
			}
		}
	}
	for rel, sc := range found {
		old, had := ix.files[rel]
		if had && sameStat(old, sc.e) {
			continue
		}
		if len(ix.files) >= MaxEntries && !had {
			ix.full = false
			continue
		}
		e := ix.fill(root, rel, sc, lim, true)
		if had {
			ix.drop(rel, old)
			if !old.IsDir() && !e.IsDir() && old.Mode == e.Mode && old.SHA != "" && old.SHA == e.SHA {
				ix.put(rel, e)
				continue // touched, the same content and mode
			}
			if old.IsDir() && e.IsDir() && old.Mode == e.Mode {
				ix.put(rel, e)
				continue
			}
		}
		ix.put(rel, e)
		n := e
		c := Change{Path: ix.abs(rel), After: &n}
		if had {
			o := old
			c.Before = &o
		}
		changes = append(changes, c)
	}
	return changes, nil
}

// leaf reports whether the index can hold nothing below sub: sub is not
// the root, is no folder on disk (found) and was none in the index, which
// either holds a file there or, whole (not stopped at MaxEntries), nothing.
// A folder the index holds has its entries; a file never has any.
func (ix *index) leaf(sub string, found map[string]scanned) bool {
	if sub == "" {
		return false
	}
	if sc, ok := found[sub]; ok && sc.e.IsDir() {
		return false
	}
	old, had := ix.files[sub]
	if had {
		return !old.IsDir()
	}
	return ix.full
}

// forgetSkipped drops, without a change, what a saved index holds of the
// paths the index skips (one saved by an older Foya may hold the
// database); the looks that follow never add them.
func (ix *index) forgetSkipped() {
	if len(ix.m.skip.paths) == 0 {
		return
	}
	for rel, e := range ix.files {
		if ix.m.skip.has(ix.abs(rel)) {
			ix.drop(rel, e)
		}
	}
}

func matches(rules []gitignore.Pattern, comps []string, isDir bool) bool {
	if len(rules) == 0 {
		return false
	}
	return gitignore.NewMatcher(rules).Match(comps, isDir)
}

func pathJoin(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

func isNotDir(err error) bool {
	return strings.Contains(err.Error(), "not a directory")
}

func (ix *index) abs(rel string) string {
	if rel == "" {
		return ix.root
	}
	return filepath.Join(ix.root, filepath.FromSlash(rel))
}

func (ix *index) put(rel string, e Entry) {
	ix.files[rel] = e
	ix.dirty[rel] = true
	if e.Kept {
		ix.kept += e.Size
	}
}

func (ix *index) drop(rel string, e Entry) {
	delete(ix.files, rel)
	ix.dirty[rel] = true
	if e.Kept {
		ix.kept -= e.Size
		ix.m.release(e.SHA)
	}
}

// fill completes a scanned entry with its digest and, when it can be
// kept, its content in the blob folder.
func (ix *index) fill(root *os.Root, rel string, sc scanned, lim Limits, hashUnkept bool) Entry {
	e := sc.e
	if e.IsDir() {
		return e
	}
	if sc.ignored {
		e.Why = whyIgnored
		if hashUnkept && e.Mode&modeTypeMask == modeRegular {
			e.SHA, _ = hashOnly(root, filepath.FromSlash(rel), e)
		}
		return e
	}
	kept := ix.kept
	if prev := ix.files[rel]; prev.Kept {
		kept -= prev.Size // replaced by this one (a rewrite)
	}
	if e.Mode&modeTypeMask == modeRegular && kept+e.Size > lim.MaxTotal {
		e.Why = fmt.Sprintf("the index keeps at most %s of contents (workspace.maxTotalBytes), and that much is kept", files.Size(lim.MaxTotal))
		if hashUnkept {
			e.SHA, _ = hashOnly(root, filepath.FromSlash(rel), e)
		}
		return e
	}
	data, sha, why := content(root, rel, e, lim.MaxFile)
	e.SHA, e.Why = sha, why
	if why != "" {
		return e
	}
	if err := ix.m.keep(sha, data, lim.MaxKept); errors.Is(err, errFull) {
		e.Why = fmt.Sprintf("Foya's kept contents take the most workspace.maxKeptBytes allows (%s) with what the sessions' indexes still need; raise it in Settings, or delete old sessions", files.Size(lim.MaxKept))
		return e
	} else if err != nil {
		e.Why = "Foya could not keep its copy (" + err.Error() + ")"
		return e
	}
	e.Kept = true
	return e
}

// saved is an index as kept on disk.
type saved struct {
	Root  string
	Files map[string]Entry
	// Gen names this writing of the whole index: the journal's records
	// of another generation are not applied to it (see journal.go).
	Gen int64
}

const savedSuffix = ".index"

func (m *Manager) savedPath(sessionID string) string {
	return filepath.Join(m.opts.Dir, "index", sessionID+savedSuffix)
}

// save writes a session's index (gob, zstd), replacing the last one and
// its journal, and returns the bytes written.
func (m *Manager) save(sessionID string, s saved) (int64, error) {
	if !validID(sessionID) {
		return 0, fmt.Errorf("save the workspace index: session ID %q", sessionID)
	}
	p := m.savedPath(sessionID)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return 0, fmt.Errorf("save the workspace index: %w", err)
	}
	f, err := os.CreateTemp(filepath.Dir(p), ".tmp-")
	if err != nil {
		return 0, fmt.Errorf("save the workspace index: %w", err)
	}
	enc, _ := codec()
	var w bytes.Buffer
	var n int
	err = gob.NewEncoder(&w).Encode(s)
	if err == nil {
		n, err = f.Write(enc.EncodeAll(w.Bytes(), nil))
	}
	err = errors.Join(err, f.Close())
	if err == nil {
		err = os.Rename(f.Name(), p)
	}
	if err != nil {
		os.Remove(f.Name())
		return 0, fmt.Errorf("save the workspace index: %w", err)
	}
	// The journal's records are of the generation replaced: a crash
	// before this removal leaves them, and load skips them.
	os.Remove(m.journalPath(sessionID))
	return int64(n), nil
}

// load reads a session's saved index.
func (m *Manager) load(sessionID string) (saved, error) {
	var s saved
	if !validID(sessionID) {
		return s, fmt.Errorf("load the workspace index: session ID %q", sessionID)
	}
	raw, err := os.ReadFile(m.savedPath(sessionID))
	if err != nil {
		return s, err
	}
	_, dec := codec()
	data, err := dec.DecodeAll(raw, nil)
	if err != nil {
		return s, fmt.Errorf("load the workspace index: %w", err)
	}
	if err := gob.NewDecoder(bytes.NewReader(data)).Decode(&s); err != nil {
		return s, fmt.Errorf("load the workspace index: %w", err)
	}
	if s.Files == nil {
		s.Files = map[string]Entry{}
	}
	m.replayJournal(sessionID, &s)
	return s, nil
}
