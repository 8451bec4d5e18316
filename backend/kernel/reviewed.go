package kernel

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"foya/backend/event"
	"foya/backend/llm"
	"foya/backend/store"
)

// MarkReviewed marks changes of a session as reviewed, or as not reviewed
// (see ReviewRequest). The marks and a change.reviewed event are stored in
// one transaction, through the engine's ordering point, so every window
// shows them and they outlast a restart. A reviewed change stays a change
// like any other: it can be reverted, and a later change of its file is
// a change of its own, not reviewed. A request that names no change, an
// unknown change or a change of another session marks nothing.
func (k *Kernel) MarkReviewed(ctx context.Context, req ReviewRequest) (ReviewResult, error) {
	verb := "mark as reviewed"
	if !req.Reviewed {
		verb = "mark as not reviewed"
	}
	res := ReviewResult{ChangeIDs: []string{}, Reviewed: req.Reviewed}
	switch {
	case req.SessionID == "":
		return res, kindf(ErrInvalid, "%s: name the session whose changes to mark", verb)
	case len(req.ChangeIDs) == 0 && req.Path == "":
		return res, kindf(ErrInvalid, "%s: no change given; name the changes, or a file of the session", verb)
	case len(req.ChangeIDs) > 0 && req.Path != "":
		return res, kindf(ErrInvalid, "%s: give the changes or a file, not both", verb)
	}
	if _, err := k.store.Session(ctx, req.SessionID); err != nil {
		return res, fmt.Errorf("%s: %w", verb, err)
	}
	all, err := k.store.FileChanges(ctx, req.SessionID)
	if err != nil {
		return res, err
	}
	ids, err := k.reviewSelection(ctx, verb, req, all)
	if err != nil {
		return res, err
	}
	var c llm.Commit
	for _, id := range ids {
		c.Reviews = append(c.Reviews, llm.ReviewMark{SessionID: req.SessionID, ChangeID: id, Reviewed: req.Reviewed})
	}
	res.ChangeIDs = ids
	res.ToReview = toReviewAfter(all, ids, req.Reviewed)
	c.Events = []llm.Event{event.ChangeReviewed(event.ChangeReviewedData{ChangeIDs: ids, Reviewed: req.Reviewed, ToReview: res.ToReview})}
	if _, err := k.eng.Commit(ctx, req.SessionID, c); err != nil {
		return res, fmt.Errorf("%s: nothing was marked: %w", verb, err)
	}
	return res, nil
}

// reviewSelection returns the IDs a request names, each once, in the
// session's order (all is the session's changes, oldest first).
func (k *Kernel) reviewSelection(ctx context.Context, verb string, req ReviewRequest, all []llm.FileChange) ([]string, error) {
	ids := []string{}
	if req.Path != "" {
		for _, c := range all {
			if c.Path == req.Path {
				ids = append(ids, c.ID)
			}
		}
		if len(ids) == 0 {
			return nil, kindf(ErrNotFound, "%s: the session has no change of %s; nothing was marked", verb, req.Path)
		}
		return ids, nil
	}
	for _, id := range req.ChangeIDs {
		if id == "" {
			return nil, kindf(ErrInvalid, "%s: a change ID is empty; nothing was marked", verb)
		}
		if slices.ContainsFunc(all, func(c llm.FileChange) bool { return c.ID == id }) {
			continue
		}
		other, err := k.store.FileChange(ctx, id)
		switch {
		case errors.Is(err, store.ErrNotFound):
			return nil, kindf(ErrNotFound, "%s: there is no change %s; nothing was marked (list the session's changes again)", verb, id)
		case err != nil:
			return nil, err
		}
		return nil, kindf(ErrInvalid, "%s: change %s belongs to another session (%s), not %s; nothing was marked",
			verb, id, other.SessionID, req.SessionID)
	}
	for _, c := range all {
		if slices.Contains(req.ChangeIDs, c.ID) {
			ids = append(ids, c.ID)
		}
	}
	return ids, nil
}

// toReviewAfter counts the changes of all that wait for review once ids
// are marked reviewed (or not): as the store's ToReview counts them.
func toReviewAfter(all []llm.FileChange, ids []string, reviewed bool) int {
	n := 0
	for _, c := range all {
		r := c.Reviewed
		if slices.Contains(ids, c.ID) {
			r = reviewed
		}
		if c.RevertOf == "" && !r {
			n++
		}
	}
	return n
}
