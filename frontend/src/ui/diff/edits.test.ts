import { describe, expect, it } from "vitest";
import type { ChangeData } from "react-diff-view";
import { SIMILAR, lineEdits, pairLines, similarity, words } from "./edits";
import { grouped, parse, zipped } from "./model";

// A hunk whose run of changed lines the backend may write in any order:
// here interleaved, as a "zip" would show it.
const mixed = [
  "--- a/a.go",
  "+++ b/a.go",
  "@@ -1,5 +1,5 @@",
  " package a",
  "-one := 1",
  "+one := 11",
  "-two := 2",
  "+two := 22",
  " // between",
  "-three",
  "+THREE",
  "",
].join("\n");

const signs = (changes: { type: string }[]) =>
  changes.map((c) => (c.type === "delete" ? "-" : c.type === "insert" ? "+" : " ")).join("");

describe("grouped", () => {
  it("puts each run's removed lines before its added lines, unchanged lines in place", () => {
    const h = parse(mixed)!.hunks[0]!;
    expect(signs(h.changes)).toBe(" -+-+ -+");
    const g = grouped(h);
    expect(signs(g.changes)).toBe(" --++ -+");
    expect(g.changes.map((c) => c.content)).toEqual([
      "package a",
      "one := 1",
      "two := 2",
      "one := 11",
      "two := 22",
      "// between",
      "three",
      "THREE",
    ]);
  });

  it("takes turns for the split view, which shows a removed and an added line side by side", () => {
    const h = grouped(parse(mixed)!.hunks[0]!);
    expect(signs(zipped(h).changes)).toBe(" -+-+ -+");
  });
});

describe("words", () => {
  it("splits a line into words, spaces and marks that rebuild it", () => {
    expect(words("a.b(cd, 12) ")).toEqual(["a", ".", "b", "(", "cd", ",", " ", "12", ")", " "]);
    expect(words("été über").join("")).toBe("été über");
  });
});

describe("similarity and lineEdits", () => {
  const cases: { name: string; x: string; y: string; alike: boolean; old?: string[]; new?: string[] }[] = [
    { name: "one word changed", x: "the cat sat on the mat", y: "the dog sat on the mat", alike: true, old: ["cat"], new: ["dog"] },
    { name: "a number changed", x: "const v15 = 15;", y: "const v15 = 1515;", alike: true, old: ["15"], new: ["1515"] },
    { name: "an operator became a call", x: "return a + b;", y: "return sum(a, b);", alike: true, old: ["+"], new: ["sum(", ",", ")"] },
    { name: "an argument added", x: "f(a, b)", y: "f(a, b, c)", alike: true, old: [], new: [", c"] },
    { name: "rewritten", x: "import os", y: "print(len(items))", alike: false },
    { name: "unrelated code lines", x: "  for i := range xs {", y: '  return fmt.Errorf("read %s: %w", p, err)', alike: false },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const e = lineEdits(c.x, c.y);
      expect(e !== null, `lineEdits(${JSON.stringify(c.x)}, ${JSON.stringify(c.y)}) alike; similarity ${similarity(c.x, c.y)}`).toBe(
        c.alike,
      );
      if (e === null) return;
      expect(e.old.map((s) => c.x.slice(s.start, s.start + s.length))).toEqual(c.old);
      expect(e.new.map((s) => c.y.slice(s.start, s.start + s.length))).toEqual(c.new);
    });
  }

  it("joins changed words separated by spaces into one mark", () => {
    const e = lineEdits("let total = price * count + tax;", "let total = cost with discount + tax;")!;
    expect(e).not.toBeNull();
    expect(e.new.map((s) => "let total = cost with discount + tax;".slice(s.start, s.start + s.length))).toEqual([
      "cost with discount",
    ]);
  });

  it("is 1 for the same line and 0 for nothing in common", () => {
    expect(similarity("a b c", "a b c")).toBe(1);
    expect(similarity("abc", "xyz")).toBe(0);
  });
});

describe("pairLines", () => {
  it("pairs alike lines in order and leaves the others unpaired", () => {
    const h = grouped(
      parse(
        [
          "--- a/x",
          "+++ b/x",
          "@@ -1,2 +1,3 @@",
          "-name: foya",
          "-version: 1.0.0",
          "+# a brand new comment line",
          "+name: foya-app",
          "+version: 1.1.0",
          "",
        ].join("\n"),
      )!.hunks[0]!,
    );
    const removed = h.changes.filter((c) => c.type === "delete");
    const added = h.changes.filter((c) => c.type === "insert");
    const pairs = pairLines(removed, added).map((p) => [p.removed.content, p.added.content]);
    expect(pairs).toEqual([
      ["name: foya", "name: foya-app"],
      ["version: 1.0.0", "version: 1.1.0"],
    ]);
  });

  it("pairs a line with its closest match, not the first one alike", () => {
    const line = (type: "delete" | "insert", content: string, n: number): ChangeData =>
      type === "delete"
        ? { type, content, lineNumber: n, isDelete: true }
        : { type, content, lineNumber: n, isInsert: true };
    const removed = [line("delete", "\treturn &DB{db: db}, nil", 11)];
    const added = [
      line("insert", "\tif err := migrate(ctx, db); err != nil {", 11),
      line("insert", "\t\treturn nil, err", 12),
      line("insert", "\t}", 13),
      line("insert", "\treturn &DB{db: db, path: path}, nil", 14),
    ];
    // Alike enough to pair, but not the closest.
    expect(similarity(removed[0]!.content, added[1]!.content)).toBeGreaterThanOrEqual(SIMILAR);
    const pairs = pairLines(removed, added).map((p) => [p.removed.content, p.added.content]);
    expect(pairs).toEqual([["\treturn &DB{db: db}, nil", "\treturn &DB{db: db, path: path}, nil"]]);
  });
});
