package store

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// ErrNotFound is returned when a requested row does not exist.
var ErrNotFound = errors.New("not found")

//go:embed migrations/*.sql
var migrations embed.FS

// Store is an open database.
//
// Several processes may use one database at once (the desktop app, foya
// serve, foya exec, foya mode, the sqlite3 shell): SQLite's write-ahead log
// and its locks keep it whole, as long as no process drops another's locks
// or removes the log in use (see docs/reliability.md). A write waits up to
// ten seconds for another process's write to end, then fails with a message
// that names the database and, where the system tells, the process.
type Store struct {
	path     string
	readOnly string  // why the database was opened read-only; "" when not
	w        *sql.DB // the one writer
	r        *sql.DB // readers

	dvMu sync.Mutex
	dv   *sql.Conn // asks PRAGMA data_version (DataVersion)

	stmts stmts

	stopCheckpoints chan struct{}
	checkpointsDone chan struct{}
}

// Open opens (creating if needed) the database at path and brings its schema
// up to date.
func Open(ctx context.Context, path string) (*Store, error) {
	if path == "" {
		return nil, errors.New("open database: no path given")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o700); err != nil {
		return nil, fmt.Errorf("open database %s: %w", abs, err)
	}
	if fi, err := os.Stat(abs); err == nil && fi.IsDir() {
		return nil, fmt.Errorf("open database %s: is a directory", abs)
	}
	s := &Store{path: abs}
	why, immutable := readOnlyWhy(abs)
	s.readOnly = why
	dsn := func(extra string) string {
		q := url.Values{}
		q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busyWait.Milliseconds()))
		q.Add("_pragma", "foreign_keys(1)")
		q.Add("_pragma", "synchronous(NORMAL)")
		// Each connection's page cache: SQLite's default is 2 MB; the
		// operating system caches the file's pages anyway, and half a
		// megabyte keeps foya exec's peak RSS 0.6-0.8 MB lower on the
		// shared workloads at no measured CPU cost (docs/benchmarks.md).
		q.Add("_pragma", fmt.Sprintf("cache_size(%d)", -cacheKiB))
		q.Add("_txlock", "immediate")
		if s.readOnly != "" {
			q.Add("mode", "ro")
		}
		if immutable {
			q.Add("immutable", "1")
		}
		return "file:" + (&url.URL{Path: abs}).EscapedPath() + "?" + q.Encode() + extra
	}
	// The writer leaves checkpoints to the background (see checkpoints).
	if s.w, err = sql.Open("sqlite", dsn("&_pragma=wal_autocheckpoint(0)")); err != nil {
		return nil, s.wrap(err)
	}
	s.w.SetMaxOpenConns(1)
	s.w.SetConnMaxIdleTime(0)
	if s.r, err = sql.Open("sqlite", dsn("")); err != nil {
		s.w.Close()
		return nil, s.wrap(err)
	}
	s.r.SetMaxOpenConns(5) // one of them asks DataVersion
	if err := s.init(ctx); err != nil {
		s.Close()
		return nil, err
	}
	if err := s.prepare(ctx); err != nil {
		s.Close()
		return nil, err
	}
	if s.readOnly == "" {
		s.stopCheckpoints, s.checkpointsDone = make(chan struct{}), make(chan struct{})
		go s.checkpoints(time.Second)
	}
	return s, nil
}

// cacheKiB bounds each connection's page cache, in KiB.
const cacheKiB = 512

// busyWait is how long a statement waits for another process's lock on
// the database before it fails with ErrBusy (SQLite retries meanwhile).
var busyWait = 10 * time.Second

// Path returns the database file's absolute path.
func (s *Store) Path() string { return s.path }

// ReadOnly says why the database was opened read-only (a read-only file
// system, a file or folder this user may not write), or "" when it is
// writable. Every write then fails with ErrReadOnly.
func (s *Store) ReadOnly() string { return s.readOnly }

// ErrBusy is returned when another process kept the database locked for
// longer than ten seconds.
var ErrBusy = errors.New("the database is busy")

// ErrReadOnly is returned by writes to a database opened read-only.
var ErrReadOnly = errors.New("the database is open read-only")

// Close closes the database.
func (s *Store) Close() error {
	if s.stopCheckpoints != nil {
		close(s.stopCheckpoints)
		<-s.checkpointsDone
		s.stopCheckpoints = nil
	}
	s.dvMu.Lock()
	var dvErr error
	if s.dv != nil {
		dvErr = s.dv.Close()
		s.dv = nil
	}
	s.dvMu.Unlock()
	return errors.Join(dvErr, s.r.Close(), s.w.Close())
}

// DataVersion returns a number that changes when another connection, in
// this process or another, commits a change to the database (PRAGMA
// data_version on a connection kept for it): a cheap way to learn that
// another process wrote.
func (s *Store) DataVersion(ctx context.Context) (int64, error) {
	s.dvMu.Lock()
	defer s.dvMu.Unlock()
	if s.dv == nil {
		c, err := s.r.Conn(ctx)
		if err != nil {
			return 0, s.wrap(err)
		}
		s.dv = c
	}
	var v int64
	if err := s.dv.QueryRowContext(ctx, "PRAGMA data_version").Scan(&v); err != nil {
		return 0, s.wrap(err)
	}
	return v, nil
}

// checkpoints copies the write-ahead log into the database every interval,
// from a reader connection, so the one writer never stalls on a checkpoint
// (the writer's automatic checkpoints are off). PASSIVE never blocks
// writers or readers.
func (s *Store) checkpoints(every time.Duration) {
	defer close(s.checkpointsDone)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-s.stopCheckpoints:
			s.r.Exec("PRAGMA wal_checkpoint(PASSIVE)")
			return
		case <-t.C:
			s.r.Exec("PRAGMA wal_checkpoint(PASSIVE)")
		}
	}
}

// wrap names the database file in an error, and says what to do about a
// lock held by another process.
func (s *Store) wrap(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	switch {
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		return err
	case s.readOnly != "" && (strings.Contains(msg, "SQLITE_READONLY") || strings.Contains(msg, "readonly database")):
		return fmt.Errorf("database %s: %w (%s): nothing can be changed; copy it where it can be written, or give another with --db", s.path, ErrReadOnly, s.readOnly)
	case strings.Contains(msg, "SQLITE_BUSY") || strings.Contains(msg, "database is locked"):
		who := "another process"
		if h := lockHolder(s.path); h != "" {
			who = h
		}
		return fmt.Errorf("database %s: %s kept it locked for more than %s, so nothing was changed; try again when it is done: %w", s.path, who, busyWait, ErrBusy)
	case strings.Contains(msg, "file is not a database") || strings.Contains(msg, "SQLITE_NOTADB"):
		return fmt.Errorf("database %s is not a Foya database (not SQLite, or corrupt): %w", s.path, err)
	case strings.Contains(msg, "unable to open") || strings.Contains(msg, "SQLITE_CANTOPEN") || strings.Contains(msg, "SQLITE_READONLY") || strings.Contains(msg, "readonly database"):
		return fmt.Errorf("database %s cannot be opened for writing (check its permissions): %w", s.path, err)
	}
	return fmt.Errorf("database %s: %w", s.path, err)
}

func (s *Store) init(ctx context.Context) error {
	if s.readOnly == "" {
		if _, err := s.w.ExecContext(ctx, "PRAGMA journal_mode=WAL"); err != nil {
			return s.wrap(err)
		}
	}
	var version int
	if err := s.w.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return s.wrap(err)
	}
	entries, err := migrations.ReadDir("migrations")
	if err != nil {
		return err
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	latest := 0
	for _, e := range entries {
		n, err := strconv.Atoi(strings.SplitN(e.Name(), "_", 2)[0])
		if err != nil {
			return fmt.Errorf("migration %s: bad number", e.Name())
		}
		latest = max(latest, n)
		if n <= version {
			continue
		}
		if s.readOnly != "" {
			return fmt.Errorf("database %s was made by an older Foya and must be brought up to date, but it can only be read (%s): open it once where it can be written", s.path, s.readOnly)
		}
		body, err := migrations.ReadFile("migrations/" + e.Name())
		if err != nil {
			return err
		}
		err = s.inTx(ctx, func(tx *sql.Tx) error {
			if _, err := tx.ExecContext(ctx, string(body)); err != nil {
				return fmt.Errorf("migration %s: %w", e.Name(), err)
			}
			_, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", n))
			return err
		})
		if err != nil {
			return err
		}
	}
	if version > latest {
		return fmt.Errorf("database %s has schema version %d, newer than this Foya knows (%d): upgrade Foya", s.path, version, latest)
	}
	return nil
}

// inTx runs fn in one write transaction.
func (s *Store) inTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return s.wrap(err)
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return s.wrap(err)
	}
	return s.wrap(tx.Commit())
}

func nanos(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

func fromNanos(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n)
}
