// Review scopes and "reviewed" marks: the pure views and counts over the
// changes state, and the panel, the Review toggle and the session list as
// a person sees them, fed events in the shapes the kernel publishes.
// spec: F2, W4
import { act, cleanup, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { TransportProvider } from "../../backend/context";
import { ApiError } from "../../backend/errors";
import { FakeTransport, session } from "../../backend/fake";
import type { Event } from "../../backend/gen/event";
import type { ReviewRequest } from "../../backend/gen/kernel";
import { SessionStoreProvider } from "../session/hooks";
import { createSessionStore, type SessionStore } from "../session/store";
import { Log, SESSION, WORKDIR, fileChange, reduceAll } from "../eventstest";
import { applySessions, initialSessions, withSessions } from "../sessions/reducer";
import { SessionList } from "../sessions/SessionList";
import { applyChanges, initialChanges } from "./reducer";
import { parseScope, scopeKey, scopedGroups, shownToReview, toReviewCount } from "./reviewed";
import { ReviewToggle } from "./Scopes";
import { ReviewPanel } from "./index";

afterEach(cleanup);
beforeEach(() => localStorage.clear());

const A = `${WORKDIR}/a.txt`;
const B = `${WORKDIR}/b.txt`;

// twoTurns is a session whose first turn wrote a.txt and b.txt and whose
// second edited a.txt.
function twoTurns(): Log {
  const log = new Log();
  log.runStart("run_1", "write a and b");
  log.end("run_1", 1, 0, "call_a", "write", "done", "ok", {
    fileChanges: [fileChange("chg_a", "run_1", "call_a", A, "create"), fileChange("chg_b", "run_1", "call_a", B, "create")],
  });
  log.runEnd("run_1", "completed", "", 1);
  log.runStart("run_2", "edit a");
  log.end("run_2", 1, 0, "call_a2", "edit", "done", "ok", { fileChanges: [fileChange("chg_a2", "run_2", "call_a2", A, "edit")] });
  log.runEnd("run_2", "completed", "", 1);
  return log;
}

const reduce = (log: Log) => reduceAll(applyChanges, initialChanges, log.events);
const ids = (groups: { runId: string; changes: string[] }[]) => groups.map((g) => `${g.runId}: ${g.changes.join(" ")}`);

describe("review scopes over the changes state", () => {
  it("lists the latest turn, the session, and what waits for review; counts what waits", () => {
    const log = twoTurns();
    let s = reduce(log);
    expect(s.lastTurn).toBe("run_2");
    expect(ids(scopedGroups(s, "session"))).toEqual(["run_2: chg_a2", "run_1: chg_a chg_b"]);
    expect(ids(scopedGroups(s, "turn"))).toEqual(["run_2: chg_a2"]);
    expect(ids(scopedGroups(s, "review"))).toEqual(["run_2: chg_a2", "run_1: chg_a chg_b"]);
    expect(toReviewCount(s)).toBe(3);

    log.add("change.reviewed", { changeIds: ["chg_b"], reviewed: true, toReview: 2 });
    s = reduce(log);
    expect(s.reviewed).toEqual({ chg_b: true });
    expect(ids(scopedGroups(s, "review"))).toEqual(["run_2: chg_a2", "run_1: chg_a"]);
    // The session view still lists the reviewed change.
    expect(ids(scopedGroups(s, "session"))).toEqual(["run_2: chg_a2", "run_1: chg_a chg_b"]);
    expect(toReviewCount(s)).toBe(2);
    expect(shownToReview(s, scopedGroups(s, "session"))).toEqual(["chg_a2", "chg_a"]);

    log.add("change.reviewed", { changeIds: ["chg_a", "chg_a2"], reviewed: true, toReview: 0 });
    s = reduce(log);
    expect(scopedGroups(s, "review")).toEqual([]);
    expect(toReviewCount(s)).toBe(0);

    log.add("change.reviewed", { changeIds: ["chg_b"], reviewed: false, toReview: 1 });
    s = reduce(log);
    expect(s.reviewed).toEqual({ chg_a: true, chg_a2: true });
    expect(ids(scopedGroups(s, "review"))).toEqual(["run_1: chg_b"]);
  });

  it("takes a change made after a review as a new change, and leaves reverts out of the count", () => {
    const log = twoTurns();
    log.add("change.reviewed", { changeIds: ["chg_a", "chg_b", "chg_a2"], reviewed: true, toReview: 0 });
    log.add("file.reverted", { changeId: "chg_r", revertOf: "chg_a2", path: A, op: "revert" });
    expect(toReviewCount(reduce(log))).toBe(0);
    log.runStart("run_3", "edit a again");
    log.end("run_3", 1, 0, "call_a3", "edit", "done", "ok", { fileChanges: [fileChange("chg_a3", "run_3", "call_a3", A, "edit")] });
    const s = reduce(log);
    expect(toReviewCount(s)).toBe(1);
    expect(ids(scopedGroups(s, "review"))).toEqual(["run_3: chg_a3"]);
    expect(ids(scopedGroups(s, "turn"))).toEqual(["run_3: chg_a3"]);
  });

  it("shows no group for a latest turn that changed no file", () => {
    const log = twoTurns();
    log.runStart("run_3", "just talk");
    expect(scopedGroups(reduce(log), "turn")).toEqual([]);
  });

  it("reads a kept scope, anything else as the session", () => {
    expect(["turn", "session", "review", null, "nope"].map(parseScope)).toEqual(["turn", "session", "review", "session", "session"]);
  });
});

describe("the session list's count of changes to review", () => {
  it("adds a turn's new changes and takes the count a mark says", () => {
    const log = twoTurns();
    log.add("file.reverted", { changeId: "chg_r", revertOf: "chg_a2", path: A, op: "revert" });
    log.add("change.reviewed", { changeIds: ["chg_b"], reviewed: true, toReview: 2 });
    const listed = withSessions(initialSessions, [session({ id: SESSION, toReview: 0 })]);
    const steps: number[] = [];
    let s = listed;
    for (const ev of log.events) {
      s = applySessions(s, ev);
      if (ev.type === "tool.end" || ev.type === "change.reviewed") steps.push(s.sessions[0]!.toReview);
    }
    expect(steps).toEqual([2, 3, 2]);
  });
});

describe("the session list's row", () => {
  it("says how many changes wait for review, and nothing when none does", () => {
    const sessions = [session({ id: "a", title: "Has some", toReview: 3 }), session({ id: "b", title: "All reviewed", toReview: 0 })];
    render(
      <TransportProvider transport={new FakeTransport()}>
        <SessionList
          state={{ load: "ready", message: "", live: withSessions(initialSessions, sessions) }}
          openId={null}
          onOpen={() => {}}
          onReload={() => {}}
          onRenamed={() => {}}
          onDelete={() => {}}
        />
      </TransportProvider>,
    );
    const list = screen.getByRole("list", { name: "Sessions" });
    const item = (name: string) => within(list).getByRole("button", { name });
    expect(item("Has some").textContent).toContain("3 to review");
    expect(item("All reviewed").textContent).not.toContain("to review");
  });
});

class MarkTransport extends FakeTransport {
  marks: ReviewRequest[] = [];
  fail: Error | null = null;
  override call<T>(method: string, args: unknown[]): Promise<T> {
    if (method !== "MarkReviewed") return super.call<T>(method, args);
    this.calls.push({ method, args });
    const req = args[0] as ReviewRequest;
    this.marks.push(req);
    if (this.fail !== null) return Promise.reject(this.fail);
    return Promise.resolve({ changeIds: req.changeIds ?? [], reviewed: req.reviewed, toReview: 0 } as T);
  }
}

function mount(events: Event[]) {
  const t = new MarkTransport({ Changes: [] });
  const store: SessionStore = createSessionStore(SESSION);
  store.getState().apply(events);
  const ui = (
    <TransportProvider transport={t}>
      <SessionStoreProvider store={store}>
        <ReviewToggle pressed onClick={() => {}} />
        <ReviewPanel sessionId={SESSION} onClose={() => {}} />
      </SessionStoreProvider>
    </TransportProvider>
  );
  render(ui);
  return { t, store };
}

const panel = () => screen.getByRole("complementary", { name: "Review changes" });
const rows = () =>
  within(panel())
    .queryAllByRole("listitem")
    .map((li) => li.getAttribute("aria-label"))
    .filter((n): n is string => n !== null && n.includes(","));

describe("the review panel's scopes and marks", () => {
  it("switches views, keeps the choice, counts what waits in the header and the Review toggle", async () => {
    const log = twoTurns();
    const { t, store } = mount(log.events);
    const user = userEvent.setup();
    expect(within(panel()).getByText("3 to review")).toBeTruthy();
    expect(screen.getByRole("button", { name: "Review, 3 to review" }).getAttribute("aria-pressed")).toBe("true");
    expect(rows()).toEqual(["a.txt, edited", "a.txt, created", "b.txt, created"]);

    await user.click(within(panel()).getByRole("button", { name: "This turn" }));
    expect(rows()).toEqual(["a.txt, edited"]);
    expect(localStorage.getItem(scopeKey)).toBe("turn");

    // Mark b.txt's change: the request names it and the session.
    await user.click(within(panel()).getByRole("button", { name: "To review" }));
    await user.click(within(within(panel()).getByRole("listitem", { name: "b.txt, created" })).getByRole("button", { name: "Mark as reviewed" }));
    expect(t.marks).toEqual([{ sessionId: SESSION, changeIds: ["chg_b"], reviewed: true }]);
    // The view changes when the event comes, in this window as in any other.
    act(() => store.getState().apply([log.add("change.reviewed", { changeIds: ["chg_b"], reviewed: true, toReview: 2 })]));
    expect(rows()).toEqual(["a.txt, edited", "a.txt, created"]);
    expect(within(panel()).getByText("2 to review")).toBeTruthy();
    expect(screen.getByRole("button", { name: "Review, 2 to review" })).toBeTruthy();

    // Every change of a.txt at once.
    await user.click(within(within(panel()).getByRole("listitem", { name: "a.txt, edited" })).getByRole("button", { name: "Mark every change to a.txt as reviewed" }));
    expect(t.marks[1]).toEqual({ sessionId: SESSION, path: A, reviewed: true });
    act(() => store.getState().apply([log.add("change.reviewed", { changeIds: ["chg_a", "chg_a2"], reviewed: true, toReview: 0 })]));
    expect(rows()).toEqual([]);
    expect(within(panel()).getByText(/Every change is reviewed/)).toBeTruthy();
    expect(within(panel()).getByText("Nothing to review")).toBeTruthy();
    expect(screen.getByRole("button", { name: "Review" })).toBeTruthy();

    // The session view shows them reviewed, and undoes a mark.
    await user.click(within(panel()).getByRole("button", { name: "Session" }));
    const b = within(panel()).getByRole("listitem", { name: "b.txt, created" });
    expect(within(b).getByText("reviewed")).toBeTruthy();
    // Reviewed changes stay revertible.
    expect(within(b).getByRole("button", { name: "Revert" })).toBeTruthy();
    await user.click(within(b).getByRole("button", { name: "Mark as not reviewed" }));
    expect(t.marks[2]).toEqual({ sessionId: SESSION, changeIds: ["chg_b"], reviewed: false });
  });

  it("marks all shown as reviewed: the changes the view lists that wait", async () => {
    const log = twoTurns();
    localStorage.setItem(scopeKey, "turn");
    const { t } = mount(log.events);
    const user = userEvent.setup();
    expect(within(panel()).getByRole("button", { name: "This turn" }).getAttribute("aria-pressed")).toBe("true");
    await user.click(within(panel()).getByRole("button", { name: "Mark all shown as reviewed" }));
    expect(t.marks).toEqual([{ sessionId: SESSION, changeIds: ["chg_a2"], reviewed: true }]);
  });

  it("says why a mark failed, in words", async () => {
    const { t } = mount(twoTurns().events);
    t.fail = new ApiError("not_found", "mark as reviewed: there is no change chg_b; nothing was marked (list the session's changes again)");
    const user = userEvent.setup();
    await user.click(within(within(panel()).getByRole("listitem", { name: "b.txt, created" })).getByRole("button", { name: "Mark as reviewed" }));
    await waitFor(() => expect(within(panel()).getByRole("alert").textContent).toMatch(/Could not mark the change to b\.txt as reviewed: .*there is no change chg_b/));
  });
});
