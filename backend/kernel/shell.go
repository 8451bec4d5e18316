package kernel

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"foya/backend/mcp/mcpconfig"
	"foya/backend/sandbox"
	"foya/backend/tools"
	"foya/backend/tools/shell"
)

// ErrNoCommand is returned for a background command a session does not have.
var ErrNoCommand = shell.ErrNoCommand

// shellTools makes the kernel's shell, which keeps the sessions' background
// commands and temp folders, and returns its tools (bash, bash_output,
// bash_kill).
//
// Sandboxed commands may neither read nor write the database (with its
// side files and its owners' locks) wherever it is, inside the workspace
// too, nor read Foya's data folder unless the user's sandbox.readable
// setting allows it: the database holds the sessions' records and
// approvals, the data folder the provider keys.
func shellTools(k *Kernel, probe func() sandbox.Capability) []tools.Tool {
	opts := shell.Options{
		Probe:   probe,
		Environ: k.commandEnv,
		// With the database and its locks: the provider keys' file, which
		// may lie beside it.
		Database: k.foyaFiles(),
		Private:  k.dataFolders(),
		Own:      k.ownFiles(),
		Capture:  k.capture,
		Jobs:     k.capture.Jobs(),
		Changed:  k.backgroundChanged,
		Granter:  sandboxGranter{k},
		Readable: func() []string {
			paths, _ := k.SandboxReadable(context.Background())
			return paths
		},
	}
	k.shell = shell.New(opts)
	return k.shell.Tools()
}

// Foya's own files, one list for the sandbox and the file tools, so that
// what a command may not touch and what a file tool may not touch cannot
// drift apart.

// databaseFiles are Foya's database with its -wal, -shm and -journal
// files and the lock files Foya keeps: the ownership locks beside the
// database (see owner.go), which a command must not take or remove, and
// the provider keys' lock. Sandboxed commands neither read nor write them;
// the file tools never open them, in any mode.
func (k *Kernel) databaseFiles() []string {
	db := absPath(k.info.DBPath)
	return []string{db, db + "-wal", db + "-shm", db + "-journal", OwnersDir(db), absPath(k.profiles.KeyFilePath()) + ".lock",
		k.tokenFile() + ".lock"}
}

// dataFolders are the folders of Foya's data that sandboxed commands and
// the file tools may not read unless the user's sandbox.readable setting
// allows it: the data folder, and the folder of Foya's other files when a
// named database moved them (not when that is the database's own folder,
// which may be the workspace).
func (k *Kernel) dataFolders() []string {
	var out []string
	if dir, err := DataDir(); err == nil {
		out = append(out, dir)
	}
	if k.info.DataDir != "" && k.info.DataDir != filepath.Dir(k.info.DBPath) {
		out = append(out, absPath(k.info.DataDir))
	}
	return out
}

// ownFiles are the data folders and every file Foya reads back as
// configuration, wherever they lie: its MCP servers, the provider keys,
// the user's rules and hooks, the workspace indexes. The file tools do not write
// them outside Full Access, even where the user made them readable.
func (k *Kernel) ownFiles() []string {
	out := append(k.dataFolders(), filepath.Join(absPath(k.info.DataDir), mcpconfig.File), absPath(k.profiles.KeyFilePath()),
		k.tokenFile(), filepath.Join(absPath(k.info.DataDir), WorkspaceDir))
	if k.userRules != "" {
		out = append(out, absPath(k.userRules))
	}
	if k.userHooks != "" {
		out = append(out, absPath(k.userHooks))
	}
	return out
}

// absPath is p made absolute; p itself when that fails.
func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// BackgroundCommands lists a session's background commands, oldest first
// (spec B1): running ones and those that ended and are still kept.
func (k *Kernel) BackgroundCommands(sessionID string) []BackgroundCommand {
	return mapSlice(k.shell.List(sessionID), backgroundOf)
}

// KillBackground ends a session's background command with its whole process
// tree and returns how it ended.
func (k *Kernel) KillBackground(sessionID, id string) (BackgroundCommand, error) {
	b, err := k.shell.Kill(sessionID, id)
	if errors.Is(err, shell.ErrNoCommand) {
		err = withKind(err, ErrNotFound)
	}
	return backgroundOf(b), err
}

// DeleteSession deletes a session for good: its background commands end
// (whole trees, spec B3), its temp folder is removed, then the store drops
// the session with everything it owns, and its isolated copy goes. A
// session with a run (or a setup command) going is refused: cancel the
// run first.
func (k *Kernel) DeleteSession(ctx context.Context, id string) error {
	sess, err := k.store.Session(ctx, id)
	if err != nil {
		return err
	}
	if k.setups.busy(id) {
		return kindf(ErrBusy, "delete: session %s's setup command is running; wait for it to end, then delete the session", id)
	}
	release, err := k.eng.Hold(id, "it is being deleted")
	if err != nil {
		return fmt.Errorf("delete: %w; cancel the run first, then delete the session", err)
	}
	defer release()
	k.capture.Stop(id)
	// The commands die even when something else fails: no orphans.
	shellErr := k.shell.DeleteSession(id)
	if err := k.store.DeleteSession(ctx, id); err != nil {
		return errors.Join(shellErr, err)
	}
	// Its workspace index goes, and the contents no other index keeps;
	// its isolated copy too (one left by a failure here is an orphan the
	// next start removes).
	return errors.Join(shellErr, k.ws.DeleteSession(id), k.removeCopy(ctx, sess))
}
