// The review panel mounted as the shell mounts it: a TransportProvider (a
// FakeTransport answering the kernel's calls) and the session's real store,
// fed the stored events of a real session (testdata/run.jsonl) and events
// in the shapes the kernel publishes.
import { act, cleanup, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it, vi } from "vitest";
import { TransportProvider } from "../../backend/context";
import { ApiError } from "../../backend/errors";
import { FakeTransport } from "../../backend/fake";
import type { Event } from "../../backend/gen/event";
import type { Change as Stored, RevertRequest, RevertResult } from "../../backend/gen/kernel";
import { SessionStoreProvider } from "../session/hooks";
import { createSessionStore, lastSeq, type SessionStore } from "../session/store";
import log from "../testdata/run.jsonl?raw";
import { Log, SESSION as LOG_SESSION, WORKDIR as LOG_WORKDIR, fileChange } from "../eventstest";
import { ReviewPanel } from "./index";

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

const events: Event[] = log
  .split("\n")
  .filter((l) => l.trim() !== "")
  .map((l) => JSON.parse(l) as Event);
const SESSION = events[0]!.sessionId;
const RUN1 = events[0]!.runId!;
const WORKDIR = "/home/me/project";
const NOTES = `${WORKDIR}/notes.txt`;
const CREATE = "chg_01a23166c5bc7085a04c3db940b3ce48";
const EDIT = "chg_01a23166c5c2788698d3b2bd5ece0eca";
const reverts = events.filter((e) => e.type === "file.reverted");
const UNDO_EDIT = "chg_01a23166d4c47761b3a9d12df01a7458";
const UNDO_CREATE = "chg_01a23166d4c47783ac4c018775bf2980";
// Before the turn was reverted (the last two events).
const beforeReverts = events.filter((e) => e.type !== "file.reverted");

function stored(fc: Partial<Stored> & { id: string }): Stored {
  return {
    sessionId: SESSION,
    path: NOTES,
    op: "edit",
    existedBefore: true,
    existsAfter: true,
    createdAt: "2026-12-01T11:39:09Z",
    ...fc,
  };
}

// What Changes lists: the turn's two changes as tool.end carried them, and
// the two reverts with what only the kernel's list has (diff, counts).
const fromEvents: Stored[] = events
  .filter((e) => e.type === "tool.end")
  .flatMap((e) => ((e.data as { fileChanges?: Stored[] }).fileChanges ?? []))
  .map((c) => ({ ...c, createdAt: "2026-12-01T11:39:09Z" })); // as the kernel's list has them
const revertChanges: Stored[] = [
  stored({ id: UNDO_EDIT, op: "revert", tool: "revert", revertOf: EDIT, diff: "--- a/notes.txt\n+++ b/notes.txt\n@@ -1 +1 @@\n-bye\n+hello\n", added: 1, removed: 1 }),
  stored({ id: UNDO_CREATE, op: "revert", tool: "revert", revertOf: CREATE, existsAfter: false, diff: "--- a/notes.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-hello\n", removed: 1, trashPath: "/home/me/.local/share/Trash/files/notes.txt" }),
];

// afterReverts is what Changes lists once the turn is reverted: the kernel
// marks each change reverted, with the revert in force.
const afterReverts: Stored[] = [
  ...fromEvents.map((c) =>
    c.id === CREATE ? { ...c, reverted: true, reverts: [UNDO_CREATE] } : c.id === EDIT ? { ...c, reverted: true, reverts: [UNDO_EDIT] } : c,
  ),
  ...revertChanges,
];

// ReviewTransport answers Revert by request: a dry run with preview, the
// real one with the first of results while it holds any, else result;
// every request is kept.
class ReviewTransport extends FakeTransport {
  reverts: RevertRequest[] = [];
  preview: RevertResult | Error = { reverted: [], dryRun: true };
  result: RevertResult | Error = { reverted: [] };
  results: (RevertResult | Error)[] = [];

  override call<T>(method: string, args: unknown[]): Promise<T> {
    if (method !== "Revert") return super.call<T>(method, args);
    this.calls.push({ method, args });
    const req = args[0] as RevertRequest;
    this.reverts.push(req);
    const r = req.dryRun ? this.preview : (this.results.shift() ?? this.result);
    return r instanceof Error ? Promise.reject(r) : Promise.resolve(r as T);
  }
}

function mount(evs: Event[], list: Stored[]) {
  const t = new ReviewTransport({
    Changes: list,
    Diff: "--- a/notes.txt\n+++ b/notes.txt\n@@ -1 +1 @@\n-hello\n+bye\n",
    ChangeContents: { changeId: EDIT, before: "hello\n", beforeKnown: true, after: "bye\n", afterKnown: true },
  });
  const store: SessionStore = createSessionStore(SESSION);
  store.getState().apply(evs);
  let closed = 0;
  render(
    <TransportProvider transport={t}>
      <SessionStoreProvider store={store}>
        <ReviewPanel sessionId={SESSION} onClose={() => closed++} />
      </SessionStoreProvider>
    </TransportProvider>,
  );
  return { t, store, closed: () => closed };
}

const panel = () => screen.getByRole("complementary", { name: "Review changes" });
const row = (name: RegExp) => within(panel()).getByRole("listitem", { name });
const dialog = () => screen.getByRole("dialog");
const noDialog = () => expect(screen.queryByRole("dialog")).toBeNull();
const twoHunks = "--- a/notes.txt\n+++ b/notes.txt\n@@ -1 +1 @@\n-hello\n+bye\n@@ -9 +9 @@\n-nine\n+NINE\n";

// next returns an event after the log's last seq, in the kernel's shape.
function next(store: SessionStore, type: string, data: unknown, runId?: string): Event {
  const seq = lastSeq(store.getState()) + 1;
  return { type, sessionId: SESSION, seq, time: "2026-12-01T11:40:00Z", data, ...(runId ? { runId } : {}) } as Event;
}

describe("ReviewPanel", () => {
  it("groups the session's changes by turn, newest first, with counts", async () => {
    const { t } = mount(events, afterReverts);
    await waitFor(() => expect(t.callsOf("Changes")).toBe(1));
    expect(t.calls.find((c) => c.method === "Changes")!.args).toEqual([SESSION]);
    const groups = within(panel()).getByRole("list", { name: "Changes by turn, newest first" });
    const headings = within(groups).getAllByRole("heading", { level: 3 }).map((h) => h.textContent);
    expect(headings).toEqual(["Reverts", "Turn: Create notes.txt saying hello, then make it say bye"]);
    const turn = within(groups).getByRole("listitem", { name: "Turn: Create notes.txt saying hello, then make it say bye" });
    expect(within(turn).getByText("2 changes")).toBeTruthy();
    expect(within(turn).getByLabelText("2 lines added, 1 removed")).toBeTruthy();
    // The reverts' counts come from the kernel's list (their events carry none).
    const rev = within(groups).getByRole("listitem", { name: "Reverts" });
    await waitFor(() => expect(within(rev).getByLabelText("1 lines added, 2 removed")).toBeTruthy());
    expect(within(panel()).getByText("4 changes in 2 groups")).toBeTruthy();
    // Each change: its path (relative to the session's folder), what it did, its counts.
    const create = within(turn).getByRole("listitem", { name: "notes.txt, created" });
    expect(within(create).getByLabelText("1 lines added, 0 removed")).toBeTruthy();
    await waitFor(() => expect(within(create).getByText("reverted")).toBeTruthy());
    expect(within(turn).getByRole("listitem", { name: "notes.txt, edited" })).toBeTruthy();
    // The revert of the create moved the file to the trash: it says where.
    const undoCreate = within(rev).getAllByRole("listitem", { name: "notes.txt, revert" })[1]!;
    expect(within(undoCreate).getByText("Reverts the change to notes.txt (created).")).toBeTruthy();
    await waitFor(() => expect(within(undoCreate).getByText("/home/me/.local/share/Trash/files/notes.txt")).toBeTruthy());
  });

  it("closes", async () => {
    const { closed } = mount(events, fromEvents);
    await userEvent.click(screen.getByRole("button", { name: "Close review" }));
    expect(closed()).toBe(1);
  });

  it("previews a turn's revert, then sends exactly that request, then offers its undo", async () => {
    const { t, store } = mount(beforeReverts, fromEvents);
    t.preview = { dryRun: true, reverted: [revertChanges[0]!, revertChanges[1]!].map((c) => ({ ...c, id: "" })) };
    t.result = { reverted: revertChanges };
    const turn = within(panel()).getByRole("listitem", { name: /^Turn: Create notes/ });
    await userEvent.click(within(turn).getByRole("button", { name: "Revert turn" }));
    expect(t.reverts).toEqual([{ runId: RUN1, dryRun: true }]);
    // The preview says what each revert change will do, before anything runs.
    await waitFor(() => expect(within(dialog()).getByRole("heading", { name: "Revert preview" })).toBeTruthy());
    const plan = within(dialog()).getByRole("list", { name: "What the revert does" });
    expect(within(plan).getAllByRole("listitem").map((li) => li.textContent?.split("Diff")[0])).toEqual([
      "notes.txt restores the file's content+1 −1",
      "notes.txt moves the file to the trash+0 −1",
    ]);
    expect(t.reverts).toHaveLength(1);
    await userEvent.click(within(dialog()).getByRole("button", { name: "Revert" }));
    expect(t.reverts[1]).toEqual({ runId: RUN1 });
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
    const done = within(panel()).getByRole("status");
    // The notice says what changed on disk, in the words of the changes undone.
    expect(done.textContent).toMatch(/^notes\.txt is back to what it was before the edit of \d?\d:\d\d( [AP]M)?\. notes\.txt is in the trash: it did not exist before the creation of \d?\d:\d\d( [AP]M)?\./);
    // The kernel's list is read again for the new changes.
    expect(t.callsOf("Changes")).toBe(2);
    // The kernel publishes the reverts; the rows say so once its list has them.
    t.replies.Changes = afterReverts;
    act(() => store.getState().apply(reverts));
    await waitFor(() => expect(within(row(/notes\.txt, created/)).getByText("reverted")).toBeTruthy());
    // Undo: a revert of the revert, previewed like any other.
    await userEvent.click(within(done).getByRole("button", { name: "Undo" }));
    expect(t.reverts[2]).toEqual({ changeIds: [UNDO_EDIT, UNDO_CREATE], dryRun: true });
  });

  it("stops at a conflict: shows what is there now; overwrite sends force", async () => {
    const { t } = mount(beforeReverts, fromEvents);
    const conflictDiff = "--- expected/notes.txt\n+++ found/notes.txt\n@@ -1 +1 @@\n-bye\n+edited by me\n";
    // One change reverts at once; a conflict stops it, with nothing changed.
    t.results = [
      {
        reverted: [],
        conflicts: [{ changeId: EDIT, path: NOTES, reason: "its content changed since this change", expectedExists: true, foundExists: true, diff: conflictDiff, forceable: true }],
      },
    ];
    t.result = { reverted: [revertChanges[0]!] };
    await userEvent.click(within(row(/notes\.txt, edited/)).getByRole("button", { name: "Revert" }));
    expect(t.reverts).toEqual([{ changeIds: [EDIT] }]);
    await waitFor(() => expect(within(dialog()).getByRole("heading", { name: "Files changed since" })).toBeTruthy());
    expect(within(dialog()).getByText(/its content changed since this change/)).toBeTruthy();
    const now = within(dialog()).getByRole("group", { name: "What is there now in notes.txt" });
    expect(within(now).getByRole("table").textContent).toContain("edited by me");
    expect(within(dialog()).queryByRole("button", { name: "Revert" })).toBeNull();
    await userEvent.click(within(dialog()).getByRole("button", { name: "Overwrite" }));
    expect(t.reverts[1]).toEqual({ changeIds: [EDIT], force: true });
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
  });

  it("stops at a conflict: cancel sends nothing", async () => {
    const { t } = mount(beforeReverts, fromEvents);
    t.result = {
      reverted: [],
      conflicts: [{ changeId: EDIT, path: NOTES, reason: "it was deleted since this change", expectedExists: true, foundExists: false, forceable: true }],
    };
    await userEvent.click(within(row(/notes\.txt, edited/)).getByRole("button", { name: "Revert" }));
    await waitFor(() => expect(within(dialog()).getByRole("button", { name: "Cancel" })).toBeTruthy());
    // Focus is on Cancel, so a stray Enter cancels; Escape cancels too.
    expect(document.activeElement).toBe(within(dialog()).getByRole("button", { name: "Cancel" }));
    await userEvent.keyboard("{Escape}");
    expect(screen.queryByRole("dialog")).toBeNull();
    expect(t.reverts).toEqual([{ changeIds: [EDIT] }]);
  });

  it("offers no overwrite for a conflict force cannot settle", async () => {
    const { t } = mount(beforeReverts, fromEvents);
    t.result = {
      reverted: [],
      conflicts: [{ changeId: EDIT, path: NOTES, reason: "it is a folder now", expectedExists: true, foundExists: true, forceable: false }],
    };
    await userEvent.click(within(row(/notes\.txt, edited/)).getByRole("button", { name: "Revert" }));
    await waitFor(() => expect(within(dialog()).getByText("cannot be overwritten")).toBeTruthy());
    expect(within(dialog()).queryByRole("button", { name: "Overwrite" })).toBeNull();
    await userEvent.click(within(dialog()).getByRole("button", { name: "Cancel" }));
    expect(screen.queryByRole("dialog")).toBeNull();
    expect(t.reverts).toEqual([{ changeIds: [EDIT] }]);
  });

  it("comes back to the conflict step when the file changed after the preview", async () => {
    const { t } = mount(beforeReverts, fromEvents);
    t.preview = { dryRun: true, reverted: [{ ...revertChanges[0]!, id: "" }] };
    t.result = { reverted: [], conflicts: [{ changeId: EDIT, path: NOTES, reason: "its content changed since this change", expectedExists: true, foundExists: true, forceable: true }] };
    const turn = within(panel()).getByRole("listitem", { name: /^Turn: Create notes/ });
    await userEvent.click(within(turn).getByRole("button", { name: "Revert turn" }));
    await waitFor(() => expect(within(dialog()).getByRole("button", { name: "Revert" })).toBeTruthy());
    await userEvent.click(within(dialog()).getByRole("button", { name: "Revert" }));
    await waitFor(() => expect(within(dialog()).getByRole("heading", { name: "Files changed since" })).toBeTruthy());
    await userEvent.click(within(dialog()).getByRole("button", { name: "Overwrite" }));
    expect(t.reverts.map((r) => ({ ...r }))).toEqual([
      { runId: RUN1, dryRun: true },
      { runId: RUN1 },
      { runId: RUN1, force: true },
    ]);
  });

  it("reverts one hunk from the diff at once, its undo beside it", async () => {
    const { t } = mount(beforeReverts, fromEvents.map((c) => (c.id === EDIT ? { ...c, hunks: 1 } : c)));
    t.result = { reverted: [revertChanges[0]!] };
    const edit = row(/notes\.txt, edited/);
    await userEvent.click(within(edit).getByRole("button", { name: "Show diff" }));
    await waitFor(() => expect(within(edit).getByRole("table", { name: "Diff of notes.txt" })).toBeTruthy());
    expect(t.calls.find((c) => c.method === "Diff")!.args).toEqual([EDIT]);
    // The old content is known: the whole file can be shown.
    await waitFor(() => expect(within(edit).getByRole("button", { name: "Full file" })).toBeTruthy());
    await userEvent.click(within(edit).getByRole("button", { name: "Revert hunk 1" }));
    expect(t.reverts).toEqual([{ changeIds: [EDIT], hunks: [1] }]);
    noDialog();
    const done = await within(panel()).findByRole("status");
    expect(within(done).getByRole("button", { name: "Undo" })).toBeTruthy();
  });

  it("undoes a revert from the reverted change and from the revert", async () => {
    const { t } = mount(events, afterReverts);
    await userEvent.click(await within(row(/notes\.txt, created/)).findByRole("button", { name: "Undo" }));
    expect(t.reverts).toEqual([{ changeIds: [UNDO_CREATE] }]);
    noDialog();
    const undoEdit = within(panel()).getAllByRole("listitem", { name: "notes.txt, revert" })[0]!;
    await waitFor(() => expect((within(undoEdit).getByRole("button", { name: "Undo this revert" }) as HTMLButtonElement).disabled).toBe(false));
    await userEvent.click(within(undoEdit).getByRole("button", { name: "Undo this revert" }));
    expect(t.reverts[1]).toEqual({ changeIds: [UNDO_EDIT] });
  });

  // The kernel says which hunks of a change are reverted (hunks,
  // revertedHunks, reverts); the row and its hunk list follow it.
  const R1 = "chg_hunk1";
  const R2 = "chg_hunk2";
  const hunk1 = stored({ id: R1, op: "revert", tool: "revert", revertOf: EDIT, ofHunks: [1], diff: "--- a/notes.txt\n+++ b/notes.txt\n@@ -1 +1 @@\n-bye\n+hello\n", added: 1, removed: 1 });
  const hunk2 = stored({ id: R2, op: "revert", tool: "revert", revertOf: EDIT, ofHunks: [2], diff: "--- a/notes.txt\n+++ b/notes.txt\n@@ -9 +9 @@\n-NINE\n+nine\n", added: 1, removed: 1 });
  const withEdit = (edit: Partial<Stored>, ...more: Stored[]) => [
    ...fromEvents.map((c) => (c.id === EDIT ? { ...c, hunks: 2, ...edit } : c)),
    ...more,
  ];
  const hunkEvent = (store: SessionStore, id: string) => next(store, "file.reverted", { changeId: id, revertOf: EDIT, path: NOTES, op: "revert" });

  it("shows a partly reverted change: revert the hunk left, undo the one reverted, or revert what is left", async () => {
    const { t, store } = mount(beforeReverts, withEdit({ revertedHunks: [1], reverts: [R1] }, hunk1));
    act(() => store.getState().apply([hunkEvent(store, R1)]));
    const edit = row(/notes\.txt, edited/);
    await waitFor(() => expect(within(edit).getByText("partly reverted (1 of 2 hunks)")).toBeTruthy());
    expect(within(panel()).getByText("Reverts hunk 1 of the change to notes.txt (edited).")).toBeTruthy();
    expect(within(edit).queryByText("reverted")).toBeNull();
    t.replies.Diff = twoHunks;
    await userEvent.click(within(edit).getByRole("button", { name: "Show diff" }));
    // The diff marks the reverted hunk and offers its undo; the other its revert.
    const hunks = await within(edit).findByRole("table", { name: "Diff of notes.txt" });
    const headers = within(hunks).getAllByRole("rowheader").map((th) => th.textContent);
    expect(headers.map((h) => h?.replace(/@@.*@@/, "@@"))).toEqual([
      "Hunk 1reverted: these lines are as they were before @@CommentUndo hunk 1",
      "Hunk 2 @@CommentRevert hunk 2",
    ]);
    expect(within(hunks).queryByRole("button", { name: "Revert hunk 1" })).toBeNull();
    // Undo hunk 1: the undo of the revert that took it, at once.
    await userEvent.click(within(hunks).getByRole("button", { name: "Undo hunk 1" }));
    expect(t.reverts).toEqual([{ changeIds: [R1] }]);
    noDialog();
    await waitFor(() => expect((within(hunks).getByRole("button", { name: "Revert hunk 2" }) as HTMLButtonElement).disabled).toBe(false));
    await userEvent.click(within(hunks).getByRole("button", { name: "Revert hunk 2" }));
    expect(t.reverts[1]).toEqual({ changeIds: [EDIT], hunks: [2] });
    noDialog();
    // The row's Undo undoes the hunk revert; "Revert" reverts what is left
    // (the kernel picks the hunks left).
    expect(within(edit).getByRole("button", { name: "Undo" })).toBeTruthy();
    await waitFor(() => expect((within(edit).getByRole("button", { name: "Revert" }) as HTMLButtonElement).disabled).toBe(false));
    await userEvent.click(within(edit).getByRole("button", { name: "Revert" }));
    expect(t.reverts[2]).toEqual({ changeIds: [EDIT] });
  });

  it("shows every control again after the hunk reverts are undone", async () => {
    // Both hunks reverted: the change is reverted, each hunk offers its undo.
    const { t, store } = mount(beforeReverts, withEdit({ revertedHunks: [1, 2], reverts: [R1, R2], reverted: true }, hunk1, hunk2));
    act(() => store.getState().apply([hunkEvent(store, R1), hunkEvent(store, R2)]));
    const edit = row(/notes\.txt, edited/);
    await waitFor(() => expect(within(edit).getByText("reverted")).toBeTruthy());
    expect(within(edit).queryByRole("button", { name: "Revert" })).toBeNull();
    t.replies.Diff = twoHunks;
    await userEvent.click(within(edit).getByRole("button", { name: "Show diff" }));
    const hunks = await within(edit).findByRole("table", { name: "Diff of notes.txt" });
    expect(within(hunks).getByRole("button", { name: "Undo hunk 1" })).toBeTruthy();
    expect(within(hunks).getByRole("button", { name: "Undo hunk 2" })).toBeTruthy();
    // The row's Undo undoes the last step, at once.
    await userEvent.click(within(edit).getByRole("button", { name: "Undo" }));
    expect(t.reverts).toEqual([{ changeIds: [R2] }]);
    noDialog();
    // Both undone (the kernel's list after two undos): every control is back.
    const undone = (id: string, of: string) =>
      stored({ id, op: "revert", tool: "revert", revertOf: of, diff: "--- a/notes.txt\n+++ b/notes.txt\n@@ -1 +1 @@\n-hello\n+bye\n" });
    t.replies.Changes = withEdit({}, { ...hunk1, reverted: true }, { ...hunk2, reverted: true }, undone("chg_u1", R1), undone("chg_u2", R2));
    act(() =>
      store.getState().apply([
        next(store, "file.reverted", { changeId: "chg_u2", revertOf: R2, path: NOTES, op: "revert" }),
        next(store, "file.reverted", { changeId: "chg_u1", revertOf: R1, path: NOTES, op: "revert" }),
      ]),
    );
    await waitFor(() => expect(within(edit).getByRole("button", { name: "Revert" })).toBeTruthy());
    expect(within(edit).queryByText("reverted")).toBeNull();
    expect(within(edit).queryByText(/partly reverted/)).toBeNull();
    expect(within(edit).queryByRole("button", { name: "Undo" })).toBeNull();
    expect(within(hunks).getByRole("button", { name: "Revert hunk 1" })).toBeTruthy();
    expect(within(hunks).getByRole("button", { name: "Revert hunk 2" })).toBeTruthy();
    expect(within(hunks).queryByText(/^reverted:/)).toBeNull();
  });

  it("says what changed on disk after a hunk revert and its undo", async () => {
    const { t } = mount(beforeReverts, withEdit({}));
    t.result = { reverted: [hunk1] };
    t.replies.Diff = twoHunks;
    const edit = row(/notes\.txt, edited/);
    await userEvent.click(within(edit).getByRole("button", { name: "Show diff" }));
    await userEvent.click(await within(edit).findByRole("button", { name: "Revert hunk 1" }));
    // Said once, in the words of what changed on disk.
    await waitFor(() => expect(within(panel()).getByRole("status").textContent).toMatch(/^Hunk 1 of the edit of [^ ]+( [AP]M)? is undone in notes\.txt\.Undo$/));
    const done = within(panel()).getByRole("status");
    t.result = { reverted: [stored({ id: "chg_u1", op: "revert", tool: "revert", revertOf: R1, ofHunks: [1] })] };
    t.replies.Changes = withEdit({ revertedHunks: [1], reverts: [R1] }, hunk1);
    await waitFor(() => expect(t.callsOf("Changes")).toBe(2));
    await userEvent.click(within(done).getByRole("button", { name: "Undo" }));
    expect(t.reverts[1]).toEqual({ changeIds: [R1] });
    noDialog();
    await waitFor(() => expect(within(panel()).getByRole("status").textContent).toMatch(/^Hunk 1 of the edit of [^ ]+( [AP]M)? is back in notes\.txt\./));
  });

  it("reviews with the keyboard: next change, next hunk, revert it, undo", async () => {
    const { t } = mount(beforeReverts, withEdit({}));
    t.replies.Diff = twoHunks;
    t.result = { reverted: [hunk2] };
    await waitFor(() => expect(t.callsOf("Changes")).toBe(1));
    screen.getByRole("button", { name: "Close review" }).focus();
    // J: the first change takes the focus.
    await userEvent.keyboard("j");
    const first = within(panel()).getAllByRole("listitem").find((li) => li.classList.contains("review-change"))!;
    expect(document.activeElement).toBe(first);
    // N: the first hunk there is, its change's diff opened for it.
    await userEvent.keyboard("n");
    const edit = row(/notes\.txt, edited/);
    await waitFor(() => expect(document.activeElement?.textContent).toMatch(/^Hunk 1/));
    expect(edit.contains(document.activeElement)).toBe(true);
    await userEvent.keyboard("n");
    await waitFor(() => expect(document.activeElement?.textContent).toMatch(/^Hunk 2/));
    // R reverts the hunk the focus is on, at once; U undoes it.
    await userEvent.keyboard("r");
    expect(t.reverts).toEqual([{ changeIds: [EDIT], hunks: [2] }]);
    noDialog();
    await waitFor(() => expect(within(panel()).getByRole("status").textContent).toMatch(/^Hunk 2 of the edit/));
    await userEvent.keyboard("u");
    expect(t.reverts[1]).toEqual({ changeIds: [R2] });
    // P goes back; O hides the diff; keys typed in a field are the person's text.
    await userEvent.keyboard("p");
    await waitFor(() => expect(document.activeElement?.textContent).toMatch(/^Hunk 1/));
    await userEvent.keyboard("o");
    await waitFor(() => expect(within(edit).queryByRole("table")).toBeNull());
    expect(t.reverts).toHaveLength(2);
    // M marks the change as reviewed; C opens a comment on its first hunk.
    await userEvent.keyboard("m");
    await waitFor(() => expect(t.callsOf("MarkReviewed")).toBe(1));
    expect(t.calls.find((c) => c.method === "MarkReviewed")!.args).toEqual([{ sessionId: SESSION, changeIds: [EDIT], reviewed: true }]);
    await userEvent.keyboard("c");
    await waitFor(() => expect(within(edit).getByRole("textbox")).toBeTruthy());
  });

  // C is the panel's own action, not a click on the Comment button through
  // the page: it opens the comment box of the hunk the cursor is on (the
  // first one from a change's row) however the diff draws its buttons.
  it("C opens the comment box of the hunk without clicking through the page", async () => {
    const { t } = mount(beforeReverts, withEdit({}));
    t.replies.Diff = twoHunks;
    await waitFor(() => expect(t.callsOf("Changes")).toBe(1));
    const clicks = vi.spyOn(HTMLElement.prototype, "click");
    screen.getByRole("button", { name: "Close review" }).focus();
    const edit = row(/notes\.txt, edited/);
    // On hunk 2 (J, N, N): its own lines.
    await userEvent.keyboard("jnn");
    await waitFor(() => expect(document.activeElement?.textContent).toMatch(/^Hunk 2/));
    await userEvent.keyboard("c");
    await waitFor(() => expect(within(edit).getByRole("textbox", { name: "Comment on notes.txt line 9" })).toBeTruthy());
    await userEvent.keyboard("{Escape}");
    await waitFor(() => expect(within(edit).queryByRole("textbox")).toBeNull());
    // On the change's row (O hides its diff): its first hunk, the diff drawn again for it.
    within(edit).getByText(/^Hunk 2/).closest("th")!.focus();
    await userEvent.keyboard("o");
    await waitFor(() => expect(within(edit).queryByRole("table")).toBeNull());
    await userEvent.keyboard("c");
    await waitFor(() => expect(within(edit).getByRole("textbox", { name: "Comment on notes.txt line 1" })).toBeTruthy());
    expect(clicks).not.toHaveBeenCalled();
  });

  it("reverts everything after a change", async () => {
    const { t } = mount(beforeReverts, fromEvents);
    // The newest change has nothing after it.
    expect(within(row(/notes\.txt, edited/)).queryByRole("button", { name: "Revert everything after" })).toBeNull();
    await userEvent.click(within(row(/notes\.txt, created/)).getByRole("button", { name: "Revert everything after" }));
    expect(t.reverts).toEqual([{ toChangeId: CREATE, dryRun: true }]);
  });

  // A background command's changes (file.captured) join
  // their turn, and one Foya kept no copy of says so, with the reason.
  it("shows a background command's captured changes and marks the ones not restorable", async () => {
    const BIG = `${WORKDIR}/big.bin`;
    const made: Stored = stored({ id: "chg_bg1", runId: RUN1, callId: "call_bg", tool: "bash", path: `${WORKDIR}/made.txt`, op: "create", existedBefore: false });
    const big: Stored = stored({
      id: "chg_bg2", runId: RUN1, callId: "call_bg", tool: "bash", path: BIG, op: "write", binary: true,
      notRestorable: "it is larger (9.0 MiB) than the index keeps (workspace.maxFileBytes)",
    });
    const { store } = mount(beforeReverts, [...fromEvents, made, big]);
    act(() => store.getState().apply([next(store, "file.captured", { callId: "call_bg", fileChanges: [made, big] }, RUN1)]));
    const bigRow = await within(panel()).findByRole("listitem", { name: /big\.bin, written/ });
    expect(within(bigRow).getByText("not restorable")).toBeTruthy();
    expect(within(bigRow).getByText(/Not restorable: it is larger \(9\.0 MiB\) than the index keeps/)).toBeTruthy();
    const madeRow = row(/made\.txt, created/);
    expect(within(madeRow).queryByText("not restorable")).toBeNull();
  });

  it("marks files changed outside Foya, live, until Foya changes them again", async () => {
    const { store } = mount(beforeReverts, fromEvents);
    expect(within(panel()).queryByRole("region", { name: "Changed outside Foya" })).toBeNull();
    act(() => store.getState().apply([next(store, "file.changed_outside", { path: NOTES, exists: true })]));
    const marks = within(panel()).getByRole("region", { name: "Changed outside Foya" });
    expect(marks.textContent).toContain("notes.txt was changed by something other than Foya");
    expect(within(row(/notes\.txt, edited/)).getByText("changed outside Foya")).toBeTruthy();
    // Foya reverts it: the mark goes.
    act(() => store.getState().apply([next(store, "file.reverted", { changeId: "chg_new", revertOf: EDIT, path: NOTES, op: "revert" })]));
    expect(within(panel()).queryByRole("region", { name: "Changed outside Foya" })).toBeNull();
    expect(within(row(/notes\.txt, edited/)).queryByText("changed outside Foya")).toBeNull();
  });

  it("says where a deleted file is in the trash and restores it", async () => {
    const { t, store } = mount(beforeReverts, fromEvents);
    const trashPath = "/home/me/.local/share/Trash/files/notes.txt";
    const del = {
      id: "chg_del", sessionId: SESSION, runId: "run_del", callId: "call_d", tool: "delete", path: NOTES, op: "delete",
      existedBefore: true, existsAfter: false, modeBefore: 33188, shaBefore: "abc6fd595fc079d3114d4b71a4d84b1d1d0f79df1e70f8813212f2a65d8916df",
      diff: "--- a/notes.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n", removed: 1, trashPath, trashInfo: "/home/me/.local/share/Trash/info/notes.txt.trashinfo",
      createdAt: "2026-12-01T11:41:00Z",
    };
    act(() => {
      const start = next(store, "run.start", { prompt: "Delete notes.txt", model: "m", provider: "", workdir: WORKDIR, approvalMode: "auto", instructions: { status: "none" } }, "run_del");
      store.getState().apply([start]);
      store.getState().apply([next(store, "tool.end", { id: "call_d", name: "delete", status: "done", durationMs: 3, result: "moved to the trash", fileChanges: [del] }, "run_del")]);
    });
    const deleted = row(/notes\.txt, deleted/);
    expect(within(deleted).getByText(trashPath)).toBeTruthy();
    expect(within(deleted).getByText(/In the trash:/)).toBeTruthy();
    // The newest turn comes first.
    expect(within(panel()).getAllByRole("heading", { level: 3 })[0]!.textContent).toBe("Turn: Delete notes.txt");
    t.result = { reverted: [stored({ id: "chg_undel", op: "revert", tool: "revert", revertOf: "chg_del", existedBefore: false, existsAfter: true })] };
    t.replies.Changes = [...fromEvents, del];
    await waitFor(() => expect(t.callsOf("Changes")).toBeGreaterThanOrEqual(2));
    await userEvent.click(within(deleted).getByRole("button", { name: "Restore from trash" }));
    expect(t.reverts).toEqual([{ changeIds: ["chg_del"] }]);
    noDialog();
    // Bringing a file back from the trash says so.
    await waitFor(() => expect(within(panel()).getByRole("status").textContent).toBe("notes.txt is back from the trash.Undo"));
    // Restored (the kernel's file.reverted): no longer said to be in the trash.
    t.replies.Changes = [...fromEvents, { ...del, reverted: true, reverts: ["chg_undel"] }];
    act(() => store.getState().apply([next(store, "file.reverted", { changeId: "chg_undel", revertOf: "chg_del", path: NOTES, op: "revert" })]));
    await waitFor(() => expect(within(row(/notes\.txt, deleted/)).queryByText(/In the trash:/)).toBeNull());
    expect(within(row(/notes\.txt, deleted/)).getByText("Restored to notes.txt.")).toBeTruthy();
  });

  it("shows a cancelled command's changes with its turn, marked cancelled, and reverts the turn", async () => {
    const { t, store } = mount(beforeReverts, fromEvents);
    const half = {
      id: "chg_half", sessionId: SESSION, runId: "run_bash", callId: "call_b", tool: "bash", path: `${WORKDIR}/half.txt`, op: "create",
      existedBefore: false, existsAfter: true, modeAfter: 33188, diff: "--- /dev/null\n+++ b/half.txt\n@@ -0,0 +1 @@\n+half\n", added: 1,
      createdAt: "2026-12-01T11:42:00Z",
    };
    const made = { ...half, id: "chg_made", callId: "call_m", path: `${WORKDIR}/made.txt`, diff: "--- /dev/null\n+++ b/made.txt\n@@ -0,0 +1 @@\n+made\n" };
    act(() => {
      const start = next(store, "run.start", { prompt: "Build it", model: "m", provider: "", workdir: WORKDIR, approvalMode: "full_access", instructions: { status: "none" } }, "run_bash");
      store.getState().apply([start]);
      store.getState().apply([next(store, "tool.end", { id: "call_m", name: "bash", status: "done", durationMs: 5, result: "ok", fileChanges: [made] }, "run_bash")]);
      store.getState().apply([next(store, "tool.end", { id: "call_b", name: "bash", status: "cancelled", durationMs: 9, result: "cancelled: the run was cancelled", fileChanges: [half] }, "run_bash")]);
    });
    // Both changes in the turn's group, the newest turn first.
    const group = within(panel()).getAllByRole("listitem").find((li) => li.getAttribute("aria-labelledby") === "review-group-run_bash")!;
    expect(within(group).getByRole("heading", { level: 3 }).textContent).toBe("Turn: Build it");
    expect(within(group).getByText("2 changes")).toBeTruthy();
    const cancelled = row(/half\.txt, created/);
    expect(within(cancelled).getByText("cancelled")).toBeTruthy();
    expect(within(row(/made\.txt, created/)).queryByText("cancelled")).toBeNull();
    // Revertible like any change, with the turn.
    await userEvent.click(within(group).getByRole("button", { name: "Revert turn" }));
    expect(t.reverts).toEqual([{ runId: "run_bash", dryRun: true }]);
  });

  it("shows an error in words when the revert cannot run", async () => {
    const { t } = mount(beforeReverts, fromEvents);
    t.result = new ApiError("busy", "revert: a run is going; revert once it is done (or cancel the run)");
    await userEvent.click(within(row(/notes\.txt, edited/)).getByRole("button", { name: "Revert" }));
    await waitFor(() => expect(within(dialog()).getByRole("alert").textContent).toBe("revert: a run is going; revert once it is done (or cancel the run)"));
    expect(within(dialog()).queryByRole("button", { name: "Revert" })).toBeNull();
    await userEvent.click(within(dialog()).getByRole("button", { name: "Close" }));
    expect(t.reverts).toHaveLength(1);
  });

  it("says when the list of changes cannot be read", async () => {
    const t = new ReviewTransport({ Changes: new ApiError("unavailable", "the database is closed") });
    const store = createSessionStore(SESSION);
    render(
      <TransportProvider transport={t}>
        <SessionStoreProvider store={store}>
          <ReviewPanel sessionId={SESSION} onClose={() => {}} />
        </SessionStoreProvider>
      </TransportProvider>,
    );
    await waitFor(() => expect(screen.getByRole("alert").textContent).toContain("the database is closed"));
    expect(screen.getByText(/^No file changes in this session yet\. Each file the agent writes, edits or deletes shows here/)).toBeTruthy();
  });

  it("shows the newest 20 turns first, and older ones on request", async () => {
    const l = new Log();
    for (let r = 0; r < 25; r++) {
      l.runStart(`run_${r}`, `prompt ${r}`);
      l.stepStart(`run_${r}`, 1);
      l.call(`run_${r}`, 1, 0, "call_w", "write", "{}");
      l.end(`run_${r}`, 1, 0, "call_w", "write", "done", "ok", { fileChanges: [fileChange(`chg_${r}`, `run_${r}`, "call_w", `${LOG_WORKDIR}/f${r}.txt`, "edit")] });
      l.runEnd(`run_${r}`, "completed");
    }
    const t = new ReviewTransport({ Changes: [] });
    const store = createSessionStore(LOG_SESSION);
    store.getState().apply(l.events);
    render(
      <TransportProvider transport={t}>
        <SessionStoreProvider store={store}>
          <ReviewPanel sessionId={LOG_SESSION} onClose={() => {}} />
        </SessionStoreProvider>
      </TransportProvider>,
    );
    const headings = () => within(panel()).getAllByRole("heading", { level: 3 }).map((h) => h.textContent);
    // The first render draws about a screen's worth (12 changes: 12 turns
    // of one), the rest of the page once that is painted.
    expect(headings()).toHaveLength(12);
    expect(headings()[0]).toBe("Turn: prompt 24");
    await waitFor(() => expect(headings()).toHaveLength(20));
    expect(within(panel()).getByText("25 changes in 25 groups")).toBeTruthy();
    await userEvent.click(screen.getByRole("button", { name: "Show older turns (5 more)" }));
    expect(headings()).toHaveLength(25);
    expect(headings()[24]).toBe("Turn: prompt 0");
    expect(screen.queryByRole("button", { name: /Show older turns/ })).toBeNull();
  });
});
