package kernel

import (
	"context"
	"errors"
	"unicode/utf8"

	"foya/backend/store"
)

// MaxShownContent is the largest content ChangeContents hands out whole:
// past it a review shows the diff's hunks only.
const MaxShownContent = 1 << 20

// ChangeContents is a change's text before and after it, for a review that
// shows the whole file around the diff. A side is missing (Known false)
// when there was no file, it is a folder or not UTF-8 text, it was too
// large to keep or to show (MaxShownContent), or its kept copy is gone.
type ChangeContents struct {
	ChangeID    string `json:"changeId"`
	Before      string `json:"before"`
	BeforeKnown bool   `json:"beforeKnown"`
	After       string `json:"after"`
	AfterKnown  bool   `json:"afterKnown"`
}

// ChangeContents returns the text of a change's before and after sides
// (see ChangeContents).
func (k *Kernel) ChangeContents(ctx context.Context, id string) (ChangeContents, error) {
	c, err := k.store.FileChange(ctx, id)
	if err != nil {
		return ChangeContents{}, err
	}
	out := ChangeContents{ChangeID: c.ID}
	if c.IsDir || c.Binary {
		return out, nil
	}
	text := func(exists bool, sha string) (string, bool, error) {
		if !exists || sha == "" {
			return "", false, nil
		}
		b, err := k.store.Blob(ctx, sha)
		if errors.Is(err, store.ErrNotFound) {
			return "", false, nil
		}
		if err != nil {
			return "", false, err
		}
		if len(b) > MaxShownContent || !utf8.Valid(b) {
			return "", false, nil
		}
		return string(b), true, nil
	}
	if out.Before, out.BeforeKnown, err = text(c.ExistedBefore, c.SHABefore); err != nil {
		return ChangeContents{}, err
	}
	if out.After, out.AfterKnown, err = text(c.ExistsAfter, c.SHAAfter); err != nil {
		return ChangeContents{}, err
	}
	return out, nil
}
