package kernel

import (
	"context"
	"path/filepath"
	"time"

	"foya/backend/settings"
	"foya/backend/store"
	"foya/backend/workspace"
)

// WorkspaceDir is the folder, in the data folder, of the workspace
// indexes that let shell commands' changes be reverted.
const WorkspaceDir = "workspace"

// newWorkspace makes the kernel's workspace indexes in dataDir. They never
// look at Foya's own files (see foyaFiles).
func (k *Kernel) newWorkspace(dataDir string) *workspace.Manager {
	dir := filepath.Join(dataDir, WorkspaceDir)
	for _, p := range append(k.foyaFiles(), dir) {
		k.skipped = append(k.skipped, p)
		if d, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil && d != filepath.Dir(p) {
			k.skipped = append(k.skipped, filepath.Join(d, filepath.Base(p)))
		}
	}
	return workspace.New(workspace.Options{Dir: dir, Skip: k.skipped,
		Limits: func(ctx context.Context) workspace.Limits { return workspaceLimits(ctx, k.store) }})
}

// foyaFiles are the files Foya keeps beside its database, which may lie in
// a workspace (the home folder holds the default data folder): the
// database with its side files, the ownership locks and the provider keys.
// Sandboxed commands may not reach them (shellTools); the workspace
// indexes and the watcher never look at them. Foya's changes to them are
// not a command's nor the user's, and opening the database here would
// drop SQLite's locks on it (workspace.Options.Skip).
func (k *Kernel) foyaFiles() []string {
	return append(k.databaseFiles(), absPath(k.profiles.KeyFilePath()), k.tokenFile())
}

// workspaceLimits reads the index's limits from the settings.
func workspaceLimits(ctx context.Context, st *store.Store) workspace.Limits {
	l := workspace.Limits{MaxFile: workspace.DefaultMaxFile, MaxTotal: workspace.DefaultMaxTotal}
	for key, to := range map[string]*int64{SettingWorkspaceMaxFile: &l.MaxFile, SettingWorkspaceMaxTotal: &l.MaxTotal,
		SettingWorkspaceMaxKept: &l.MaxKept} {
		if v, ok, err := st.Setting(ctx, key); err == nil && ok {
			if n, err := settings.ParseBytes(v); err == nil {
				*to = n
			}
		}
	}
	return l
}

func usageOf(u workspace.Usage, l workspace.Limits) WorkspaceUsage {
	return WorkspaceUsage{Dir: u.Dir, Blobs: u.Blobs, BlobBytes: u.BlobBytes, Indexes: u.Indexes, IndexBytes: u.IndexBytes,
		MaxKeptBytes: l.KeptBound()}
}

// StoredWorkspaceLimits is the workspace limits the settings of st give,
// for a reader without a kernel (foya doctor reads them from a database it
// does not otherwise open).
func StoredWorkspaceLimits(ctx context.Context, st *store.Store) workspace.Limits {
	return workspaceLimits(ctx, st)
}

// WorkspaceUsageIn is WorkspaceUsage without a kernel: the disk the
// workspace indexes of dataDir take, with the bound lim gives (zero limits:
// the bound is not known).
func WorkspaceUsageIn(dataDir string, lim workspace.Limits) WorkspaceUsage {
	return usageOf(workspace.DirUsage(filepath.Join(dataDir, WorkspaceDir)), lim)
}

// WorkspaceUsage returns the disk the workspace indexes take now, and the
// bound on the kept contents.
func (k *Kernel) WorkspaceUsage() WorkspaceUsage {
	return usageOf(k.ws.Usage(), workspaceLimits(context.Background(), k.store))
}

// WorkspacePruned says what a prune of the workspace blobs removed.
type WorkspacePruned struct {
	Blobs int   `json:"blobs"`
	Bytes int64 `json:"bytes"`
}

// PruneWorkspace removes the workspace blobs no index refers to, except
// those written within grace (another kernel sharing the data folder may
// be indexing them). DeleteSession prunes with a grace of ten minutes.
func (k *Kernel) PruneWorkspace(grace time.Duration) (WorkspacePruned, error) {
	p, err := k.ws.Prune(grace)
	return WorkspacePruned{Blobs: p.Blobs, Bytes: p.Bytes}, err
}
