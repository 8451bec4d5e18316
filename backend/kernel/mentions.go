package kernel

import (
	"context"
	"errors"
	"path/filepath"
	"strings"

	"foya/backend/fspath"
	"foya/backend/tools/files"
)

// WorkspaceFiles lists the files and folders of a session's folder for
// the composer's @-mentions (see the type). A session whose folder is gone
// is ErrUnavailable, worded so the user knows what to do.
func (k *Kernel) WorkspaceFiles(ctx context.Context, sessionID string) (WorkspaceFiles, error) {
	sess, err := k.store.Session(ctx, sessionID)
	if err != nil {
		return WorkspaceFiles{}, err
	}
	list, truncated, err := files.List(ctx, sess.Workdir, MaxWorkspaceFiles)
	if errors.Is(err, files.ErrNoWorkdir) {
		return WorkspaceFiles{}, kindf(ErrUnavailable, "the session's folder %s is gone or is not a folder: restore it, or start a new session in another folder", sess.Workdir)
	}
	if err != nil {
		return WorkspaceFiles{}, err
	}
	fenced, wd := k.unmentionable(), realDir(sess.Workdir)
	out := WorkspaceFiles{Entries: make([]WorkspaceEntry, 0, len(list)), Truncated: truncated}
	for _, l := range list {
		if fspath.WithinAny(fenced, filepath.Join(wd, filepath.FromSlash(l.Path))) {
			continue
		}
		out.Entries = append(out.Entries, WorkspaceEntry{Path: l.Path, Dir: l.Dir})
	}
	return out, nil
}

// unmentionable are the paths a mention never reads nor offers, as the
// file tools never read them: Foya's database and own files, and what the
// sandbox hides (credential stores, the data folder). Their text must not
// reach the model because a session's folder holds them (the home folder).
func (k *Kernel) unmentionable() []string {
	fenced := k.foyaFiles()
	if k.shell != nil {
		fenced = append(fenced, k.shell.Hidden()...)
	}
	return fenced
}

// mentioned returns the text the files and folders a message mentions add
// to it, each under a heading (files.Mention), in the order given, each
// path once. A path that is gone is ErrInvalid naming it: the message is
// not sent and the user can drop the mention. Foya's own and hidden files
// are refused (unmentionable).
func (k *Kernel) mentioned(workdir string, paths []string) (string, error) {
	if len(paths) > MaxMentioned {
		return "", kindf(ErrInvalid, "%d files mentioned: mention at most %d in one message", len(paths), MaxMentioned)
	}
	var parts []string
	seen := map[string]bool{}
	fenced := k.unmentionable()
	for _, p := range paths {
		if seen[p] {
			continue
		}
		seen[p] = true
		if real, err := filepath.EvalSymlinks(filepath.Join(workdir, filepath.FromSlash(p))); err == nil && fspath.WithinAny(fenced, real) {
			return "", kindf(ErrInvalid, "@%s is one of Foya's own or hidden files (its database, keys, a credential store): it is not sent to the model; remove the mention", p)
		}
		text, err := files.Mention(workdir, p)
		switch {
		case errors.Is(err, files.ErrNoFile):
			return "", kindf(ErrInvalid, "@%s is not in the session's folder any more (deleted or renamed?): remove the mention or restore the file, then send again", p)
		case errors.Is(err, files.ErrNoWorkdir):
			return "", kindf(ErrUnavailable, "the session's folder %s is gone or is not a folder: restore it to send files from it", workdir)
		case err != nil:
			return "", kindf(ErrInvalid, "@%s cannot be read: %v", p, err)
		}
		parts = append(parts, text)
	}
	return strings.Join(parts, "\n\n"), nil
}
