package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	pt "foya/backend/provider/providertest"
)

// TestBrowserReviewComments comments on two files a turn edited, in
// Chromium, controls found by role and name: a line of one ("Comment on
// line 2", Ctrl+Enter saves), a hunk of the other ("Comment on hunk 1",
// "Save comment"); the panel lists "Comments (2)"; "Send to the agent"
// starts the next turn. The scripted model's next request holds each
// comment with its path, its lines and the lines quoted, as the user's
// message, and the panel shows both comments sent.
//
// spec: W4, F2
func TestBrowserReviewComments(t *testing.T) {
	requireE2E(t)
	bin := buildFoya(t)

	rows := func(n int, upper int) string {
		var b strings.Builder
		for i := 1; i <= n; i++ {
			if i == upper {
				fmt.Fprintf(&b, "ROW %d\n", i)
			} else {
				fmt.Fprintf(&b, "row %d\n", i)
			}
		}
		return b.String()
	}
	model := pt.New(t,
		pt.Calls(pt.Call{Name: "read", Arguments: `{"path":"a.txt"}`}, pt.Call{Name: "read", Arguments: `{"path":"b.txt"}`}),
		pt.Calls(
			pt.Call{Name: "edit", Arguments: `{"path":"a.txt","edits":[{"old_string":"row 2\n","new_string":"ROW 2\n"}]}`},
			pt.Call{Name: "edit", Arguments: `{"path":"b.txt","edits":[{"old_string":"row 5\n","new_string":"ROW 5\n"}]}`},
		),
		pt.Say("Edited both files."),
		pt.Say("I will act on your review."),
	)
	srv := startServe(t, bin)
	srv.call(t, nil, "AddProvider", map[string]any{"name": "scripted", "baseUrl": model.URL, "model": "m"})
	project := t.TempDir()
	for name, n := range map[string]int{"a.txt": 6, "b.txt": 8} {
		if err := os.WriteFile(filepath.Join(project, name), []byte(rows(n, 0)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var sess struct{ ID string }
	srv.call(t, &sess, "CreateSession", map[string]any{"workdir": project, "approvalMode": "auto", "title": "Comment review"})
	var runID string
	srv.call(t, &runID, "Run", sess.ID, "Make row 2 of a.txt and row 5 of b.txt upper case")
	waitRunEnd(t, srv, sess.ID, runID)
	asked := len(model.Requests())

	shots := filepath.Join(repoRoot(t), "tests", "e2e", "out")
	runScript(t, "comments.mjs", map[string]string{"FOYA_URL": srv.url, "FOYA_SHOTS": shots})

	// The turn the comments started: its first request is the model's next.
	reqs := model.Requests()
	if len(reqs) <= asked {
		t.Fatalf("the model was asked %d times; want a request after the first turn's %d", len(reqs), asked)
	}
	msgs := reqs[asked].Messages
	last := msgs[len(msgs)-1]
	want := []string{
		"Review comments on your changes",
		"1. a.txt line 2:\n```\nROW 2\n```\nKeep row 2 lower case.\n",
		"2. b.txt lines 2-8:\n```\nrow 2\nrow 3\nrow 4\nROW 5\nrow 6\nrow 7\nrow 8\n```\nWhy upper case here?\n",
	}
	for _, w := range want {
		if last.Role != "user" || !strings.Contains(last.Content, w) {
			t.Errorf("the model's next request ends with %s %q; want the user's review holding %q", last.Role, last.Content, w)
		}
	}
	var comments []struct {
		Path, State string
		Sent        bool
	}
	deadline := time.Now().Add(time.Minute)
	for {
		srv.call(t, &comments, "Comments", sess.ID)
		if len(comments) == 2 && comments[0].Sent && comments[1].Sent || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	for _, c := range comments {
		if !c.Sent || c.State != "sent" {
			t.Errorf("comment on %s after sending: %s, sent %v; want sent", c.Path, c.State, c.Sent)
		}
	}
	srv.stop(t)
}
