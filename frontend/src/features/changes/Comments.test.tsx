// Review comments in the panel, mounted as the shell mounts the panel: a
// FakeTransport answering the kernel's calls and the session's real store
// fed one turn that edited a file.
import { act, cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it } from "vitest";
import { TransportProvider } from "../../backend/context";
import { ApiError } from "../../backend/errors";
import { FakeTransport } from "../../backend/fake";
import type { Comment } from "../../backend/gen/kernel";
import { SessionStoreProvider } from "../session/hooks";
import { createSessionStore } from "../session/store";
import { Log, SESSION, WORKDIR, fileChange } from "../eventstest";
import { ReviewPanel } from "./index";

afterEach(cleanup);

const NOTES = `${WORKDIR}/notes.txt`;
const EDIT = "chg_edit";
const DIFF = "--- a/notes.txt\n+++ b/notes.txt\n@@ -1,4 +1,4 @@\n one\n-two\n+TWO\n three\n four\n";

function comment(c: Partial<Comment> & { id: string }): Comment {
  return {
    sessionId: SESSION,
    changeId: EDIT,
    path: NOTES,
    startLine: 2,
    endLine: 2,
    quote: "TWO\n",
    text: "lower case, please",
    state: "open",
    sent: false,
    createdAt: "2026-12-01T11:00:05Z",
    updatedAt: "2026-12-01T11:00:05Z",
    ...c,
  };
}

function mount(comments: Comment[]) {
  const l = new Log();
  l.runStart("run_1", "Make two upper case");
  l.stepStart("run_1", 1);
  l.call("run_1", 1, 0, "call_e", "edit", "{}");
  l.end("run_1", 1, 0, "call_e", "edit", "done", "ok", { fileChanges: [fileChange(EDIT, "run_1", "call_e", NOTES, "edit")] });
  l.runEnd("run_1", "completed");
  const t = new FakeTransport({
    Changes: [],
    Diff: DIFF,
    ChangeContents: { changeId: EDIT, before: "one\ntwo\nthree\nfour\n", beforeKnown: true, after: "one\nTWO\nthree\nfour\n", afterKnown: true },
    Comments: comments,
    AddComment: comment({ id: "cmt_new" }),
    EditComment: comment({ id: "cmt_1" }),
    RemoveComment: undefined,
    SendComments: "run_2",
  });
  const store = createSessionStore(SESSION);
  store.getState().apply(l.events);
  render(
    <TransportProvider transport={t}>
      <SessionStoreProvider store={store}>
        <ReviewPanel sessionId={SESSION} onClose={() => {}} />
      </SessionStoreProvider>
    </TransportProvider>,
  );
  return { t, store, l };
}

const panel = () => screen.getByRole("complementary", { name: "Review changes" });
const argsOf = (t: FakeTransport, method: string) => t.calls.filter((c) => c.method === method).map((c) => c.args);

// lineOf is the row of the diff in row whose code is text.
function lineOf(row: HTMLElement, text: string): HTMLElement {
  const cell = [...row.querySelectorAll("td.diff-code")].find((td) => td.textContent === text);
  return cell!.closest("tr")!;
}

async function openDiff() {
  const row = within(panel()).getByRole("listitem", { name: /^notes\.txt, edited/ });
  await userEvent.click(within(row).getByRole("button", { name: "Show diff" }));
  await waitFor(() => expect(within(row).getByRole("table", { name: "Diff of notes.txt" })).toBeTruthy());
  return row;
}

describe("review comments", () => {
  it("adds a comment on a line: Ctrl+Enter saves it, and the list shows it", async () => {
    const { t } = mount([]);
    expect(within(panel()).queryByRole("heading", { name: /^Comments/ })).toBeNull();
    const row = await openDiff();
    // One comment button for the diff's lines: by the line under the mouse.
    moveOver(lineOf(row, "TWO"));
    await userEvent.click(within(row).getByRole("button", { name: "Comment on line 2" }));
    const box = within(row).getByRole("textbox", { name: "Comment on notes.txt line 2" });
    expect(document.activeElement).toBe(box);
    await userEvent.type(box, "lower case, please");
    t.replies.Comments = [comment({ id: "cmt_new" })];
    await userEvent.keyboard("{Control>}{Enter}{/Control}");
    expect(argsOf(t, "AddComment")).toEqual([[{ changeId: EDIT, startLine: 2, endLine: 2, text: "lower case, please" }]]);
    await waitFor(() => expect(within(row).queryByRole("textbox")).toBeNull());
    await waitFor(() => expect(within(panel()).getByRole("heading", { name: "Comments (1)" })).toBeTruthy());
    const item = within(panel()).getByRole("listitem", { name: "Comment on notes.txt line 2" });
    expect(within(item).getByText("lower case, please")).toBeTruthy();
    expect(within(item).getByText("not sent")).toBeTruthy();
    expect(within(item).getByLabelText("Lines quoted from notes.txt").textContent).toBe("TWO\n");
  });

  it("comments on a hunk's lines, and Escape cancels without saving", async () => {
    const { t } = mount([]);
    const row = await openDiff();
    await userEvent.click(within(row).getByRole("button", { name: "Comment on hunk 1" }));
    const box = within(row).getByRole("textbox", { name: "Comment on notes.txt lines 1-4" });
    await userEvent.type(box, "never mind");
    await userEvent.keyboard("{Escape}");
    expect(within(row).queryByRole("textbox")).toBeNull();
    expect(argsOf(t, "AddComment")).toEqual([]);
    await userEvent.click(within(row).getByRole("button", { name: "Comment on hunk 1" }));
    await userEvent.type(within(row).getByRole("textbox", { name: "Comment on notes.txt lines 1-4" }), "split this hunk");
    await userEvent.click(within(row).getByRole("button", { name: "Save comment" }));
    expect(argsOf(t, "AddComment")).toEqual([[{ changeId: EDIT, startLine: 1, endLine: 4, text: "split this hunk" }]]);
  });

  it("keeps the text and says why when the kernel refuses the comment", async () => {
    const { t } = mount([]);
    t.replies.AddComment = new ApiError("invalid", "the comment is empty: write what the agent should do about these lines");
    const row = await openDiff();
    moveOver(lineOf(row, "three"));
    await userEvent.click(within(row).getByRole("button", { name: "Comment on line 3" }));
    const box = within(row).getByRole("textbox", { name: "Comment on notes.txt line 3" });
    await userEvent.type(box, "   ");
    await userEvent.keyboard("{Control>}{Enter}{/Control}");
    await waitFor(() =>
      expect(within(row).getByRole("alert").textContent).toBe("the comment is empty: write what the agent should do about these lines"),
    );
    expect(within(row).getByRole("textbox", { name: "Comment on notes.txt line 3" })).toBeTruthy();
    expect((box as HTMLTextAreaElement).value).toBe("   ");
  });

  it("lists comments with their state, edits and removes them", async () => {
    const { t } = mount([
      comment({ id: "cmt_1" }),
      comment({ id: "cmt_2", startLine: 3, endLine: 4, quote: "three\nfour\n", text: "fine", state: "addressed", sent: true, addressedBy: "chg_2" }),
      comment({ id: "cmt_3", startLine: 1, endLine: 1, quote: "one\n", text: "moved", moved: true, currentStart: 2, currentEnd: 2, current: "one\n" }),
    ]);
    await waitFor(() => expect(within(panel()).getByRole("heading", { name: "Comments (3)" })).toBeTruthy());
    const list = within(panel()).getByRole("list", { name: "Comments" });
    expect(within(within(list).getByRole("listitem", { name: "Comment on notes.txt lines 3-4" })).getByText("addressed")).toBeTruthy();
    const moved = within(list).getByRole("listitem", { name: "Comment on notes.txt line 1" });
    expect(within(moved).getByText(/The lines moved or changed since this comment was made; it is sent with the file's current line 2\./)).toBeTruthy();

    await userEvent.click(within(list).getByRole("button", { name: "Edit the comment on notes.txt line 2" }));
    const box = within(list).getByRole("textbox", { name: "Edit the comment on notes.txt line 2" });
    expect((box as HTMLTextAreaElement).value).toBe("lower case, please");
    await userEvent.clear(box);
    await userEvent.type(box, "Title Case");
    await userEvent.keyboard("{Control>}{Enter}{/Control}");
    expect(argsOf(t, "EditComment")).toEqual([["cmt_1", "Title Case"]]);
    await waitFor(() => expect(within(list).queryByRole("textbox")).toBeNull());

    await userEvent.click(within(list).getByRole("button", { name: "Remove the comment on notes.txt lines 3-4" }));
    expect(argsOf(t, "RemoveComment")).toEqual([["cmt_2"]]);
  });

  it("sends the comments to the agent, then shows them sent; a refusal is shown in words", async () => {
    const { t } = mount([comment({ id: "cmt_1" }), comment({ id: "cmt_2", startLine: 3, endLine: 3, quote: "three\n", text: "and this" })]);
    const send = await within(panel()).findByRole("button", { name: "Send to the agent" });
    t.replies.SendComments = new ApiError(
      "busy",
      "the comments were not sent: session ses_01: the session already has a run going; wait for the run to end or stop it, then send them again (they are kept)",
    );
    await userEvent.click(send);
    await waitFor(() => expect(within(panel()).getByRole("alert").textContent).toMatch(/wait for the run to end or stop it/));
    t.replies.SendComments = "run_2";
    t.replies.Comments = [comment({ id: "cmt_1", state: "sent", sent: true }), comment({ id: "cmt_2", startLine: 3, endLine: 3, quote: "three\n", text: "and this", state: "sent", sent: true })];
    await userEvent.click(send);
    expect(argsOf(t, "SendComments")).toEqual([[SESSION], [SESSION]]);
    await waitFor(() => expect(within(panel()).getByText("2 comments sent to the agent.")).toBeTruthy());
    expect(within(panel()).queryByRole("alert")).toBeNull();
    const list = within(panel()).getByRole("list", { name: "Comments" });
    await waitFor(() => expect(within(list).getAllByText("sent")).toHaveLength(2));
    expect((send as HTMLButtonElement).disabled).toBe(true);
  });

  it("reads the comments again when the session's changes change: a later change may address one", async () => {
    const { t, store, l } = mount([comment({ id: "cmt_1", state: "sent", sent: true })]);
    await waitFor(() => expect(within(panel()).getByRole("heading", { name: "Comments (1)" })).toBeTruthy());
    expect(t.callsOf("Comments")).toBe(1);
    t.replies.Comments = [comment({ id: "cmt_1", state: "addressed", sent: true, addressedBy: "chg_fix" })];
    const from = l.events.length;
    l.runStart("run_2", "Review comments on your changes");
    l.stepStart("run_2", 1);
    l.call("run_2", 1, 0, "call_f", "edit", "{}");
    l.end("run_2", 1, 0, "call_f", "edit", "done", "ok", { fileChanges: [fileChange("chg_fix", "run_2", "call_f", NOTES, "edit")] });
    act(() => store.getState().apply(l.events.slice(from)));
    await waitFor(() => expect(t.callsOf("Comments")).toBe(2));
    const item = within(panel()).getByRole("listitem", { name: "Comment on notes.txt line 2" });
    await waitFor(() => expect(within(item).getByText("addressed")).toBeTruthy());
  });
});

// moveOver moves the mouse onto el (a move of its own, not a line passing
// under a still mouse while the view scrolls).
function moveOver(el: Element) {
  fireEvent.mouseMove(el, { movementX: 1, movementY: 1 });
}
