import { afterEach, describe, expect, it, vi } from "vitest";
import { cleanup, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { DiffView, paginate, wrapKey } from "./DiffView";
import { gaps, parse, withGitHeader } from "./model";
import { languageOf, loadLanguage } from "./languages";

afterEach(cleanup);

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
    // Added and removed lines say so in words.
    expect(within(table).getAllByText(/added line/)).toHaveLength(2);
    expect(within(table).getAllByText(/removed line/)).toHaveLength(2);
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

  it("marks the words that changed within a changed line", () => {
    const { container } = render(<DiffView diff={"--- a/n.txt\n+++ b/n.txt\n@@ -1 +1 @@\n-the cat sat\n+the dog sat\n"} path="n.txt" />);
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

  it("marks words only in lines changed a little, never in a line rewritten", () => {
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

  it("draws a 10,000-line diff a page at a time", async () => {
    render(<DiffView diff={created(10000)} path="big.txt" pageLines={100} />);
    expect(screen.getByRole("table", { name: "Diff of big.txt" })).toBeTruthy();
    const rows = () => document.querySelectorAll("table tr.diff-line").length;
    expect(rows()).toBe(100);
    expect(screen.getByRole("status").textContent).toBe("100 of 10,000 lines shown; the next 100 come as you scroll.");
    await userEvent.click(screen.getByRole("button", { name: "Show 100 more lines" }));
    expect(rows()).toBe(200);
    // The next page is a table of its own: the first is not drawn again.
    expect(screen.getByRole("table", { name: "Diff of big.txt, continued (2)" })).toBeTruthy();
  });

  it("draws the rest on request", async () => {
    render(<DiffView diff={created(250)} path="big.txt" pageLines={100} />);
    const rows = () => document.querySelectorAll("table tr.diff-line").length;
    expect(rows()).toBe(100);
    await userEvent.click(screen.getByRole("button", { name: "Show all" }));
    expect(rows()).toBe(250);
    expect(screen.queryByRole("status")).toBeNull();
  });
});
