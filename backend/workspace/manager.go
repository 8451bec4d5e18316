package workspace

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Options configure a Manager.
type Options struct {
	// Dir is the folder of the indexes: Dir/blobs holds the contents,
	// Dir/index one saved index per session.
	Dir string
	// Limits returns the limits in force (the user's settings); nil means
	// the defaults.
	Limits func(ctx context.Context) Limits
	// Skip are absolute paths (files, or folders with what is below them)
	// the indexes never look at: Foya's own files in a workspace, above
	// all its database and the database's side files. Reading them would
	// be worse than useless: SQLite's locks on a file are the process's
	// POSIX locks, and closing any descriptor of the file drops them all,
	// so the next process to close the database would take itself for its
	// last user and remove the write-ahead log still in use.
	Skip []string
}

// Manager owns the workspace indexes of one kernel, one per session.
type Manager struct {
	opts  Options
	blobs *blobs
	skip  skipSet

	ctx    context.Context // lives until Close: builds run under it
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu      sync.Mutex
	indexes map[string]*index
	closed  bool

	kmu sync.Mutex // guards the blob folder's accounting
	// kept is the blob folder's size on disk, -1 until first counted; a
	// kernel sharing the data folder adds to it unseen, so it is a floor.
	kept int64
	// grown is what this Manager wrote since its last prune.
	grown int64
	// released holds the contents an index of this Manager stopped
	// referring to (an earlier version a capture handed over), with when,
	// until a prune looks at them.
	released map[string]time.Time
}

// New returns a Manager keeping its files in o.Dir.
func New(o Options) *Manager {
	ctx, cancel := context.WithCancel(context.Background())
	return &Manager{opts: o, blobs: &blobs{dir: filepath.Join(o.Dir, "blobs")}, skip: newSkipSet(o.Skip), ctx: ctx, cancel: cancel,
		indexes: map[string]*index{}, kept: -1, released: map[string]time.Time{}}
}

func (m *Manager) limits(ctx context.Context) Limits {
	l := Limits{MaxFile: DefaultMaxFile, MaxTotal: DefaultMaxTotal}
	if m.opts.Limits != nil {
		l = m.opts.Limits(ctx)
	}
	if l.MaxFile < 0 {
		l.MaxFile = 0
	}
	l.MaxKept = l.KeptBound()
	return l
}

// keep puts a content in the blob folder unless that would take the
// folder past max bytes on disk (errFull: the content is not kept).
func (m *Manager) keep(sha string, data []byte, max int64) error {
	fits := func(n int64) bool {
		m.kmu.Lock()
		defer m.kmu.Unlock()
		if m.kept < 0 {
			_, m.kept = m.blobs.usage()
		}
		if m.kept+n > max {
			return false
		}
		m.kept += n
		return true
	}
	unfit := func(n int64) {
		m.kmu.Lock()
		m.kept -= n
		m.kmu.Unlock()
	}
	n, err := m.blobs.put(sha, data, fits, unfit)
	if n > 0 {
		m.kmu.Lock()
		m.grown += n
		m.kmu.Unlock()
	}
	return err
}

// maxReleased bounds the contents Manager.released remembers; past it,
// the grace alone lets them go.
const maxReleased = 100_000

// release notes that an index no longer refers to the content sha.
func (m *Manager) release(sha string) {
	m.kmu.Lock()
	defer m.kmu.Unlock()
	if len(m.released) < maxReleased {
		m.released[sha] = time.Now()
	}
}

// tidy prunes the blob folder when it is past half its bound and this
// Manager wrote more than a thirty-second of the bound since it last
// pruned: the earlier contents that captures handed over and no index
// needs any more go, so that the bound refuses only what the indexes do
// need. No index lock may be held (Prune takes each in turn).
func (m *Manager) tidy(ctx context.Context) {
	max := m.limits(ctx).MaxKept
	m.kmu.Lock()
	due := m.kept > max/2 && m.grown > max/32
	m.kmu.Unlock()
	if due {
		m.Prune(pruneGrace)
	}
}

// ErrClosed is returned after Close.
var ErrClosed = errors.New("the workspace index is shut down: Foya is exiting")

// Warm starts building the session's index of workdir in the background,
// unless it is built or being built, and returns at once.
func (m *Manager) Warm(sessionID, workdir string) {
	m.get(sessionID, workdir)
}

// built is the session's index once its first build is done (or ctx
// ends first).
func (m *Manager) built(ctx context.Context, sessionID, workdir string) (*index, error) {
	ix, err := m.get(sessionID, workdir)
	if err != nil {
		return nil, err
	}
	select {
	case <-ix.ready:
		return ix, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// get returns the session's index, starting its build when it is new.
func (m *Manager) get(sessionID, workdir string) (*index, error) {
	root, err := filepath.EvalSymlinks(workdir)
	if err != nil {
		return nil, fmt.Errorf("workspace index: %w", err)
	}
	if root, err = filepath.Abs(root); err != nil {
		return nil, fmt.Errorf("workspace index: %w", err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, ErrClosed
	}
	if ix := m.indexes[sessionID]; ix != nil && ix.root == root {
		return ix, nil
	}
	ctx, cancel := context.WithCancel(m.ctx)
	ix := &index{m: m, session: sessionID, root: root, ready: make(chan struct{}), files: map[string]Entry{}, dirty: map[string]bool{},
		touched: map[string]bool{}, cancel: cancel}
	m.indexes[sessionID] = ix
	m.wg.Go(func() { ix.build(ctx) })
	return ix, nil
}

// Before brings the session's index up to date before a shell command
// runs: it waits for the index to be built, then looks for what changed
// since it last looked (only the paths a whole watcher reported and the
// paths given in also, else everything) and returns those changes, which
// the session's commands did not make. also names what Foya's own tools
// changed meanwhile, whose watcher events may not have arrived yet.
func (m *Manager) Before(ctx context.Context, sessionID, workdir string, also ...string) ([]Change, error) {
	return m.before(ctx, sessionID, workdir, false, also, nil)
}

// Settled is Before once the attached watcher's events up to now are in
// (its Barrier, as After waits for it; without them it walks everything),
// returning the changes as After does, with their contents: for the look
// before a command while a background command of the session lives, whose
// changes are given to that command, so a change it made just before must
// not be left to the next look. Like After, it does not save the index:
// the caller records the changes, then calls Save.
func (m *Manager) Settled(ctx context.Context, sessionID, workdir string, also ...string) (Capture, error) {
	var cp Capture
	_, err := m.before(ctx, sessionID, workdir, true, also, &cp)
	return cp, err
}

// Save saves the session's index if a look changed it since it was last
// saved: for the caller of Settled once the records of what it found are
// stored. The saved index is what recovery compares the disk with after a
// crash, so it may lag behind the stored records (recovery finds those
// changes again, and the newest record of each path explains them) but
// never run ahead of them (a crash in between would leave a change no
// record holds).
func (m *Manager) Save(sessionID string) {
	ix := m.lookup(sessionID)
	if ix == nil {
		return
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.saveIfChanged()
}

// before is Before, and Settled with settle; with cp, it fills cp with the
// changes' records while the index is locked (their before sides' contents
// may be pruned once it is not) and leaves the index unsaved.
func (m *Manager) before(ctx context.Context, sessionID, workdir string, settle bool, also []string, cp *Capture) ([]Change, error) {
	ix, err := m.built(ctx, sessionID, workdir)
	if err != nil {
		return nil, err
	}
	ix.wmu.Lock()
	for _, p := range also {
		if len(ix.touched) >= maxTouched {
			ix.overflow = true
			break
		}
		ix.touched[p] = true
	}
	ix.wmu.Unlock()
	narrow := !settle || ix.barrier(ctx)
	// Deferred before the unlock, so it runs after it: the index just
	// saved no longer needs the contents the last capture handed over.
	defer m.tidy(ctx)
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.err != nil {
		m.forget(ix) // the next command builds it again
		return nil, ix.err
	}
	out := ix.pending
	ix.pending = nil
	more, err := ix.sync(ctx, narrow, cp == nil)
	out = onePerPath(append(out, more...))
	if cp != nil && err == nil {
		*cp = ix.capture(ctx, out)
	}
	return out, err
}

// Look brings the session's index up to date at paths (absolute; each
// with what is below it) only, whatever the watcher saw, and returns what
// changed there, as After does: for a file tool about to change paths
// while a background command of the session lives, whose changes there
// are recorded against it first. It neither saves the
// index (the records are not stored yet; the next Before saves) nor counts
// as a look for LastLook, since it did not look anywhere else.
func (m *Manager) Look(ctx context.Context, sessionID, workdir string, paths []string) (Capture, error) {
	ix, err := m.built(ctx, sessionID, workdir)
	if err != nil {
		return Capture{}, err
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.err != nil {
		m.forget(ix)
		return Capture{}, ix.err
	}
	root, err := os.OpenRoot(ix.root)
	if err != nil {
		return Capture{}, err
	}
	defer root.Close()
	lim := m.limits(ctx)
	var rels []string
	for _, p := range paths {
		if rel, ok := relOf(ix.root, p); ok {
			rels = append(rels, rel)
		}
	}
	var changes []Change
	for _, rel := range roots(rels) {
		more, err := ix.syncSubtree(ctx, root, rel, lim)
		changes = append(changes, more...)
		if err != nil {
			break
		}
	}
	if len(changes) > 0 {
		ix.unsaved = true
	}
	return ix.capture(ctx, changes), nil
}

// After looks for what changed since Before (or the last After) after a
// shell command and returns the command's changes, as records with their
// contents (see Capture). With a whole watcher attached whose Barrier
// confirms its events are in, it looks only at the paths the watcher
// reported; otherwise (no watcher, degraded, the barrier failed or took
// longer than barrierWait, too many paths, a .gitignore changed) it walks
// the whole workspace.
func (m *Manager) After(ctx context.Context, sessionID, workdir string) (Capture, error) {
	ix, err := m.built(ctx, sessionID, workdir)
	if err != nil {
		return Capture{}, err
	}
	narrow := ix.barrier(ctx)
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.err != nil {
		m.forget(ix)
		return Capture{}, ix.err
	}
	// Not saved yet: see index.unsaved.
	changes, err := ix.sync(ctx, narrow, false)
	if err != nil {
		return Capture{}, err
	}
	return ix.capture(ctx, changes), nil
}

// barrierWait bounds how long After waits for the watcher's barrier before
// it walks everything instead.
const barrierWait = 2 * time.Second

// barrier waits for the attached watcher's events up to now and reports
// whether they may narrow the next look.
func (ix *index) barrier(ctx context.Context) bool {
	ix.wmu.Lock()
	b, ok := ix.watcher, ix.attached && !ix.degraded && ix.narrow
	ix.wmu.Unlock()
	if !ok || b == nil {
		return false
	}
	ctx, cancel := context.WithTimeout(ctx, barrierWait)
	defer cancel()
	if b.Barrier(ctx) != nil {
		return false
	}
	ix.wmu.Lock()
	defer ix.wmu.Unlock()
	return ix.watcher == b && ix.attached && !ix.degraded
}

// LastLook returns when the session's index last started to look at the
// disk; zero when it never did.
func (m *Manager) LastLook(sessionID string) time.Time {
	ix := m.lookup(sessionID)
	if ix == nil {
		return time.Time{}
	}
	ix.wmu.Lock()
	defer ix.wmu.Unlock()
	return ix.lastLook
}

// Barrier is what a watcher offers so that After may trust its events:
// Barrier returns nil once every change made before the call has been
// passed to Touch.
type Barrier interface {
	Barrier(ctx context.Context) error
}

// Attach tells the session's index that a watcher now reports changes in
// its workspace (Touch), so Before and After may look at those paths only
// (After once w's Barrier returned).
func (m *Manager) Attach(sessionID string, w Barrier) {
	if ix := m.lookup(sessionID); ix != nil {
		ix.wmu.Lock()
		ix.attached, ix.watcher = true, w
		ix.wmu.Unlock()
	}
}

// Detach tells the session's index that the watcher w stopped: the next
// looks walk everything. A watcher that is not the attached one is
// ignored.
func (m *Manager) Detach(sessionID string, w Barrier) {
	if ix := m.lookup(sessionID); ix != nil {
		ix.wmu.Lock()
		if ix.watcher == w {
			ix.attached, ix.watcher, ix.narrow = false, nil, false
		}
		ix.wmu.Unlock()
	}
}

// ErrNoWatcher is returned by WaitWatcher when no watcher is attached to
// the session's index.
var ErrNoWatcher = errors.New("no watcher is attached to the session's workspace")

// WaitWatcher returns once the watcher attached to the session's index has
// passed on (to Touch, and to whatever else it reports to) every change made
// in the workspace before the call: its Barrier. It returns ErrNoWatcher
// when none is attached, the Barrier's error when it cannot confirm that.
func (m *Manager) WaitWatcher(ctx context.Context, sessionID string) error {
	ix := m.lookup(sessionID)
	if ix == nil {
		return ErrNoWatcher
	}
	ix.wmu.Lock()
	b := ix.watcher
	ix.wmu.Unlock()
	if b == nil {
		return ErrNoWatcher
	}
	return b.Barrier(ctx)
}

// Touch notes a path a watcher saw change.
func (m *Manager) Touch(sessionID, path string) {
	ix := m.lookup(sessionID)
	if ix == nil {
		return
	}
	ix.wmu.Lock()
	defer ix.wmu.Unlock()
	if len(ix.touched) >= maxTouched {
		ix.overflow = true
		return
	}
	ix.touched[path] = true
}

// maxTouched is how many watched paths Before looks at one by one; past
// it, it walks everything.
const maxTouched = 256

// Degrade tells the session's index that its watcher no longer sees
// everything: Before walks the whole workspace from now on.
func (m *Manager) Degrade(sessionID string) {
	if ix := m.lookup(sessionID); ix != nil {
		ix.wmu.Lock()
		ix.degraded = true
		ix.narrow = false
		ix.wmu.Unlock()
	}
}

// forget drops an index whose build failed, unless another replaced it.
func (m *Manager) forget(ix *index) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.indexes[ix.session] == ix {
		delete(m.indexes, ix.session)
	}
}

func (m *Manager) lookup(sessionID string) *index {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.indexes[sessionID]
}

// Blob returns a kept content by digest.
func (m *Manager) Blob(sha string) ([]byte, error) { return m.blobs.get(sha) }

// DeleteSession forgets a session's index, removes its saved copy and
// prunes the blobs no index refers to any more.
func (m *Manager) DeleteSession(sessionID string) error {
	m.mu.Lock()
	ix := m.indexes[sessionID]
	delete(m.indexes, sessionID)
	m.mu.Unlock()
	if ix != nil {
		ix.cancel() // a build still going stops: its session is gone
		<-ix.ready
		ix.mu.Lock()
		ix.gone = true
		ix.mu.Unlock()
	}
	if validID(sessionID) {
		for _, p := range []string{m.savedPath(sessionID), m.journalPath(sessionID)} {
			if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("remove the workspace index: %w", err)
			}
		}
	}
	_, err := m.Prune(pruneGrace)
	return err
}

// pruneGrace keeps blobs written in the last while: another kernel sharing
// the data folder may be building an index that refers to them.
const pruneGrace = 10 * time.Minute

// Pruned says what a prune removed.
type Pruned struct {
	Blobs int
	Bytes int64
}

// Prune removes the blobs that neither a live index of this Manager nor a
// saved index refers to, except those written within grace. The grace
// (another kernel sharing the data folder may be building an index that
// refers to them) does not keep the contents an index of this Manager
// stopped referring to, when nobody kept them again since.
func (m *Manager) Prune(grace time.Duration) (Pruned, error) {
	keep := map[string]bool{}
	m.mu.Lock()
	live := make([]*index, 0, len(m.indexes))
	for _, ix := range m.indexes {
		live = append(live, ix)
	}
	m.mu.Unlock()
	for _, ix := range live {
		select {
		case <-ix.ready:
		default:
			continue // still building: its blobs are recent, grace keeps them
		}
		ix.mu.Lock()
		for _, e := range ix.files {
			if e.Kept {
				keep[e.SHA] = true
			}
		}
		// The changes the build found wait for Recover, which reads
		// their contents before.
		for _, c := range ix.pending {
			if c.Before != nil && c.Before.Kept {
				keep[c.Before.SHA] = true
			}
		}
		ix.mu.Unlock()
	}
	list, _ := os.ReadDir(filepath.Join(m.opts.Dir, "index"))
	for _, d := range list {
		id, ok := strings.CutSuffix(d.Name(), savedSuffix)
		if !ok {
			continue
		}
		s, err := m.load(id)
		if err != nil {
			// An index that cannot be read keeps nothing alive; it is
			// rebuilt when its session next runs a command.
			continue
		}
		for _, e := range s.Files {
			if e.Kept {
				keep[e.SHA] = true
			}
		}
	}
	m.kmu.Lock()
	released := m.released
	m.released, m.grown = map[string]time.Time{}, 0
	m.kmu.Unlock()
	// A released content untouched since its release is one no index of
	// this Manager needs; one another kernel (or an index here) keeps
	// again has a newer time, and grace keeps it.
	mine := func(sha string, mtime time.Time) bool {
		t, ok := released[sha]
		return ok && mtime.Before(t)
	}
	n, bytes, err := m.blobs.prune(keep, grace, mine)
	m.kmu.Lock()
	if m.kept >= 0 {
		m.kept = max(0, m.kept-bytes)
	}
	m.kmu.Unlock()
	if err != nil {
		return Pruned{n, bytes}, fmt.Errorf("prune the workspace blobs: %w", err)
	}
	return Pruned{n, bytes}, nil
}

// Usage is the disk the indexes take.
type Usage struct {
	Dir        string `json:"dir"`
	Blobs      int    `json:"blobs"`
	BlobBytes  int64  `json:"blobBytes"`
	Indexes    int    `json:"indexes"`
	IndexBytes int64  `json:"indexBytes"`
}

// Usage returns the disk the indexes take now.
func (m *Manager) Usage() Usage {
	return DirUsage(m.opts.Dir)
}

// DirUsage returns the disk the indexes in dir take, without a Manager
// (foya doctor).
func DirUsage(dir string) Usage {
	u := Usage{Dir: dir}
	u.Blobs, u.BlobBytes = (&blobs{dir: filepath.Join(dir, "blobs")}).usage()
	list, _ := os.ReadDir(filepath.Join(dir, "index"))
	for _, d := range list {
		fi, err := d.Info()
		switch {
		case err != nil:
		case strings.HasSuffix(d.Name(), savedSuffix):
			u.Indexes++
			u.IndexBytes += fi.Size()
		case strings.HasSuffix(d.Name(), journalSuffix):
			u.IndexBytes += fi.Size()
		}
	}
	return u
}

// Close stops the builds and waits for them.
func (m *Manager) Close() error {
	m.mu.Lock()
	m.closed = true
	m.mu.Unlock()
	m.cancel()
	m.wg.Wait()
	m.mu.Lock()
	all := make([]*index, 0, len(m.indexes))
	for _, ix := range m.indexes {
		all = append(all, ix)
	}
	m.mu.Unlock()
	for _, ix := range all {
		ix.mu.Lock()
		ix.saveIfChanged()
		ix.mu.Unlock()
	}
	return nil
}

func validID(id string) bool {
	if id == "" || len(id) > 128 {
		return false
	}
	for _, c := range id {
		if !(c == '_' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}
