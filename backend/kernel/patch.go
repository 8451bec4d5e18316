package kernel

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode"

	"foya/backend/fspath"
	"foya/backend/llm"
	"foya/backend/store"
	"foya/backend/tools/files"
)

// SessionPatch returns a session's net change as one git-style patch (see
// SessionPatch): git apply, run on the session folder as it was before the
// session, makes its files what the session left. What cannot go in a
// patch (binary contents, folders deleted whole, kept copies that are gone,
// paths outside the folder, contents too large to compare) is named in the
// patch's leading comment and in Notes; it never fails the patch.
func (k *Kernel) SessionPatch(ctx context.Context, sessionID string) (SessionPatch, error) {
	sess, err := k.store.Session(ctx, sessionID)
	if err != nil {
		return SessionPatch{}, err
	}
	list, err := k.store.FileChanges(ctx, sessionID)
	if err != nil {
		return SessionPatch{}, err
	}
	out := SessionPatch{SessionID: sess.ID, Name: patchName(sess.Title, sess.ID), Notes: []string{}}
	var body strings.Builder
	nets := netChanges(list)
	for _, n := range nets {
		if n.first.IsDir && !n.first.ExistedBefore && n.last.ExistsAfter && holdsChange(nets, n.first.Path) {
			continue // git makes a file's folders; an empty one it cannot carry
		}
		text, note, err := k.patchOf(ctx, sess.Workdir, n)
		if err != nil {
			return SessionPatch{}, err
		}
		if note != "" {
			out.Notes = append(out.Notes, note)
		}
		if text != "" {
			body.WriteString(text)
			out.Files++
		}
	}
	var head strings.Builder
	fmt.Fprintf(&head, "# Foya session %s: %s\n# Folder: %s\n", sess.ID, oneLine(sess.Title), sess.Workdir)
	switch {
	case len(list) == 0:
		head.WriteString("# The session changed no files: this patch is empty.\n")
	case out.Files == 0:
		head.WriteString("# The session's changes add up to nothing: every file it touched ends as it began. This patch is empty.\n")
	default:
		fmt.Fprintf(&head, "# %d file(s). Apply with: git apply FILE (in the folder as it was before the session)\n", out.Files)
	}
	for _, n := range out.Notes {
		head.WriteString("# Note: " + n + "\n")
	}
	out.Text = head.String() + body.String()
	return out, nil
}

// netChange is one path's changes in a session, first to last.
type netChange struct{ first, last llm.FileChange }

// netChanges folds a session's changes (oldest first) into one per path,
// in the order paths were first changed.
func netChanges(list []llm.FileChange) []netChange {
	at := map[string]int{}
	var out []netChange
	for _, c := range list {
		if i, ok := at[c.Path]; ok {
			out[i].last = c
			continue
		}
		at[c.Path] = len(out)
		out = append(out, netChange{first: c, last: c})
	}
	return out
}

// holdsChange reports whether one of nets changes a path below dir.
func holdsChange(nets []netChange, dir string) bool {
	for _, n := range nets {
		if !n.first.IsDir && fspath.Within(dir, n.first.Path) {
			return true
		}
	}
	return false
}

// patchOf returns one path's part of the patch, or a note saying why it
// has none that git could apply (both may be set: a binary file).
func (k *Kernel) patchOf(ctx context.Context, workdir string, n netChange) (text, note string, err error) {
	f, l := n.first, n.last
	existed, exists := f.ExistedBefore, l.ExistsAfter
	if f.IsDir || l.IsDir {
		return "", dirNote(f, l), nil
	}
	if existed == exists && (!existed || f.SHABefore == l.SHAAfter && gitMode(f.ModeBefore) == gitMode(l.ModeAfter)) {
		return "", "", nil // ends as it began
	}
	oldName, newName := files.DiffNames(f.Path, workdir)
	if !strings.HasPrefix(oldName, "a/") {
		return "", fmt.Sprintf("%s is outside the session folder: left out", f.Path), nil
	}
	rel := strings.TrimPrefix(oldName, "a/")
	before, gone, err := k.side(ctx, existed, f.SHABefore)
	if err != nil {
		return "", "", err
	}
	if gone {
		return "", fmt.Sprintf("%s: Foya kept no copy of its content before the session (%s): left out", rel, orReason(f.NotRestorable)), nil
	}
	after, gone, err := k.side(ctx, exists, l.SHAAfter)
	if err != nil {
		return "", "", err
	}
	if gone {
		return "", fmt.Sprintf("%s: Foya kept no copy of its content after the session (%s): left out", rel, orReason(l.NotRestorable)), nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "diff --git %s %s\n", oldName, newName)
	switch {
	case !existed:
		fmt.Fprintf(&b, "new file mode %s\n", gitMode(l.ModeAfter))
	case !exists:
		fmt.Fprintf(&b, "deleted file mode %s\n", gitMode(f.ModeBefore))
	case gitMode(f.ModeBefore) != gitMode(l.ModeAfter) && f.ModeBefore != 0 && l.ModeAfter != 0:
		fmt.Fprintf(&b, "old mode %s\nnew mode %s\n", gitMode(f.ModeBefore), gitMode(l.ModeAfter))
	}
	d := files.Unified(oldName, newName, before, after, existed, exists)
	switch {
	case d.Binary:
		b.WriteString(d.Text)
		return b.String(), rel + ": binary contents: the patch says only that they differ, git apply cannot make them", nil
	case len(before)+len(after) > files.MaxDiff:
		return "", fmt.Sprintf("%s: too large to compare line by line (%s): left out", rel, files.Size(int64(len(before)+len(after)))), nil
	case d.Added+d.Removed > 0:
		b.WriteString(d.Text)
	}
	// An empty file created or deleted, or a mode changed alone: git's
	// own diff has the header lines only, and git apply wants no more.
	return b.String(), "", nil
}

// side returns one side's contents: nil when there was no file, gone when
// there was one but its kept copy is not in the store.
func (k *Kernel) side(ctx context.Context, exists bool, sha string) (data []byte, gone bool, err error) {
	if !exists {
		return nil, false, nil
	}
	if sha == "" {
		return nil, true, nil
	}
	data, err = k.store.Blob(ctx, sha)
	if errors.Is(err, store.ErrNotFound) {
		return nil, true, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("read the kept copy %s: %w", sha, err)
	}
	return data, false, nil
}

func dirNote(f, l llm.FileChange) string {
	switch {
	case !f.ExistedBefore && l.ExistsAfter:
		return fmt.Sprintf("folder %s was created empty: a patch cannot carry an empty folder", f.Path)
	case f.ExistedBefore && !l.ExistsAfter:
		return fmt.Sprintf("folder %s was deleted whole (to the trash): its files are not recorded one by one, so the patch does not delete them", f.Path)
	}
	return fmt.Sprintf("folder %s was deleted and restored: nothing to patch", f.Path)
}

func orReason(s string) string {
	if s == "" {
		return "its copy is gone from the store"
	}
	return s
}

// gitMode is the mode git records for a file with permission bits perm.
func gitMode(perm uint32) string {
	if perm&0o111 != 0 {
		return "100755"
	}
	return "100644"
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// patchName makes a session's title a file name: letters, digits, spaces,
// dots, dashes and underscores kept, anything else a dash, at most 80
// characters; the session's ID when nothing is left.
func patchName(title, id string) string {
	var b strings.Builder
	for _, r := range oneLine(title) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == ' ' || r == '-' || r == '_' || r == '.':
			b.WriteRune(r)
		default:
			b.WriteRune('-')
		}
	}
	name := strings.Trim(b.String(), " .-")
	if r := []rune(name); len(r) > 80 {
		name = strings.TrimRight(string(r[:80]), " .-")
	}
	if name == "" {
		name = "session-" + id
	}
	return name + ".patch"
}
