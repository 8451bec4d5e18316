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
