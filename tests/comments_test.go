package tests

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"foya/backend/kernel"
	pt "foya/backend/provider/providertest"
	"foya/backend/testwait"
)

// rows is "row 1\n" to "row n\n".
func rows(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "row %d\n", i)
	}
	return b.String()
}

// editArgs are the arguments of an edit of path replacing each old with
// its new, in order.
func editArgs(path string, pairs ...string) string {
	var edits []map[string]string
	for i := 0; i+1 < len(pairs); i += 2 {
		edits = append(edits, map[string]string{"old_string": pairs[i], "new_string": pairs[i+1]})
	}
	return jsonArgs(map[string]any{"path": path, "edits": edits})
}

// spec: W4, F2
// A review comment is kept by the kernel: added on lines of a change's
// after side with those lines quoted, listed, edited, listed the same by a
// kernel opened again, and removed. Bad input (empty or too long text, an
// unknown change, lines outside the change) gets an error that says what
// to do, and keeps nothing.
func TestCommentStore(t *testing.T) {
	h := newHarness(t, nil,
		pt.Calls(call("r", "read", `{"path":"notes.txt"}`)),
		pt.Calls(call("e", "edit", editArgs("notes.txt", "row 2\n", "ROW 2\n"))),
		pt.Say("done"))
	ctx := context.Background()
	writeFile(t, filepath.Join(h.dir, "notes.txt"), rows(20), 0o644)
	sess := h.session("auto")
	h.runIn(ctx, sess.ID, "edit")
	edit := h.firstChange(ctx, sess.ID)

	c, err := h.k.AddComment(ctx, kernel.NewComment{ChangeID: edit.ID, StartLine: 2, EndLine: 3, Text: "  keep it lower case\n"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Text != "keep it lower case" || c.Quote != "ROW 2\nrow 3\n" || c.State != kernel.CommentOpen || c.Sent || c.Moved ||
		c.Path != edit.Path || c.ChangeID != edit.ID || c.SessionID != sess.ID {
		t.Fatalf("added comment = %+v; want the text trimmed, lines 2-3 quoted, open, not moved", c)
	}
	list := func(step string, want int) []kernel.Comment {
		t.Helper()
		got, err := h.k.Comments(ctx, sess.ID)
		if err != nil || len(got) != want {
			t.Fatalf("%s: Comments = %+v, %v; want %d", step, got, err, want)
		}
		return got
	}
	if got := list("after adding", 1)[0]; got.ID != c.ID || got.Quote != c.Quote || got.StartLine != 2 || got.EndLine != 3 {
		t.Fatalf("listed %+v; want %+v", got, c)
	}
	if _, err := h.k.EditComment(ctx, c.ID, "make it Title Case"); err != nil {
		t.Fatal(err)
	}

	long := strings.Repeat("x", kernel.MaxCommentText+1)
	for _, tc := range []struct {
		name string
		nc   kernel.NewComment
		kind error
		says string
	}{
		{"empty text", kernel.NewComment{ChangeID: edit.ID, StartLine: 1, EndLine: 1, Text: " \n\t"}, kernel.ErrInvalid, "the comment is empty"},
		{"text too long", kernel.NewComment{ChangeID: edit.ID, StartLine: 1, EndLine: 1, Text: long}, kernel.ErrInvalid, "more than the 10000"},
		{"unknown change", kernel.NewComment{ChangeID: "chg_nope", StartLine: 1, EndLine: 1, Text: "x"}, kernel.ErrNotFound, "does not exist"},
		{"no change", kernel.NewComment{StartLine: 1, EndLine: 1, Text: "x"}, kernel.ErrInvalid, "no change given"},
		{"line 0", kernel.NewComment{ChangeID: edit.ID, StartLine: 0, EndLine: 1, Text: "x"}, kernel.ErrInvalid, "outside the change"},
		{"past the end", kernel.NewComment{ChangeID: edit.ID, StartLine: 20, EndLine: 21, Text: "x"}, kernel.ErrInvalid, "has lines 1 to 20"},
		{"backwards", kernel.NewComment{ChangeID: edit.ID, StartLine: 5, EndLine: 4, Text: "x"}, kernel.ErrInvalid, "outside the change"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := h.k.AddComment(ctx, tc.nc)
			if !errors.Is(err, tc.kind) || !strings.Contains(err.Error(), tc.says) {
				t.Errorf("AddComment(%s) = %v; want %v saying %q", tc.name, err, tc.kind, tc.says)
			}
		})
	}
	if _, err := h.k.EditComment(ctx, c.ID, ""); !errors.Is(err, kernel.ErrInvalid) {
		t.Errorf("EditComment to empty = %v; want ErrInvalid", err)
	}
	if _, err := h.k.EditComment(ctx, "cmt_nope", "x"); !errors.Is(err, kernel.ErrNotFound) {
		t.Errorf("EditComment of an unknown comment = %v; want ErrNotFound", err)
	}

	// Kept in the database: a kernel opened again lists the same.
	h.k.Close()
	h.open(nil)
	got := list("after opening again", 1)[0]
	if got.ID != c.ID || got.Text != "make it Title Case" || got.Quote != "ROW 2\nrow 3\n" || got.State != kernel.CommentOpen ||
		!got.CreatedAt.Equal(c.CreatedAt) {
		t.Fatalf("after opening again: %+v; want the edited comment", got)
	}
	if err := h.k.RemoveComment(ctx, c.ID); err != nil {
		t.Fatal(err)
	}
	list("after removing", 0)
	if err := h.k.RemoveComment(ctx, c.ID); !errors.Is(err, kernel.ErrNotFound) {
		t.Errorf("removing twice = %v; want ErrNotFound", err)
	}
}

// spec: W4, F2
// A comment is addressed when a change made after it touches its lines,
// followed through the file's later edits: a later turn rewrites line 2
// and inserts a line below line 7, so the comment on line 2 is addressed
// (by that change) and those on lines 10 and 19 are not, but their lines
// moved down by one. (Lines added right beside a comment's lines touch
// them: "add a check after this" is answered so.) A comment made on the first change after
// the second one rewrote its lines is not addressed: its lines changed
// before it was made, and it says so, with the current lines. An edit
// outside Foya shows too. A kernel opened again works out the same.
func TestCommentAddressed(t *testing.T) {
	h := newHarness(t, nil,
		pt.Calls(call("r", "read", `{"path":"notes.txt"}`)),
		pt.Calls(call("e", "edit", editArgs("notes.txt", "row 2\n", "ROW 2\n", "row 19\n", "ROW 19\n"))),
		pt.Say("done"),
		pt.Calls(call("e2", "edit", editArgs("notes.txt", "ROW 2\n", "Row 2\n", "row 7\n", "row 7\nrow 7.5\n"))),
		pt.Say("done"))
	ctx := context.Background()
	notes := filepath.Join(h.dir, "notes.txt")
	writeFile(t, notes, rows(20), 0o644)
	sess := h.session("auto")
	h.runIn(ctx, sess.ID, "edit")
	first := h.firstChange(ctx, sess.ID)
	add := func(line int, text string) kernel.Comment {
		t.Helper()
		c, err := h.k.AddComment(ctx, kernel.NewComment{ChangeID: first.ID, StartLine: line, EndLine: line, Text: text})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	on2, on10, on19 := add(2, "lower case"), add(10, "fine"), add(19, "lower case too")
	h.runIn(ctx, sess.ID, "again")
	changes, err := h.k.Changes(ctx, sess.ID)
	if err != nil || len(changes) != 2 {
		t.Fatalf("changes %v %v; want 2", changes, err)
	}
	second := changes[1]
	late := add(2, "said after the second change")

	type want struct {
		state          kernel.CommentState
		by             string
		moved          bool
		start, end     int
		current        string
		currentUnknown bool
	}
	check := func(step string, wants map[string]want) {
		t.Helper()
		list, err := h.k.Comments(ctx, sess.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range list {
			w, ok := wants[c.ID]
			if !ok {
				continue
			}
			if c.State != w.state || c.AddressedBy != w.by || c.Moved != w.moved {
				t.Errorf("%s: comment %q is %s by %q, moved %v; want %s by %q, moved %v", step, c.Text, c.State, c.AddressedBy, c.Moved, w.state, w.by, w.moved)
			}
			if w.moved && !w.currentUnknown && (c.CurrentStart != w.start || c.CurrentEnd != w.end || c.Current != w.current) {
				t.Errorf("%s: comment %q now on lines %d-%d %q; want %d-%d %q", step, c.Text, c.CurrentStart, c.CurrentEnd, c.Current, w.start, w.end, w.current)
			}
		}
	}
	wants := map[string]want{
		on2.ID:  {state: kernel.CommentAddressed, by: second.ID, moved: true, currentUnknown: true},
		on10.ID: {state: kernel.CommentOpen, moved: true, start: 11, end: 11, current: "row 10\n"},
		on19.ID: {state: kernel.CommentOpen, moved: true, start: 20, end: 20, current: "ROW 19\n"},
		late.ID: {state: kernel.CommentOpen, moved: true, start: 2, end: 2, current: "Row 2\n"},
	}
	check("after the second turn", wants)
	if late.Quote != "ROW 2\n" {
		t.Errorf("the late comment quotes %q; want the first change's line 2", late.Quote)
	}

	// An edit outside Foya: line 20 (the comment on 19) is rewritten.
	writeFile(t, notes, strings.Replace(readFile(t, notes), "ROW 19\n", "row nineteen\n", 1), 0o644)
	wants[on19.ID] = want{state: kernel.CommentOpen, moved: true, start: 20, end: 20, current: "row nineteen\n"}
	check("after an outside edit", wants)

	h.k.Close()
	h.open(nil)
	check("after opening again", wants)
}

// spec: W4, F2
// "Send to the agent" starts the next turn with the comments as the user's
// message: for each, the file, the lines, the lines quoted and the
// comment, the ones whose lines changed since sent with the current lines.
// They are then sent (with the run), and not sent twice. While a run is
// going nothing is sent and the error says to wait or stop the run.
func TestSendComments(t *testing.T) {
	hold := make(chan struct{})
	h := newHarness(t, nil,
		pt.Calls(call("ra", "read", `{"path":"a.txt"}`), call("rb", "read", `{"path":"src/b.go"}`)),
		pt.Calls(call("ea", "edit", editArgs("a.txt", "row 3\n", "ROW 3\n")), call("eb", "edit", editArgs("src/b.go", "row 1\n", "ROW 1\n"))),
		pt.Say("done"),
		pt.Say("I will act on your comments."),
		pt.Turn{Text: "working", Hold: hold})
	ctx := context.Background()
	writeFile(t, filepath.Join(h.dir, "a.txt"), rows(6), 0o644)
	writeFile(t, filepath.Join(h.dir, "src", "b.go"), "row 1\nhas ``` in it\n", 0o644)
	sess := h.session("auto")
	h.runIn(ctx, sess.ID, "edit both")
	changes, err := h.k.Changes(ctx, sess.ID)
	if err != nil || len(changes) != 2 {
		t.Fatalf("changes %v %v; want 2", changes, err)
	}
	byPath := map[string]kernel.Change{}
	for _, c := range changes {
		byPath[filepath.Base(c.Path)] = c
	}
	for _, nc := range []kernel.NewComment{
		{ChangeID: byPath["a.txt"].ID, StartLine: 3, EndLine: 4, Text: "Keep row 3 lower case."},
		{ChangeID: byPath["b.go"].ID, StartLine: 1, EndLine: 2, Text: "Why upper case?\nExplain."},
	} {
		if _, err := h.k.AddComment(ctx, nc); err != nil {
			t.Fatal(err)
		}
	}
	// The file changed outside Foya since: the comment on b.go goes with its current lines.
	writeFile(t, filepath.Join(h.dir, "src", "b.go"), "ROW 1 (edited)\nhas ``` in it\n", 0o644)

	want := "Review comments on your changes (act on each):\n" +
		"\n1. a.txt lines 3-4:\n```\nROW 3\nrow 4\n```\nKeep row 3 lower case.\n" +
		"\n2. src/b.go lines 1-2 (the lines moved or changed since the comment was made on lines 1-2; these are the file's current lines):\n" +
		"````\nROW 1 (edited)\nhas ``` in it\n````\nWhy upper case?\nExplain.\n"
	prompt, ids, err := h.k.CommentsPrompt(ctx, sess.ID)
	if err != nil || prompt != want || len(ids) != 2 {
		t.Fatalf("CommentsPrompt =\n%s\n%v %v; want\n%s", prompt, ids, err, want)
	}
	run, err := h.k.SendComments(ctx, kernel.RunOptions{SessionID: sess.ID, Model: h.model()})
	if err != nil {
		t.Fatal(err)
	}
	if run.Prompt != want {
		t.Errorf("the run's prompt =\n%s\nwant\n%s", run.Prompt, want)
	}
	reqs := h.srv.Requests()
	msgs := reqs[len(reqs)-1].Messages
	if last := msgs[len(msgs)-1]; last.Role != "user" || last.Content != want {
		t.Errorf("the model's last message is %s %q; want the user's review %q", last.Role, last.Content, want)
	}
	list, err := h.k.Comments(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range list {
		if c.State != kernel.CommentSent || !c.Sent || c.SentRun != run.ID {
			t.Errorf("comment %q after sending: %s, sent %v in %q; want sent in %s", c.Text, c.State, c.Sent, c.SentRun, run.ID)
		}
	}
	if _, err := h.k.SendComments(ctx, kernel.RunOptions{SessionID: sess.ID, Model: h.model()}); !errors.Is(err, kernel.ErrInvalid) ||
		!strings.Contains(err.Error(), "no comments to send") {
		t.Errorf("sending again = %v; want ErrInvalid: no comments to send", err)
	}

	// While a run is going: refused, nothing marked sent.
	c, err := h.k.AddComment(ctx, kernel.NewComment{ChangeID: byPath["a.txt"].ID, StartLine: 1, EndLine: 1, Text: "one more"})
	if err != nil {
		t.Fatal(err)
	}
	ended := make(chan error, 1)
	go func() {
		_, err := h.k.Run(ctx, kernel.RunOptions{SessionID: sess.ID, Prompt: "go on", Model: h.model()})
		ended <- err
	}()
	testwait.Until(t, "the held run's request", func() bool { return len(h.srv.Requests()) == len(reqs)+1 })
	_, err = h.k.SendComments(ctx, kernel.RunOptions{SessionID: sess.ID, Model: h.model()})
	if !errors.Is(err, kernel.ErrBusy) || !strings.Contains(err.Error(), "wait for the run to end or stop it") {
		t.Errorf("sending during a run = %v; want ErrBusy saying to wait or stop the run", err)
	}
	close(hold)
	if err := testwait.Receive(t, ended, "the held run to end"); err != nil {
		t.Fatal(err)
	}
	list, _ = h.k.Comments(ctx, sess.ID)
	for _, x := range list {
		if x.ID == c.ID && (x.Sent || x.State != kernel.CommentOpen) {
			t.Errorf("the comment refused during a run is %s, sent %v; want open", x.State, x.Sent)
		}
	}
}

// spec: A1, F2
// The lines a comment is sent with are read as the file tools read: a
// file the comment is on that became a link (to a file outside the
// workspace), or whose folder became one, is not followed, so nothing
// outside the workspace reaches the model through a comment.
func TestCommentLinesStayInTheWorkspace(t *testing.T) {
	h := newHarness(t, nil,
		pt.Calls(call("r", "read", `{"path":"src/notes.txt"}`)),
		pt.Calls(call("e", "edit", editArgs("src/notes.txt", "row 2\n", "ROW 2\n"))),
		pt.Say("done"))
	ctx := context.Background()
	src := filepath.Join(h.dir, "src")
	writeFile(t, filepath.Join(src, "notes.txt"), rows(4), 0o644)
	outside := t.TempDir()
	writeFile(t, filepath.Join(outside, "notes.txt"), "row 1\nSECRET\n", 0o644)
	sess := h.session("auto")
	h.runIn(ctx, sess.ID, "edit")
	edit := h.firstChange(ctx, sess.ID)
	if _, err := h.k.AddComment(ctx, kernel.NewComment{ChangeID: edit.ID, StartLine: 2, EndLine: 2, Text: "lower case"}); err != nil {
		t.Fatal(err)
	}
	for _, step := range []struct {
		name string
		swap func()
	}{
		{"the file is a link", func() {
			os.Remove(filepath.Join(src, "notes.txt"))
			if err := os.Symlink(filepath.Join(outside, "notes.txt"), filepath.Join(src, "notes.txt")); err != nil {
				t.Fatal(err)
			}
		}},
		{"its folder is a link", func() {
			os.RemoveAll(src)
			if err := os.Symlink(outside, src); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		step.swap()
		list, err := h.k.Comments(ctx, sess.ID)
		if err != nil || len(list) != 1 {
			t.Fatalf("%s: Comments = %v, %v", step.name, list, err)
		}
		prompt, _, err := h.k.CommentsPrompt(ctx, sess.ID)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(list[0].Current, "SECRET") || strings.Contains(prompt, "SECRET") {
			t.Errorf("%s: the comment reads through the link: current %q, prompt %q", step.name, list[0].Current, prompt)
		}
		if !strings.Contains(prompt, "```\nROW 2\n```\nlower case\n") {
			t.Errorf("%s: the prompt = %q; want the lines quoted when the comment was made", step.name, prompt)
		}
	}
}
