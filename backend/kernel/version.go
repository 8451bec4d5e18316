package kernel

import (
	"runtime/debug"
	"strings"
	"sync"
)

// BuildCommit is the commit the binary was built from, set at build time
// with -ldflags "-X foya/backend/kernel.BuildCommit=..." (make build sets
// it to HEAD's first 7 hex digits, with "-dirty" for uncommitted changes). Empty means the revision Go recorded in the binary, if any.
var BuildCommit string

// BuildDate is the date of that commit (YYYY-MM-DD), set like BuildCommit.
// It is the commit's date, not the build's, so that building the same
// commit twice gives the same binary. Empty means the commit time Go
// recorded, if any.
var BuildDate string

// shortCommit is how many hex digits of a revision Go recorded are shown,
// as many as make build links in (git rev-parse --short would print more
// as the repository grows, so neither side asks git for its length).
const shortCommit = 7

var (
	vcsOnce            sync.Once
	vcsCommit, vcsDate string
)

// BuildInfo describes the running binary: its version, commit and commit
// date. Front ends show it where no kernel is open (the About view of a
// desktop whose database failed to open); Kernel.Info carries the same.
func BuildInfo() Info {
	commit, date := BuildCommit, BuildDate
	if commit == "" || date == "" {
		vcsOnce.Do(readVCS)
		if commit == "" {
			commit = vcsCommit
		}
		if date == "" {
			date = vcsDate
		}
	}
	return Info{Version: Version, Commit: commit, Date: date}
}

// readVCS reads the revision and commit time that go build records from
// the repository (-buildvcs, on by default for a main package in a git
// work tree). Test binaries and builds outside a repository have none.
func readVCS() {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return
	}
	var modified bool
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			vcsCommit = s.Value
		case "vcs.time":
			vcsDate, _, _ = strings.Cut(s.Value, "T")
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if len(vcsCommit) > shortCommit {
		vcsCommit = vcsCommit[:shortCommit]
	}
	if vcsCommit != "" && modified {
		vcsCommit += "-dirty"
	}
}
