package tests

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"foya/backend/event"
	"foya/backend/kernel"
	pt "foya/backend/provider/providertest"
)

// spec: F2, W4
// A person marks changes as reviewed, by change and by file, and as not
// reviewed: the marks are kept by the kernel, told by change.reviewed
// events (stored, with the count left to review), counted in the session
// list, and found again when the store is opened again. A change made
// after a review is a change of its own, not reviewed, and a reviewed
// change can still be reverted.
func TestMarkReviewed(t *testing.T) {
	privateTrash(t)
	h := newHarness(t, nil,
		pt.Calls(call("a", "write", `{"path":"a.txt","content":"a1\n"}`), call("b", "write", `{"path":"b.txt","content":"b1\n"}`)),
		pt.Say("turn one"),
		pt.Calls(call("a2", "write", `{"path":"a.txt","content":"a2\n"}`)),
		pt.Say("turn two"),
		// The revert marked a.txt as changed: the model reads it again.
		pt.Calls(call("r3", "read", `{"path":"a.txt"}`)),
		pt.Calls(call("a3", "write", `{"path":"a.txt","content":"a3\n"}`)),
		pt.Say("turn three"))
	ctx := context.Background()
	sess := h.session("auto")
	h.runIn(ctx, sess.ID, "one")
	h.runIn(ctx, sess.ID, "two")
	changes := mustChanges(t, h.k, sess.ID)
	if len(changes) != 3 {
		t.Fatalf("changes %+v; want a.txt, b.txt, a.txt", changes)
	}
	a1, b1, a2 := changes[0], changes[1], changes[2]
	wantToReview(t, h.k, sess.ID, 3)

	// One change.
	res, err := h.k.MarkReviewed(ctx, kernel.ReviewRequest{SessionID: sess.ID, ChangeIDs: []string{b1.ID, b1.ID}, Reviewed: true})
	if err != nil || !slices.Equal(res.ChangeIDs, []string{b1.ID}) || !res.Reviewed || res.ToReview != 2 {
		t.Fatalf("MarkReviewed(b.txt) = %+v, %v; want [%s] reviewed, 2 to review", res, err, b1.ID)
	}
	wantReviewed(t, h.k, sess.ID, map[string]bool{b1.ID: true})
	wantToReview(t, h.k, sess.ID, 2)

	// Every change of a file.
	res, err = h.k.MarkReviewed(ctx, kernel.ReviewRequest{SessionID: sess.ID, Path: a1.Path, Reviewed: true})
	if err != nil || !slices.Equal(res.ChangeIDs, []string{a1.ID, a2.ID}) || res.ToReview != 0 {
		t.Fatalf("MarkReviewed(path a.txt) = %+v, %v; want both changes of a.txt, 0 to review", res, err)
	}
	wantReviewed(t, h.k, sess.ID, map[string]bool{a1.ID: true, b1.ID: true, a2.ID: true})
	wantToReview(t, h.k, sess.ID, 0)

	// Not reviewed again.
	res, err = h.k.MarkReviewed(ctx, kernel.ReviewRequest{SessionID: sess.ID, ChangeIDs: []string{a1.ID}})
	if err != nil || res.Reviewed || res.ToReview != 1 {
		t.Fatalf("MarkReviewed(a1, not reviewed) = %+v, %v; want 1 to review", res, err)
	}
	wantReviewed(t, h.k, sess.ID, map[string]bool{b1.ID: true, a2.ID: true})

	// The events, stored in order with the marks.
	stored, err := h.k.Events(ctx, sess.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	var marks []string
	for _, ev := range stored {
		if ev.Type != event.TypeChangeReviewed {
			continue
		}
		var d event.ChangeReviewedData
		if err := json.Unmarshal(ev.Data, &d); err != nil {
			t.Fatal(err)
		}
		marks = append(marks, strings.Join(d.ChangeIDs, ",")+" "+map[bool]string{true: "reviewed", false: "not reviewed"}[d.Reviewed]+" "+strconv.Itoa(d.ToReview))
	}
	want := []string{b1.ID + " reviewed 2", a1.ID + "," + a2.ID + " reviewed 0", a1.ID + " not reviewed 1"}
	if !slices.Equal(marks, want) {
		t.Fatalf("stored change.reviewed events %q; want %q", marks, want)
	}

	// A reviewed change can be reverted; the revert does not wait for
	// review (a person made it).
	rv, err := h.k.Revert(ctx, kernel.RevertRequest{ChangeIDs: []string{a2.ID}})
	if err != nil || len(rv.Reverted) != 1 {
		t.Fatalf("revert of the reviewed change: %+v, %v", rv, err)
	}
	if got := readFile(t, filepath.Join(h.dir, "a.txt")); got != "a1\n" {
		t.Fatalf("a.txt after the revert = %q; want a1", got)
	}
	wantToReview(t, h.k, sess.ID, 1)

	// A later change of a reviewed file waits for review.
	h.runIn(ctx, sess.ID, "three")
	changes = mustChanges(t, h.k, sess.ID)
	a3 := changes[len(changes)-1]
	if a3.Path != a1.Path || a3.Op == "revert" || a3.Reviewed {
		t.Fatalf("the newest change %+v; want a write of a.txt, not reviewed", a3)
	}
	wantToReview(t, h.k, sess.ID, 2)

	// The marks outlast the kernel.
	h.k.Close()
	h.open(nil)
	wantReviewed(t, h.k, sess.ID, map[string]bool{b1.ID: true, a2.ID: true})
	wantToReview(t, h.k, sess.ID, 2)
}

// spec: W4
// Requests that cannot be carried out mark nothing and say why: no
// session, no change, both changes and a file, an unknown change, a
// change of another session, a file the session never changed.
func TestMarkReviewedBadInput(t *testing.T) {
	h := newHarness(t, nil,
		pt.Calls(call("a", "write", `{"path":"a.txt","content":"a\n"}`)), pt.Say("one"),
		pt.Calls(call("b", "write", `{"path":"b.txt","content":"b\n"}`)), pt.Say("two"))
	ctx := context.Background()
	mine, other := h.session("auto"), h.session("auto")
	h.runIn(ctx, mine.ID, "one")
	h.runIn(ctx, other.ID, "two")
	a := mustChanges(t, h.k, mine.ID)[0]
	b := mustChanges(t, h.k, other.ID)[0]
	before := len(h.eventList())
	for _, tc := range []struct {
		name string
		req  kernel.ReviewRequest
		kind error
		says string
	}{
		{"no session", kernel.ReviewRequest{ChangeIDs: []string{a.ID}, Reviewed: true}, kernel.ErrInvalid, "name the session"},
		{"empty list", kernel.ReviewRequest{SessionID: mine.ID, ChangeIDs: []string{}, Reviewed: true}, kernel.ErrInvalid, "no change given"},
		{"empty ID", kernel.ReviewRequest{SessionID: mine.ID, ChangeIDs: []string{a.ID, ""}, Reviewed: true}, kernel.ErrInvalid, "a change ID is empty"},
		{"both", kernel.ReviewRequest{SessionID: mine.ID, ChangeIDs: []string{a.ID}, Path: a.Path, Reviewed: true}, kernel.ErrInvalid, "not both"},
		{"unknown session", kernel.ReviewRequest{SessionID: "ses_nope", ChangeIDs: []string{a.ID}, Reviewed: true}, kernel.ErrNotFound, "ses_nope"},
		{"unknown change", kernel.ReviewRequest{SessionID: mine.ID, ChangeIDs: []string{a.ID, "chg_nope"}, Reviewed: true}, kernel.ErrNotFound, "there is no change chg_nope"},
		{"another session's change", kernel.ReviewRequest{SessionID: mine.ID, ChangeIDs: []string{a.ID, b.ID}, Reviewed: true}, kernel.ErrInvalid, "belongs to another session (" + other.ID + ")"},
		{"file never changed", kernel.ReviewRequest{SessionID: mine.ID, Path: b.Path, Reviewed: true}, kernel.ErrNotFound, "has no change of " + b.Path},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := h.k.MarkReviewed(ctx, tc.req)
			if !errors.Is(err, tc.kind) || !strings.Contains(err.Error(), tc.says) {
				t.Fatalf("MarkReviewed(%+v) = %v; want %v saying %q", tc.req, err, tc.kind, tc.says)
			}
			if strings.Contains(tc.name, "change") && !strings.Contains(err.Error(), "nothing was marked") {
				t.Fatalf("MarkReviewed(%+v) = %v; want it to say nothing was marked", tc.req, err)
			}
		})
	}
	wantReviewed(t, h.k, mine.ID, map[string]bool{})
	wantToReview(t, h.k, mine.ID, 1)
	for _, ev := range h.eventList()[before:] {
		if ev.Type == event.TypeChangeReviewed {
			t.Fatalf("a refused request published %s %s", ev.Type, ev.Data)
		}
	}
}

func mustChanges(t *testing.T, k *kernel.Kernel, sessionID string) []kernel.Change {
	t.Helper()
	list, err := k.Changes(context.Background(), sessionID)
	if err != nil {
		t.Fatal(err)
	}
	return list
}

// wantReviewed checks which of a session's changes are marked reviewed.
func wantReviewed(t *testing.T, k *kernel.Kernel, sessionID string, want map[string]bool) {
	t.Helper()
	for _, c := range mustChanges(t, k, sessionID) {
		if c.Reviewed != want[c.ID] {
			t.Errorf("change %s (%s %s) reviewed = %v; want %v", c.ID, c.Op, filepath.Base(c.Path), c.Reviewed, want[c.ID])
		}
	}
	if t.Failed() {
		t.FailNow()
	}
}

// wantToReview checks the session list's count of changes waiting for review.
func wantToReview(t *testing.T, k *kernel.Kernel, sessionID string, n int) {
	t.Helper()
	list, err := k.Sessions(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range list {
		if s.ID == sessionID {
			if s.ToReview != n {
				t.Fatalf("Sessions: %s has %d to review; want %d", sessionID, s.ToReview, n)
			}
			return
		}
	}
	t.Fatalf("Sessions does not list %s", sessionID)
}
