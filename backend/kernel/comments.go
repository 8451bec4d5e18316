package kernel

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"foya/backend/engine"
	"foya/backend/fspath"
	"foya/backend/llm"
	"foya/backend/store"
	"foya/backend/tools/files"
)

// AddComment keeps a review comment on lines of a change's after side,
// quoting them. It fails with ErrInvalid for empty or too long text, a
// change with no text lines after it, or lines outside the change, and
// with ErrNotFound for an unknown change; nothing is kept then.
func (k *Kernel) AddComment(ctx context.Context, nc NewComment) (Comment, error) {
	text, err := commentText(nc.Text)
	if err != nil {
		return Comment{}, err
	}
	if strings.TrimSpace(nc.ChangeID) == "" {
		return Comment{}, kindf(ErrInvalid, "comment: no change given: comment on a change the review lists")
	}
	c, err := k.store.FileChange(ctx, nc.ChangeID)
	if errors.Is(err, store.ErrNotFound) {
		return Comment{}, kindf(ErrNotFound, "comment: change %s does not exist (its session may have been deleted): comment on a change the review lists", nc.ChangeID)
	}
	if err != nil {
		return Comment{}, err
	}
	lines, err := k.afterLines(ctx, c)
	if err != nil {
		return Comment{}, err
	}
	if nc.StartLine < 1 || nc.EndLine < nc.StartLine || nc.EndLine > len(lines) {
		return Comment{}, kindf(ErrInvalid, "comment: lines %d to %d are outside the change: %s has lines 1 to %d after it; pick lines it has",
			nc.StartLine, nc.EndLine, c.Path, len(lines))
	}
	all, err := k.store.FileChanges(ctx, c.SessionID)
	if err != nil {
		return Comment{}, err
	}
	sess, err := k.store.Session(ctx, c.SessionID)
	if err != nil {
		return Comment{}, err
	}
	now := time.Now()
	sc := store.Comment{ID: engine.NewID("cmt"), SessionID: c.SessionID, ChangeID: c.ID, Path: c.Path,
		StartLine: nc.StartLine, EndLine: nc.EndLine, Quote: strings.Join(lines[nc.StartLine-1:nc.EndLine], ""),
		Text: text, SeenChange: all[len(all)-1].ID, CreatedAt: now, UpdatedAt: now}
	if err := k.store.PutComment(ctx, sc); err != nil {
		return Comment{}, err
	}
	return commentOf(sc, all, k.fileLines(sess.Workdir)), nil
}

// EditComment replaces a comment's text (checked as AddComment checks it).
func (k *Kernel) EditComment(ctx context.Context, id, text string) (Comment, error) {
	text, err := commentText(text)
	if err != nil {
		return Comment{}, err
	}
	if err := k.store.SetCommentText(ctx, id, text, time.Now()); err != nil {
		return Comment{}, err
	}
	sc, err := k.store.Comment(ctx, id)
	if err != nil {
		return Comment{}, err
	}
	sess, err := k.store.Session(ctx, sc.SessionID)
	if err != nil {
		return Comment{}, err
	}
	all, err := k.store.FileChanges(ctx, sc.SessionID)
	if err != nil {
		return Comment{}, err
	}
	return commentOf(sc, all, k.fileLines(sess.Workdir)), nil
}

// RemoveComment removes a comment.
func (k *Kernel) RemoveComment(ctx context.Context, id string) error {
	return k.store.DeleteComment(ctx, id)
}

// Comments returns a session's review comments, oldest first, each with
// its state worked out from the session's changes and the file on disk.
func (k *Kernel) Comments(ctx context.Context, sessionID string) ([]Comment, error) {
	sess, err := k.store.Session(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	list, err := k.store.Comments(ctx, sessionID)
	if err != nil || len(list) == 0 {
		return []Comment{}, err
	}
	all, err := k.store.FileChanges(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	read := k.fileLines(sess.Workdir)
	return mapSlice(list, func(sc store.Comment) Comment { return commentOf(sc, all, read) }), nil
}

// CommentsPrompt returns the prompt that sends a session's unsent
// comments to the agent, and their IDs. It fails with ErrInvalid when
// there are none.
func (k *Kernel) CommentsPrompt(ctx context.Context, sessionID string) (string, []string, error) {
	sess, err := k.store.Session(ctx, sessionID)
	if err != nil {
		return "", nil, err
	}
	list, err := k.Comments(ctx, sessionID)
	if err != nil {
		return "", nil, err
	}
	list = slices.DeleteFunc(list, func(c Comment) bool { return c.Sent })
	if len(list) == 0 {
		return "", nil, kindf(ErrInvalid, "no comments to send: add a comment on a line or hunk of a change first")
	}
	return commentsPrompt(list, sess.Workdir), mapSlice(list, func(c Comment) string { return c.ID }), nil
}

// SendComments starts the session's next turn with its unsent comments as
// the prompt (CommentsPrompt; o.Prompt, when given, follows them) and
// marks them sent once the run is stored. It fails, sending nothing, while
// the session has a run going.
func (k *Kernel) SendComments(ctx context.Context, o RunOptions) (Run, error) {
	prompt, ids, err := k.CommentsPrompt(ctx, o.SessionID)
	if err != nil {
		return Run{}, err
	}
	if strings.TrimSpace(o.Prompt) != "" {
		prompt += "\n" + o.Prompt
	}
	o.Prompt = prompt
	var markErr error
	started := o.Started
	o.Started = func(runID string) {
		// The run is stored: the comments are on their way whatever it
		// does next.
		markErr = k.store.MarkCommentsSent(ctx, ids, runID, time.Now())
		if started != nil {
			started(runID)
		}
	}
	run, err := k.Run(ctx, o)
	if errors.Is(err, ErrBusy) {
		return run, fmt.Errorf("the comments were not sent: %w; wait for the run to end or stop it, then send them again (they are kept)", err)
	}
	if markErr != nil {
		markErr = fmt.Errorf("the comments were sent but could not be marked sent: %w", markErr)
	}
	return run, errors.Join(err, markErr)
}

// commentText checks a comment's text and returns it without the blank
// lines around it.
func commentText(text string) (string, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return "", kindf(ErrInvalid, "the comment is empty: write what the agent should do about these lines")
	}
	if n := utf8.RuneCountInString(text); n > MaxCommentText {
		return "", kindf(ErrInvalid, "the comment is %d characters long, more than the %d a comment may have: shorten it or split it in several", n, MaxCommentText)
	}
	return text, nil
}

// afterLines returns the lines of a change's after side, each with its
// line ending.
func (k *Kernel) afterLines(ctx context.Context, c llm.FileChange) ([]string, error) {
	switch {
	case c.IsDir:
		return nil, kindf(ErrInvalid, "comment: %s is a folder: comment on the changes of the files in it", c.Path)
	case !c.ExistsAfter:
		return nil, kindf(ErrInvalid, "comment: the change deleted %s, so it has no lines after it: comment on a change that wrote it", c.Path)
	case c.Binary:
		return nil, kindf(ErrInvalid, "comment: %s is not text: there are no lines to comment on", c.Path)
	}
	b, err := k.store.Blob(ctx, c.SHAAfter)
	if errors.Is(err, store.ErrNotFound) || (err == nil && (len(b) > MaxShownContent || !utf8.Valid(b))) {
		return nil, kindf(ErrInvalid, "comment: Foya kept no text of %s after this change (too large, or not text): its lines cannot be quoted", c.Path)
	}
	if err != nil {
		return nil, err
	}
	return splitLines(string(b)), nil
}

// lineReader returns lines start to end of the file at path as it is now.
type lineReader func(path string, start, end int) (string, error)

// commentOf is a kept comment with its state, from the session's changes
// (oldest first) and the file as read reads it now.
func commentOf(sc store.Comment, all []llm.FileChange, read lineReader) Comment {
	c := Comment{ID: sc.ID, SessionID: sc.SessionID, ChangeID: sc.ChangeID, Path: sc.Path, StartLine: sc.StartLine,
		EndLine: sc.EndLine, Quote: sc.Quote, Text: sc.Text, State: CommentOpen, Sent: !sc.SentAt.IsZero(), SentRun: sc.SentRun,
		CreatedAt: sc.CreatedAt, UpdatedAt: sc.UpdatedAt}
	if c.Sent {
		c.State = CommentSent
	}
	on := slices.IndexFunc(all, func(x llm.FileChange) bool { return x.ID == sc.ChangeID })
	seen := slices.IndexFunc(all, func(x llm.FileChange) bool { return x.ID == sc.SeenChange })
	if on < 0 {
		return c
	}
	seen = max(seen, on)
	start, end := sc.StartLine, sc.EndLine
	for j := on + 1; j < len(all); j++ {
		d := all[j]
		if d.Path != sc.Path {
			continue
		}
		touched, s, e := follow(d, start, end)
		if touched && j > seen && c.AddressedBy == "" {
			c.State, c.AddressedBy = CommentAddressed, d.ID
		}
		if touched || s != start || e != end {
			c.Moved = true
		}
		start, end = s, e
		if !d.ExistsAfter {
			break
		}
	}
	c.CurrentStart, c.CurrentEnd = start, end
	switch cur, err := read(sc.Path, start, end); {
	case err == nil:
		c.Current = cur
		c.Moved = c.Moved || cur != sc.Quote
	case errors.Is(err, os.ErrNotExist):
		// Gone since (outside Foya, or by a change that removed it).
		c.Moved, c.CurrentEnd, c.Current = true, start-1, ""
	}
	if !c.Moved {
		c.CurrentStart, c.CurrentEnd, c.Current = 0, 0, ""
	}
	return c
}

// follow maps the lines start to end of a file through a later change d of
// it: whether d touched them (changed a line of them, or added lines
// beside them), and where they are after it. A change whose lines are not
// known (a deletion, a new file, binary or too large contents) touches
// them all.
func follow(d llm.FileChange, start, end int) (touched bool, s, e int) {
	if d.ExistedBefore && d.ExistsAfter && d.SHABefore == d.SHAAfter && d.SHAAfter != "" {
		return false, start, end // the mode alone changed
	}
	if d.IsDir || d.Binary || d.Diff == "" || !d.ExistedBefore || !d.ExistsAfter {
		return true, start, end
	}
	edits, err := files.Edits(d.Diff)
	if err != nil {
		return true, start, end
	}
	for _, ed := range edits {
		if ed.OldCount > 0 {
			touched = touched || (ed.OldStart <= end && ed.OldStart+ed.OldCount-1 >= start)
		} else {
			touched = touched || (ed.OldStart >= start && ed.OldStart <= end+1)
		}
	}
	return touched, mapLine(edits, start, false), mapLine(edits, end, true)
}

// mapLine returns where old line n is after edits; a line the edits
// replaced maps to the first line of what replaced it (the last, for the
// end of a range), so a removed range ends before it starts.
func mapLine(edits []files.Edit, n int, isEnd bool) int {
	shift := 0
	for _, ed := range edits {
		switch {
		case ed.OldCount == 0 && ed.OldStart <= n:
			shift += ed.NewCount
		case ed.OldCount == 0:
			return n + shift
		case ed.OldStart+ed.OldCount-1 < n:
			shift += ed.NewCount - ed.OldCount
		case ed.OldStart <= n:
			if isEnd {
				return ed.NewStart + ed.NewCount - 1
			}
			return ed.NewStart
		default:
			return n + shift
		}
	}
	return n + shift
}

// errNotText means a file's lines cannot be quoted: too large, not text,
// or not a file the agent may read.
var errNotText = errors.New("not text, or too large")

// fileLines returns a lineReader of files in the workspace workdir. The
// lines go to the model in a prompt, so it reads no more than the file
// tools may: a regular file beneath workdir (os.Root keeps links from
// leading out of it), never a link, never Foya's database or what the
// sandbox hides. Anything else is errNotText: its lines are not known.
func (k *Kernel) fileLines(workdir string) lineReader {
	return func(path string, start, end int) (string, error) {
		wd := realDir(workdir)
		rel, ok := fspath.Rel(wd, path)
		if !ok {
			if rel, ok = fspath.Rel(workdir, path); !ok || rel == "." {
				return "", errNotText
			}
		}
		root, err := os.OpenRoot(wd)
		if err != nil {
			return "", err
		}
		defer root.Close()
		fi, err := root.Lstat(rel)
		if err != nil {
			return "", err
		}
		real, err := filepath.EvalSymlinks(filepath.Join(wd, rel))
		if err != nil {
			return "", err
		}
		fenced := k.databaseFiles()
		if k.shell != nil {
			fenced = append(fenced, k.shell.Hidden()...)
		}
		if !fi.Mode().IsRegular() || fspath.WithinAny(fenced, real) {
			return "", errNotText
		}
		f, err := root.Open(rel)
		if err != nil {
			return "", err
		}
		defer f.Close()
		if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
			return "", errNotText
		}
		b, err := io.ReadAll(io.LimitReader(f, MaxShownContent+1))
		if err != nil {
			return "", err
		}
		if len(b) > MaxShownContent || !utf8.Valid(b) {
			return "", errNotText
		}
		lines := splitLines(string(b))
		if end < start || start > len(lines) {
			return "", nil
		}
		return strings.Join(lines[max(start, 1)-1:min(end, len(lines))], ""), nil
	}
}

// splitLines splits s after each "\n"; a last line without one is kept.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	out := strings.SplitAfter(s, "\n")
	if out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}

// commentsPrompt is the user's message that sends comments to the agent:
// each with its file (relative to workdir when inside it), its lines, the
// lines quoted (the file's current ones when they moved or changed) and
// the comment.
func commentsPrompt(list []Comment, workdir string) string {
	var b strings.Builder
	b.WriteString("Review comments on your changes (act on each):\n")
	for i, c := range list {
		path := shownPath(c.Path, workdir)
		start, end, quote := c.StartLine, c.EndLine, c.Quote
		note := ""
		if c.Moved {
			start, end, quote = c.CurrentStart, c.CurrentEnd, c.Current
			note = fmt.Sprintf(" (the lines moved or changed since the comment was made on %s; these are the file's current lines)", lineRange(c.StartLine, c.EndLine))
		}
		if end < start {
			fmt.Fprintf(&b, "\n%d. %s %s (no longer in the file: they were removed since the comment was made):\n", i+1, path, lineRange(c.StartLine, c.EndLine))
			fence := fenceFor(c.Quote)
			fmt.Fprintf(&b, "%s\n%s%s\n", fence, withNewline(c.Quote), fence)
		} else {
			fmt.Fprintf(&b, "\n%d. %s %s%s:\n", i+1, path, lineRange(start, end), note)
			fence := fenceFor(quote)
			fmt.Fprintf(&b, "%s\n%s%s\n", fence, withNewline(quote), fence)
		}
		b.WriteString(c.Text + "\n")
	}
	return b.String()
}

// lineRange names lines start to end: "line 3", "lines 3-5".
func lineRange(start, end int) string {
	if start == end {
		return fmt.Sprintf("line %d", start)
	}
	return fmt.Sprintf("lines %d-%d", start, end)
}

// withNewline returns s ending with a line break.
func withNewline(s string) string {
	if s == "" || strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n"
}

// fenceFor returns a code fence longer than any run of backticks in s.
func fenceFor(s string) string {
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}

// shownPath is path relative to workdir when inside it (symbolic links in
// workdir resolved or not), else path.
func shownPath(path, workdir string) string {
	for _, wd := range []string{workdir, realDir(workdir)} {
		if rel, ok := fspath.Rel(wd, path); ok && rel != "." {
			return filepath.ToSlash(rel)
		}
	}
	return path
}

func realDir(dir string) string {
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		return real
	}
	return dir
}
