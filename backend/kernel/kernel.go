package kernel

import (
	"context"
	"time"
)

// Version is the kernel's version, set at build time with
// -ldflags "-X foya/backend/kernel.Version=...".
var Version = "0.1.0-dev"

// Options configure Open.
type Options struct {
	// DBPath is the SQLite file; empty means $FOYA_DB, then the data folder's foya.db.
	DBPath string
}

// Info describes a running kernel for front ends.
type Info struct {
	Version string `json:"version"`
	DataDir string `json:"dataDir"`
	DBPath  string `json:"dbPath"`
}

// Session is a stored session as front ends see it.
type Session struct {
	ID           string    `json:"id"`
	Title        string    `json:"title"`
	Workdir      string    `json:"workdir"`
	Model        string    `json:"model"`
	ApprovalMode string    `json:"approvalMode"`
	CreatedAt    time.Time `json:"createdAt"`
	UpdatedAt    time.Time `json:"updatedAt"`
	Runs         int       `json:"runs"`
}

// Kernel is the facade every front end uses.
type Kernel struct {
	info Info
}

// Open opens the store and builds the kernel.
func Open(ctx context.Context, opts Options) (*Kernel, error) {
	return &Kernel{info: Info{Version: Version, DBPath: opts.DBPath}}, nil
}

// Close releases the kernel's resources.
func (k *Kernel) Close() error { return nil }

// Info returns the kernel's version and where it keeps its data.
func (k *Kernel) Info() Info { return k.info }

// Sessions lists stored sessions, newest first.
func (k *Kernel) Sessions(ctx context.Context) ([]Session, error) { return nil, nil }
