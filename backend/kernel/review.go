package kernel

import (
	"context"
	"errors"
	"unicode/utf8"

	"foya/backend/store"
)

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
