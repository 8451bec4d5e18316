package kernel

import (
	"slices"

	"foya/backend/llm"
	"foya/backend/tools/files"
)

// withRevertState fills in, on each of a session's changes (oldest
// first), what of it is undone now: its hunk count, the hunks reverted,
// the reverts in force and whether the whole change is undone. A revert
// is in force until it is itself undone in full; a revert of some hunks
// undoes those hunks, a revert of the whole change all of them. Reverts
// are always newer than what they revert, so walking newest first settles
// each revert before the change it reverts.
func withRevertState(list []llm.FileChange) {
	byID := make(map[string]int, len(list))
	for i, c := range list {
		byID[c.ID] = i
	}
	revertsOf := map[string][]int{}
	for i, c := range list {
		if c.RevertOf != "" {
			revertsOf[c.RevertOf] = append(revertsOf[c.RevertOf], i)
		}
	}
	for i := len(list) - 1; i >= 0; i-- {
		c := &list[i]
		c.Hunks = files.HunkCount(*c)
		c.RevertedHunks, c.Reverts, c.Reverted = nil, nil, false
		whole := false
		reverted := make([]bool, c.Hunks)
		for _, j := range revertsOf[c.ID] {
			r := list[j]
			if r.Reverted {
				continue
			}
			c.Reverts = append(c.Reverts, r.ID)
			if len(r.OfHunks) == 0 {
				whole = true
				continue
			}
			for _, n := range r.OfHunks {
				if n >= 1 && n <= c.Hunks {
					reverted[n-1] = true
				}
			}
		}
		for n, done := range reverted {
			if done || whole {
				c.RevertedHunks = append(c.RevertedHunks, n+1)
			}
		}
		c.Reverted = whole || (c.Hunks > 0 && len(c.RevertedHunks) == c.Hunks)
	}
}

// lineage returns the digests of the contents that c and the reverts
// descending from it (reverts of it, reverts of those, ...) left at its
// path: a file holding one of them holds only what Foya made of c, so a
// hunk of c, or of one of those reverts, may be reverted there.
func lineage(c llm.FileChange, all []llm.FileChange) []string {
	ids := map[string]bool{c.ID: true}
	out := []string{}
	if c.ExistsAfter && c.SHAAfter != "" {
		out = append(out, c.SHAAfter)
	}
	for _, r := range all {
		if r.RevertOf == "" || !ids[r.RevertOf] || r.Path != c.Path {
			continue
		}
		ids[r.ID] = true
		if r.ExistsAfter && r.SHAAfter != "" && !slices.Contains(out, r.SHAAfter) {
			out = append(out, r.SHAAfter)
		}
	}
	return out
}

// root returns the change a chain of reverts starts from: c itself when it
// is no revert.
func root(c llm.FileChange, all []llm.FileChange) llm.FileChange {
	for c.RevertOf != "" {
		i := slices.IndexFunc(all, func(x llm.FileChange) bool { return x.ID == c.RevertOf })
		if i < 0 {
			break
		}
		c = all[i]
	}
	return c
}

// stated returns c from all with its revert state filled in.
func stated(c llm.FileChange, all []llm.FileChange) llm.FileChange {
	list := slices.Clone(all)
	withRevertState(list)
	if i := slices.IndexFunc(list, func(x llm.FileChange) bool { return x.ID == c.ID }); i >= 0 {
		return list[i]
	}
	return c
}

// asNow returns a revert's selection of several changes (newest first) as
// the disk holds them now, where reverts made since stand between them and
// the disk: a change whose path Foya last wrote by reverting some of its
// hunks (or undoing such a revert) is expected to hold what that revert
// left, so reverting it restores its before content; a change reverted in
// full is left out, nothing of it being on disk. Only where the path's
// newest record descends from the change and is not itself selected:
// anything else that changed the path since is a conflict to show.
func asNow(sel, all []llm.FileChange) []llm.FileChange {
	list := slices.Clone(all)
	withRevertState(list)
	byID := make(map[string]llm.FileChange, len(list))
	newest := map[string]llm.FileChange{}
	for _, c := range list {
		byID[c.ID] = c
		newest[c.Path] = c
	}
	selected := make(map[string]bool, len(sel))
	for _, c := range sel {
		selected[c.ID] = true
	}
	held := map[string]bool{} // paths a newer change of the selection answers for
	out := make([]llm.FileChange, 0, len(sel))
	for _, c := range sel {
		if held[c.Path] {
			out = append(out, c)
			continue
		}
		held[c.Path] = true
		n, ok := newest[c.Path]
		if !ok || n.ID == c.ID || selected[n.ID] || root(n, list).ID != c.ID {
			out = append(out, c)
			continue
		}
		if byID[c.ID].Reverted {
			continue
		}
		c.ExistsAfter, c.SHAAfter, c.ModeAfter = n.ExistsAfter, n.SHAAfter, n.ModeAfter
		out = append(out, c)
	}
	return out
}
