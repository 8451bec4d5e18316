package tests

import (
	"context"
	"database/sql"
	"encoding/json"
	"strings"
	"testing"

	"foya/backend/event"
	"foya/backend/kernel"
	"foya/backend/llm"
	pt "foya/backend/provider/providertest"
	"foya/backend/tools"

	_ "modernc.org/sqlite"
)

// progressing reports progress, then notes its tag: a tool whose progress
// event is stored by a commit that has no caller to return its error to.
type progressing struct{ tr *tracker }

func (p progressing) Spec() tools.Spec {
	return tools.Spec{Name: "progress", Description: "Reports progress.", Schema: json.RawMessage(
		`{"type":"object","properties":{"tag":{"type":"string"}},"required":["tag"]}`)}
}
func (p progressing) Run(ctx context.Context, rc *tools.RunContext, c tools.Call) (tools.Result, error) {
	var a struct{ Tag string }
	json.Unmarshal(c.Arguments, &a)
	rc.Update(event.Progress{Tail: "half way"})
	p.tr.note(a.Tag)
	return tools.Text("done " + a.Tag), nil
}

// failStore makes the kernel's database refuse to store the events that
// when (an SQL condition on the new row NEW) picks, as a full disk or a
// broken database would: a real store failure, in the store's own
// transaction.
func failStore(t *testing.T, db, when string) {
	t.Helper()
	d, err := sql.Open("sqlite", "file:"+db+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if _, err := d.Exec(`CREATE TRIGGER fail_events BEFORE INSERT ON events WHEN ` + when +
		` BEGIN SELECT RAISE(ABORT, 'injected storage failure'); END`); err != nil {
		t.Fatal(err)
	}
}

// spec: K4 — a storage failure is a runtime error that ends the turn: when
// something a run did cannot be stored, even where no caller could be
// handed the error (a tool's progress, the end of a call that failed), the
// run stops with an error that says so, nothing after it runs, and what is
// stored is whole: each commit all or nothing, every call that ran with
// its end, the run's end recorded.
func TestRunStopsWhenTheStoreFails(t *testing.T) {
	t.Run("progress", func(t *testing.T) {
		tr := &tracker{}
		h := newHarness(t, []tools.Tool{progressing{tr}, recorder{tr}},
			pt.Calls(call("1", "progress", `{"tag":"first"}`), call("2", "record", `{"tag":"never"}`)),
			pt.Say("should not be asked"))
		failStore(t, h.db, `NEW.type = 'tool.update' AND json_extract(NEW.data, '$.progress') IS NOT NULL`)
		run := h.run("go")
		if got := tr.entries(); len(got) != 1 || got[0] != "first" {
			t.Errorf("tools ran: %v; want only the first call, none after the failure", got)
		}
		if n := len(h.srv.Requests()); n != 1 {
			t.Errorf("%d model requests; want 1: no step after the failure", n)
		}
		checkStopped(t, h, run, "injected storage failure")
		calls, err := h.k.Calls(context.Background(), run.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range calls {
			switch {
			case c.ID == "1" && c.State != kernel.CallDone:
				t.Errorf("call 1 (ran) is %s; want done, its end stored", c.State)
			case c.ID == "2" && (c.State == kernel.CallRunning || c.State == kernel.CallDone):
				t.Errorf("call 2 (never ran) is %s", c.State)
			}
		}
	})
	t.Run("end of a failed call", func(t *testing.T) {
		tr := &tracker{}
		h := newHarness(t, []tools.Tool{broken{}, recorder{tr}},
			pt.Calls(call("1", "broken", `{}`), call("2", "record", `{"tag":"never"}`)))
		failStore(t, h.db, `NEW.type = 'tool.end' AND json_extract(NEW.data, '$.id') = '1'`)
		run := h.run("go")
		checkStopped(t, h, run, "disk on fire")
		if !strings.Contains(run.Error, "injected storage failure") {
			t.Fatalf("run error %q; want it to name the storage failure too", run.Error)
		}
		if len(tr.entries()) != 0 {
			t.Fatalf("a call after the failure ran: %v", tr.entries())
		}
	})
}

// checkStopped checks that run failed with an error naming cause and
// saying it could not be stored, as stored and as published, and that
// the stored events are the published ones, in seq order with no gap,
// ending with run.end.
func checkStopped(t *testing.T, h *harness, run kernel.Run, cause string) {
	t.Helper()
	if run.Status != kernel.RunFailed || !strings.Contains(run.Error, "could not store") || !strings.Contains(run.Error, cause) {
		t.Fatalf("run %s %q; want failed, saying what could not be stored and why (%s)", run.Status, run.Error, cause)
	}
	ctx := context.Background()
	evs, err := h.k.Events(ctx, run.SessionID, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i, ev := range evs {
		if ev.Seq != int64(i+1) {
			t.Fatalf("stored event %d has seq %d", i, ev.Seq)
		}
	}
	last := evs[len(evs)-1]
	var end event.RunEndData
	if err := json.Unmarshal(last.Data, &end); err != nil || last.Type != event.TypeRunEnd || end.Status != llm.RunFailed || end.Error != run.Error {
		t.Fatalf("last stored event %s %s (%v); want run.end, failed with the run's error", last.Type, last.Data, err)
	}
	published := 0
	for _, ev := range h.eventList() {
		if ev.SessionID == run.SessionID {
			published++
		}
	}
	if published != len(evs) {
		t.Fatalf("published %d events, stored %d; want the same", published, len(evs))
	}
}
