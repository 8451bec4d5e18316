import { afterEach, describe, expect, it, vi } from "vitest";
import { act, cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { DiffView, paginate, wrapKey } from "./DiffView";
import { gaps, parse, withGitHeader } from "./model";
import { languageOf, loadLanguage } from "./languages";
/// <reference types="node" />
import { readFileSync } from "node:fs";
import { join } from "node:path";

// Read from disk: vitest hands CSS imports over empty.
const diffCss = readFileSync(join(process.cwd(), "src/ui/diff/diff.css"), "utf8");

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

// A file of 20 lines, lines 3 and 15 changed: two hunks as the backend
// writes them (3 lines of context), 5 unchanged lines between them and 2
// after.
const before = Array.from({ length: 20 }, (_, i) => `const v${i + 1} = ${i + 1};`).join("\n") + "\n";
const diff = [
  "--- a/src/values.ts",
  "+++ b/src/values.ts",
  "@@ -1,6 +1,6 @@",
  " const v1 = 1;",
  " const v2 = 2;",
  "-const v3 = 3;",
  "+const v3 = 33;",
  " const v4 = 4;",
  " const v5 = 5;",
  " const v6 = 6;",
  "@@ -12,7 +12,7 @@",
  " const v12 = 12;",
  " const v13 = 13;",
  " const v14 = 14;",
  "-const v15 = 15;",
  "+const v15 = 1515;",
  " const v16 = 16;",
  " const v17 = 17;",
  " const v18 = 18;",
  "",
].join("\n");

describe("withGitHeader", () => {
  it("adds the git line the parser needs to keep the path", () => {
    expect(withGitHeader("--- a/x.go\n+++ b/x.go\n@@ -1 +1 @@\n-a\n+b\n")).toBe(
      "diff --git a/x.go b/x.go\n--- a/x.go\n+++ b/x.go\n@@ -1 +1 @@\n-a\n+b\n",
    );
    expect(withGitHeader("--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+a\n").split("\n")[0]).toBe(
      "diff --git a/new.txt b/new.txt",
    );
    expect(withGitHeader("--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-a\n").split("\n")[0]).toBe(
      "diff --git a/gone.txt b/gone.txt",
    );
    const already = "diff --git a/x b/x\n--- a/x\n+++ b/x\n";
    expect(withGitHeader(already)).toBe(already);
  });

  it("keeps the path and the kind of change", () => {
    expect(parse(diff)?.newPath).toBe("src/values.ts");
    expect(parse("--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+a\n")?.type).toBe("add");
    expect(parse("--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-a\n")?.type).toBe("delete");
    expect(parse("--- /abs/out.txt\n+++ /abs/out.txt\n@@ -1 +1 @@\n-a\n+b\n")?.hunks).toHaveLength(1);
    expect(parse("Binary files a/x.png and b/x.png differ\n")).toBeNull();
    expect(parse("")).toBeNull();
  });
});

describe("gaps", () => {
  it("counts the unchanged lines between, before and after the hunks", () => {
    const f = parse(diff)!;
    expect(gaps(f.hunks, 20)).toEqual([
      { before: 1, oldFirst: 7, newFirst: 7, count: 5 },
      { before: 2, oldFirst: 19, newFirst: 19, count: 2 },
    ]);
    // Without the old content the lines after the last hunk are unknown: no gap is claimed.
    expect(gaps(f.hunks, -1)).toEqual([{ before: 1, oldFirst: 7, newFirst: 7, count: 5 }]);
    // An insertion after line 5 ("-5,0") leaves lines 1-5 before it.
    const ins = parse("--- a/x\n+++ b/x\n@@ -5,0 +6,1 @@\n+new\n")!;
    expect(gaps(ins.hunks, 8)).toEqual([
      { before: 0, oldFirst: 1, newFirst: 1, count: 5 },
      { before: 1, oldFirst: 6, newFirst: 7, count: 3 },
    ]);
  });
});

describe("languageOf", () => {
  it("maps names and extensions, and nothing else", () => {
    expect(languageOf("/w/src/App.tsx")).toBe("tsx");
    expect(languageOf("main.go")).toBe("go");
    expect(languageOf("build/Dockerfile")).toBe("docker");
    expect(languageOf("Makefile")).toBe("makefile");
    expect(languageOf("notes.txt")).toBe("");
    expect(languageOf(".bashrc")).toBe("");
  });

  it("loads a grammar once and says false for an unknown language", async () => {
    expect(await loadLanguage("go")).toBe(true);
    expect(await loadLanguage("go")).toBe(true);
    expect(await loadLanguage("klingon")).toBe(false);
    expect(await loadLanguage("")).toBe(false);
  });
});

describe("DiffView", () => {
  it("renders each hunk under a row header, in the diff's order", () => {
    render(<DiffView diff={diff} path="src/values.ts" />);
    const table = screen.getByRole("table", { name: "Diff of src/values.ts" });
    const headers = within(table).getAllByRole("rowheader");
    expect(headers.map((h) => h.textContent)).toEqual(["Hunk 1 @@ -1,6 +1,6 @@", "Hunk 2 @@ -12,7 +12,7 @@"]);
    expect(table.textContent).toContain("const v15 = 1515;");
    expect(screen.getByText("5 unchanged lines not shown")).toBeTruthy();
    // No old content: the gap cannot be opened, and no full-file toggle.
    expect(screen.queryByRole("button", { name: /Show 5 unchanged lines/ })).toBeNull();
    expect(screen.queryByRole("button", { name: "Full file" })).toBeNull();
    // Added and removed lines say so in words: their code cell's sign has
    // "added line" or "removed line" as its alternative text (diff.css),
    // with no element of its own in each line.
    expect(table.querySelectorAll("td.diff-code-insert")).toHaveLength(2);
    expect(table.querySelectorAll("td.diff-code-delete")).toHaveLength(2);
    expect(diffCss).toMatch(/\.diff-code-insert::before \{[^}]*content: "\+" \/ "added line ";/);
    expect(diffCss).toMatch(/\.diff-code-delete::before \{[^}]*content: "-" \/ "removed line ";/);
  });

  it("has one comment button for the lines: by the line under the mouse, moved by Up and Down", async () => {
    const onComment = vi.fn();
    render(<DiffView diff={diff} path="src/values.ts" onComment={onComment} />);
    // Not one per line: before the mouse moves it is by the first line of the after side.
    expect(screen.getAllByRole("button", { name: /^Comment on line/ })).toHaveLength(1);
    const button = () => screen.getByRole("button", { name: /^Comment on line/ });
    expect(button().getAttribute("aria-label")).toBe("Comment on line 1");
    const row = (text: string) => [...document.querySelectorAll("td.diff-code")].find((td) => td.textContent === text)!.closest("tr")!;
    moveOver(row("const v15 = 1515;"));
    await userEvent.click(screen.getByRole("button", { name: "Comment on line 15" }));
    expect(onComment).toHaveBeenLastCalledWith({ start: 15, end: 15 });
    // A removed line has no line of the after side: the button stays.
    moveOver(row("const v15 = 15;"));
    expect(button().getAttribute("aria-label")).toBe("Comment on line 15");
    // A line passing under a still mouse while the view scrolls does not
    // move it (nor measure anything in the frames of the scroll).
    fireEvent.mouseMove(row("const v4 = 4;"), { movementX: 0, movementY: 0 });
    expect(button().getAttribute("aria-label")).toBe("Comment on line 15");
    // From the keyboard: Down and Up go to the next and previous line of
    // the after side, across hunks, skipping removed lines.
    button().focus();
    await userEvent.keyboard("{ArrowDown}");
    expect(button().getAttribute("aria-label")).toBe("Comment on line 16");
    expect(document.activeElement).toBe(button());
    moveOver(row("const v3 = 33;"));
    await userEvent.keyboard("{ArrowUp}");
    expect(button().getAttribute("aria-label")).toBe("Comment on line 2");
    await userEvent.keyboard("{ArrowDown}{ArrowDown}{Enter}");
    expect(onComment).toHaveBeenLastCalledWith({ start: 4, end: 4 });
    // Without onComment there is none.
    cleanup();
    render(<DiffView diff={diff} path="src/values.ts" />);
    expect(screen.queryByRole("button", { name: /^Comment on line/ })).toBeNull();
  });

  it("calls onRevertHunk with the hunk's number from 1", async () => {
    const onRevertHunk = vi.fn();
    render(<DiffView diff={diff} path="src/values.ts" onRevertHunk={onRevertHunk} />);
    await userEvent.click(screen.getByRole("button", { name: "Revert hunk 2" }));
    expect(onRevertHunk).toHaveBeenCalledWith(2);
    await userEvent.click(screen.getByRole("button", { name: "Revert hunk 1" }));
    expect(onRevertHunk).toHaveBeenLastCalledWith(1);
  });

  it("disables the hunk actions while busy", () => {
    render(<DiffView diff={diff} onRevertHunk={() => {}} busy />);
    expect((screen.getByRole("button", { name: "Revert hunk 1" }) as HTMLButtonElement).disabled).toBe(true);
  });

  it("switches between unified and split", async () => {
    const onModeChange = vi.fn();
    render(<DiffView diff={diff} path="src/values.ts" onModeChange={onModeChange} />);
    const table = screen.getByRole("table");
    expect(table.className).toContain("diff-unified");
    const split = screen.getByRole("button", { name: "Split" });
    expect(split.getAttribute("aria-pressed")).toBe("false");
    await userEvent.click(split);
    expect(screen.getByRole("table").className).toContain("diff-split");
    expect(split.getAttribute("aria-pressed")).toBe("true");
    expect(onModeChange).toHaveBeenCalledWith("split");
    // A split row shows the old and the new line side by side.
    const cell = [...document.querySelectorAll("td.diff-code")].find((td) => td.textContent === "const v15 = 1515;");
    const row = cell!.closest("tr")!;
    expect(row.textContent).toContain("const v15 = 15;");
  });

  it("opens a collapsed region and shows the whole file with the old content", async () => {
    render(<DiffView diff={diff} path="src/values.ts" oldSource={before} />);
    const table = () => screen.getByRole("table");
    expect(table().textContent).not.toContain("const v9 = 9;");
    await userEvent.click(screen.getByRole("button", { name: "Show 5 unchanged lines" }));
    expect(table().textContent).toContain("const v9 = 9;");
    expect(table().textContent).not.toContain("const v20 = 20;");
    // The hunks keep their numbers after the region opened.
    expect(within(table()).getAllByRole("rowheader")).toHaveLength(2);
    expect(screen.getByText("2 unchanged lines not shown")).toBeTruthy();
    const full = screen.getByRole("button", { name: "Full file" });
    await userEvent.click(full);
    expect(full.getAttribute("aria-pressed")).toBe("true");
    expect(table().textContent).toContain("const v20 = 20;");
    expect(screen.queryByText(/unchanged lines? not shown/)).toBeNull();
    for (let i = 1; i <= 20; i++) expect(table().textContent).toContain(`const v${i} =`);
  });

  it("highlights with the file's language once its grammar is loaded", async () => {
    const { container } = render(<DiffView diff={diff} path="src/values.ts" />);
    await waitFor(() => expect(container.querySelector(".token.keyword")).not.toBeNull());
    expect(container.querySelector(".token.keyword")?.textContent).toBe("const");
  });

  it("highlights hunks far down a file on their own lines, a few hunks at a time", async () => {
    // Two hunks of one page, one at line 4000: each is highlighted apart
    // (numbered from line 1), and its tokens go back to its own lines.
    const far = [
      "--- a/far.ts",
      "+++ b/far.ts",
      "@@ -10,2 +10,2 @@",
      ...Array.from({ length: 10 }, (_, i) => ` const near${i} = ${i};`),
      "-const a = 1;",
      "+const a = 2;",
      "@@ -4000,2 +4000,2 @@",
      ...Array.from({ length: 10 }, (_, i) => ` let far${i} = ${i};`),
      "-var b = 1;",
      "+const b = 2;",
      "",
    ].join("\n");
    const { container } = render(<DiffView diff={far} path="far.ts" />);
    const code = (text: string) => [...container.querySelectorAll("td.diff-code")].find((td) => td.textContent === text)!;
    await waitFor(() => expect(code("const b = 2;").querySelector(".token.keyword")?.textContent).toBe("const"));
    expect(code("var b = 1;").querySelector(".token.keyword")?.textContent).toBe("var");
    expect(code("let far9 = 9;").querySelector(".token.keyword")?.textContent).toBe("let");
    expect(code("const a = 1;").querySelector(".token.keyword")?.textContent).toBe("const");
    expect(code("const a = 2;").querySelector(".diff-code-edit")?.textContent).toBe("2");
    // Every line kept its own text.
    expect(code("const near0 = 0;")).toBeTruthy();
    expect(code("let far0 = 0;")).toBeTruthy();
  });

  it("marks the words that changed within a changed line", async () => {
    const { container } = render(<DiffView diff={"--- a/n.txt\n+++ b/n.txt\n@@ -1 +1 @@\n-the cat sat\n+the dog sat\n"} path="n.txt" />);
    // Marked once the browser is idle: a page is drawn as plain text first.
    await waitFor(() => expect(container.querySelector(".diff-code-edit")).not.toBeNull());
    const edits = [...container.querySelectorAll(".diff-code-edit")].map((e) => e.textContent);
    expect(edits).toEqual(["cat", "dog"]);
  });

  it("shows each run's removed lines before its added lines in the unified view", () => {
    const zip = "--- a/n.txt\n+++ b/n.txt\n@@ -1,2 +1,2 @@\n-alpha one\n+alpha 1\n-beta two\n+beta 2\n";
    const { container } = render(<DiffView diff={zip} path="n.txt" mode="unified" />);
    const rows = [...container.querySelectorAll("td.diff-code")].map(
      (td) => `${td.classList.contains("diff-code-delete") ? "-" : "+"}${td.textContent}`,
    );
    expect(rows).toEqual(["-alpha one", "-beta two", "+alpha 1", "+beta 2"]);
  });

  it("marks words only in lines changed a little, never in a line rewritten", async () => {
    const d = [
      "--- a/n.txt",
      "+++ b/n.txt",
      "@@ -1,2 +1,2 @@",
      "-the quick brown fox jumps",
      "-import os",
      "+the quick red fox jumps",
      "+print(len(items))",
      "",
    ].join("\n");
    const { container } = render(<DiffView diff={d} path="n.txt" />);
    await waitFor(() => expect(container.querySelector(".diff-code-edit")).not.toBeNull());
    const edits = [...container.querySelectorAll(".diff-code-edit")].map((e) => e.textContent);
    expect(edits).toEqual(["brown", "red"]);
    const line = (text: string) => [...container.querySelectorAll("td.diff-code")].find((td) => td.textContent === text)!;
    expect(line("import os").querySelector(".diff-code-edit")).toBeNull();
    expect(line("print(len(items))").querySelector(".diff-code-edit")).toBeNull();
  });

  it("wraps long lines or scrolls them, and keeps the choice", async () => {
    localStorage.removeItem(wrapKey);
    const { container, unmount } = render(<DiffView diff={diff} path="src/values.ts" />);
    const toggle = screen.getByRole("button", { name: "Wrap lines" });
    expect(toggle.getAttribute("aria-pressed")).toBe("true");
    expect(container.querySelector(".diffview-wrap")).not.toBeNull();
    await userEvent.click(toggle);
    expect(toggle.getAttribute("aria-pressed")).toBe("false");
    expect(container.querySelector(".diffview-nowrap")).not.toBeNull();
    expect(localStorage.getItem(wrapKey)).toBe("false");
    unmount();
    render(<DiffView diff={diff} path="src/values.ts" />);
    expect(screen.getByRole("button", { name: "Wrap lines" }).getAttribute("aria-pressed")).toBe("false");
    localStorage.removeItem(wrapKey);
  });

  it("follows a layout its parent holds", () => {
    const { rerender } = render(<DiffView diff={diff} mode="unified" />);
    expect(screen.getByRole("table").className).toContain("diff-unified");
    rerender(<DiffView diff={diff} mode="split" />);
    expect(screen.getByRole("table").className).toContain("diff-split");
  });

  it("shows a note for text that is no diff", () => {
    render(<DiffView diff={"Binary files a/x.png and b/x.png differ\n"} path="x.png" />);
    expect(screen.getByText("Binary files a/x.png and b/x.png differ")).toBeTruthy();
    expect(screen.queryByRole("table")).toBeNull();
  });

  it("shows a created file (no old side)", () => {
    render(<DiffView diff={"--- /dev/null\n+++ b/notes.txt\n@@ -0,0 +1 @@\n+hello\n"} path="notes.txt" />);
    expect(screen.getByRole("table", { name: "Diff of notes.txt" }).textContent).toContain("hello");
  });
});

describe("DiffView hunk state and long diffs", () => {
  it("cuts hunks into pages, a long one continued on the next", () => {
    const hunk = (n: number, index: number) => ({ hunk: parse(`--- a/x\n+++ b/x\n@@ -1,${n} +1,${n} @@\n${" x\n".repeat(n)}`)!.hunks[0]!, index, gap: null });
    const pages = paginate([hunk(3, 1), hunk(5, 2), hunk(1, 3)], 4);
    expect(pages.map((p) => p.map((s) => `${s.index}:${s.hunk.changes.length}${s.continued ? "+" : ""}`))).toEqual([
      ["1:3", "2:1"],
      ["2:4+"],
      ["3:1"],
    ]);
  });

  it("marks reverted hunks and shows the actions the caller gives", () => {
    render(
      <DiffView
        diff={diff}
        path="src/values.ts"
        revertedHunks={[1]}
        hunkIdPrefix="h"
        hunkActions={(n) => <button type="button">{n === 1 ? "Undo hunk 1" : `Revert hunk ${n}`}</button>}
      />,
    );
    const headers = screen.getAllByRole("rowheader");
    expect(headers[0]!.textContent).toMatch(/^Hunk 1reverted: these lines are as they were before/);
    expect(headers[1]!.textContent).not.toMatch(/reverted/);
    expect(headers[0]!.id).toBe("h-1");
    expect(screen.getByRole("button", { name: "Undo hunk 1" })).toBeTruthy();
    expect(screen.getByRole("button", { name: "Revert hunk 2" })).toBeTruthy();
    expect(headers[0]!.closest("tbody")!.classList.contains("diffview-hunk-reverted")).toBe(true);
  });

  const created = (n: number) =>
    ["--- /dev/null", "+++ b/big.txt", `@@ -0,0 +1,${n} @@`, ...Array.from({ length: n }, (_, i) => `+line ${i + 1}`), ""].join("\n");

  it("draws only the pages near the view; the others are boxes of their height", () => {
    const io = fakeObserver();
    render(<DiffView diff={created(10000)} path="big.txt" pageLines={100} />);
    const rows = () => document.querySelectorAll("table tr.diff-line").length;
    const slot = (i: number) => document.querySelector<HTMLElement>(`[data-page="${i}"]`)!;
    // At first only the first page is drawn; the 99 others are empty
    // boxes, each as high as its rows are guessed to be.
    expect(document.querySelectorAll("[data-page]")).toHaveLength(100);
    expect(rows()).toBe(100);
    expect(screen.getByRole("table", { name: "Diff of big.txt" })).toBeTruthy();
    expect(slot(50).dataset.drawn).toBe("false");
    expect(slot(50).querySelector("table")).toBeNull();
    expect(parseFloat(slot(50).style.height)).toBeGreaterThan(0);
    // Scrolled to the middle: the pages there are drawn, the first is
    // dropped (its box stays).
    io.report([0, false], [49, true], [50, true]);
    expect(rows()).toBe(200);
    expect(slot(0).querySelector("table")).toBeNull();
    expect(slot(0).dataset.drawn).toBe("false");
    expect(screen.getByRole("table", { name: "Diff of big.txt, continued (50)" })).toBeTruthy();
    expect(slot(50).querySelector("tr.diff-line")!.textContent).toContain("line 5001");
    // A page holding the focus is kept when it scrolls away: the focus
    // (and the keys of keyboard review) would go with it.
    slot(50).querySelector<HTMLElement>("td")!.tabIndex = -1;
    slot(50).querySelector<HTMLElement>("td")!.focus();
    io.report([49, false], [50, false], [80, true]);
    expect(slot(49).dataset.drawn).toBe("false");
    expect(slot(50).dataset.drawn).toBe("true");
    expect(slot(80).dataset.drawn).toBe("true");
  });

  it("draws the page of a hunk a jump asks for, and focuses its header", () => {
    fakeObserver();
    // 60 hunks of 10 lines: pages of 100 lines hold 10 hunks (and their headers).
    const body: string[] = ["--- a/many.txt", "+++ b/many.txt"];
    for (let h = 0; h < 60; h++) {
      const at = h * 20 + 1;
      body.push(`@@ -${at},10 +${at},10 @@`);
      for (let l = 0; l < 9; l++) body.push(` same ${at + l}`);
      body.push(`-old ${at + 9}`, `+new ${at + 9}`);
    }
    const many = body.join("\n") + "\n";
    const { rerender } = render(<DiffView diff={many} path="many.txt" pageLines={100} hunkIdPrefix="h" />);
    expect(document.getElementById("h-1")).toBeTruthy();
    expect(document.getElementById("h-45")).toBeNull();
    rerender(<DiffView diff={many} path="many.txt" pageLines={100} hunkIdPrefix="h" revealHunk={45} />);
    const head = document.getElementById("h-45");
    expect(head).toBeTruthy();
    expect(document.activeElement).toBe(head);
    expect(head!.textContent).toContain("Hunk 45");
    // The pages between stay boxes.
    expect(document.getElementById("h-25")).toBeNull();
    expect(document.querySelectorAll("table tr.diff-line").length).toBeLessThan(300);
  });
});

// fakeObserver puts in place an IntersectionObserver the test drives:
// report([page, near], ...) tells the view which pages' boxes came near
// the view or left it.
function fakeObserver() {
  const observers: { cb: IntersectionObserverCallback; els: Element[] }[] = [];
  class Fake {
    private o: { cb: IntersectionObserverCallback; els: Element[] };
    constructor(cb: IntersectionObserverCallback) {
      this.o = { cb, els: [] };
      observers.push(this.o);
    }
    observe(el: Element) {
      this.o.els.push(el);
    }
    unobserve() {}
    disconnect() {
      const i = observers.indexOf(this.o);
      if (i >= 0) observers.splice(i, 1);
    }
    takeRecords() {
      return [];
    }
  }
  vi.stubGlobal("IntersectionObserver", Fake);
  return {
    report(...pages: [number, boolean][]) {
      act(() => {
        for (const o of observers) {
          const entries = pages.flatMap(([page, near]) =>
            o.els
              .filter((el) => (el as HTMLElement).dataset.page === String(page))
              .map((target) => ({ target, isIntersecting: near }) as unknown as IntersectionObserverEntry),
          );
          if (entries.length > 0) o.cb(entries, this as unknown as IntersectionObserver);
        }
      });
    },
  };
}

// moveOver moves the mouse onto el (a move of its own, not a line passing
// under a still mouse while the view scrolls).
function moveOver(el: Element) {
  fireEvent.mouseMove(el, { movementX: 1, movementY: 1 });
}
