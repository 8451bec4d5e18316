package capture

import (
	"fmt"
	"slices"
	"testing"
)

// The watcher holds the paths it sees change while a shell command of the
// session runs, and gives them back when the last one ends; a Before whose
// command never started (a background command refused) holds nothing past
// the next Before or the end of its run.
func TestRunningCommandsHold(t *testing.T) {
	var rc runningCommands
	if rc.hold("s", "/w/a") {
		t.Fatal("held a path while no command runs")
	}
	rc.start("s", 0) // a foreground command
	rc.start("s", 0) // its run's next command: still one
	if !rc.hold("s", "/w/a") || !rc.hold("s", "/w/a") || !rc.hold("s", "/w/b") {
		t.Fatal("a path was not held while a command runs")
	}
	if rc.hold("other", "/w/a") {
		t.Fatal("another session's path was held")
	}
	if h := rc.end("s"); !slices.Equal(h.paths, []string{"/w/a", "/w/b"}) || h.all {
		t.Fatalf("held %q (all %v); want /w/a and /w/b once each", h.paths, h.all)
	}
	if rc.hold("s", "/w/c") {
		t.Fatal("held a path after the command ended")
	}

	// A background command runs; a foreground one starts and ends.
	rc.start("s", 0)
	rc.start("s", 1)
	rc.hold("s", "/w/d")
	if h := rc.end("s"); len(h.paths) != 0 || !rc.hold("s", "/w/e") {
		t.Fatal("the paths were given back while the background command runs")
	}
	if h := rc.end("s"); !slices.Equal(h.paths, []string{"/w/d", "/w/e"}) {
		t.Fatalf("held %q; want /w/d and /w/e", h.paths)
	}

	// A background command refused after its Before: the run's end
	// settles with none running.
	rc.start("s", 0)
	rc.hold("s", "/w/f")
	if h := rc.settle("s", 0); !slices.Equal(h.paths, []string{"/w/f"}) || rc.hold("s", "/w/g") {
		t.Fatalf("after settling: held %q, still holding %v", h.paths, rc.hold("s", "/w/g"))
	}
	// Settling while one really runs keeps holding.
	rc.start("s", 0)
	if h := rc.settle("s", 1); len(h.paths) != 0 || !rc.hold("s", "/w/h") {
		t.Fatal("settling with a background command running stopped holding")
	}
	rc.end("s")

	// More paths than kept: all records are checked instead.
	rc.start("s", 0)
	for i := range maxHeld + 1 {
		rc.hold("s", fmt.Sprintf("/w/%d", i))
	}
	if h := rc.end("s"); !h.all || len(h.paths) != 0 {
		t.Fatalf("past %d paths: all %v, %d paths; want all", maxHeld, h.all, len(h.paths))
	}
	if h := rc.end("s"); h.all || len(h.paths) != 0 {
		t.Fatal("an end without a start gave something back")
	}
}
