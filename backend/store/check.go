package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
)

// maxIntegrityProblems bounds how many problems Check reports.
const maxIntegrityProblems = 20

// Check runs PRAGMA integrity_check on the database at path, opened read
// only and without migrating it, so that a damaged or foreign file is
// looked at and never changed. It returns nil for a sound database, else
// the problems SQLite found (at most 20). The error is for a file that
// cannot be read as a database at all (missing, not SQLite, encrypted);
// it names the file.
func Check(ctx context.Context, path string) ([]string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("check database %s: %w", path, err)
	}
	q := url.Values{}
	q.Add("mode", "ro")
	q.Add("_pragma", "busy_timeout(5000)")
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: abs}).EscapedPath()+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("check database %s: %w", abs, err)
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, fmt.Sprintf("PRAGMA integrity_check(%d)", maxIntegrityProblems))
	if err != nil {
		return nil, checkError(abs, err)
	}
	defer rows.Close()
	var lines []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return nil, checkError(abs, err)
		}
		lines = append(lines, line)
	}
	if err := rows.Err(); err != nil {
		return nil, checkError(abs, err)
	}
	switch {
	case len(lines) == 0:
		return nil, checkError(abs, errors.New("integrity_check returned nothing"))
	case len(lines) == 1 && lines[0] == "ok":
		return nil, nil
	}
	return lines, nil
}

// checkError names the file in a Check error and says, for a file that is
// not a database, that it is not one.
func checkError(path string, err error) error {
	msg := err.Error()
	switch {
	case strings.Contains(msg, "file is not a database") || strings.Contains(msg, "SQLITE_NOTADB"):
		return fmt.Errorf("database %s is not a Foya database (not SQLite, or corrupt): %w", path, err)
	case strings.Contains(msg, "malformed") || strings.Contains(msg, "SQLITE_CORRUPT"):
		return fmt.Errorf("database %s is damaged: %w", path, err)
	case strings.Contains(msg, "database is locked") || strings.Contains(msg, "SQLITE_BUSY"):
		return fmt.Errorf("database %s is locked by another process (try again when it is done): %w", path, err)
	}
	return fmt.Errorf("check database %s: %w", path, err)
}
