package store

import (
	"context"
	"slices"
	"testing"
	"time"
)

// Issue 16 item 1: background commands are stored until they end; the
// ones left without an end are what recovery gives a crash's changes to.
// Ending one twice, or one the store does not have, changes nothing, and a
// deleted session takes its commands with it.
//
// spec: X2
func TestJobsAliveUntilEnded(t *testing.T) {
	s := open(t)
	ctx := context.Background()
	session(t, s, "s1")
	session(t, s, "s2")
	t0 := time.Unix(100, 0)
	for i, j := range []Job{
		{ID: "job_a", SessionID: "s1", RunID: "r1", CallID: "c1", Owner: "own_x", StartedAt: t0},
		{ID: "job_b", SessionID: "s1", RunID: "r2", CallID: "c2", Owner: "own_x", StartedAt: t0.Add(time.Second)},
		{ID: "job_c", SessionID: "s2", RunID: "r3", CallID: "c3", Owner: "own_y", StartedAt: t0.Add(2 * time.Second)},
	} {
		if err := s.StartJob(ctx, j); err != nil {
			t.Fatalf("start %d: %v", i, err)
		}
	}
	if err := s.StartJob(ctx, Job{ID: "job_a", SessionID: "s1", StartedAt: t0}); err == nil {
		t.Error("a second job_a was stored")
	}
	if err := s.StartJob(ctx, Job{ID: "job_z", SessionID: "nope", StartedAt: t0}); err == nil {
		t.Error("a job of an unknown session was stored")
	}
	if err := s.EndJobs(ctx, t0.Add(time.Minute), "job_a", "job_a", "unknown"); err != nil {
		t.Fatal(err)
	}
	ids := func() []string {
		t.Helper()
		alive, err := s.AliveJobs(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, j := range alive {
			out = append(out, j.ID+"/"+j.SessionID+"/"+j.RunID+"/"+j.CallID+"/"+j.Owner)
		}
		return out
	}
	if got, want := ids(), []string{"job_b/s1/r2/c2/own_x", "job_c/s2/r3/c3/own_y"}; !slices.Equal(got, want) {
		t.Fatalf("alive %q; want %q", got, want)
	}
	if err := s.DeleteSession(ctx, "s2"); err != nil {
		t.Fatal(err)
	}
	if got, want := ids(), []string{"job_b/s1/r2/c2/own_x"}; !slices.Equal(got, want) {
		t.Fatalf("alive after deleting s2: %q; want %q", got, want)
	}
}
