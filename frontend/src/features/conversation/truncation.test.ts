import { describe, expect, it } from "vitest";
import { truncationNotices } from "./truncation";

describe("truncationNotices", () => {
  const cases: [string, string, string[]][] = [
    ["no notice", "hello\nworld\n", []],
    [
      "shell output (tools.Cut.Notice, tail kept)",
      "[40 lines (2,000 bytes) of 840 lines (34,768 bytes) left out before this] Narrow the command's output (grep, head, tail) to see less.\nPASS\n",
      ["[40 lines (2,000 bytes) of 840 lines (34,768 bytes) left out before this] Narrow the command's output (grep, head, tail) to see less."],
    ],
    [
      "read",
      "1\tpackage main\n\n[Showing lines 1-2000 of 5000 (the file is 90000 bytes). Not shown: lines 2001-5000 after (3000 lines, 60000 bytes). To read on, call read with offset=2001.]\n",
      ["[Showing lines 1-2000 of 5000 (the file is 90000 bytes). Not shown: lines 2001-5000 after (3000 lines, 60000 bytes). To read on, call read with offset=2001.]"],
    ],
    [
      "bash_output ring buffer",
      "[1,024 bytes of new output were overwritten in the bounded buffer before this read (their lines are not counted)]\nok\n",
      ["[1,024 bytes of new output were overwritten in the bounded buffer before this read (their lines are not counted)]"],
    ],
    [
      "glob",
      "a.go\nb.go\n40 matches; the first 20 (by path) are shown, 20 left out: narrow the pattern or the path.",
      ["40 matches; the first 20 (by path) are shown, 20 left out: narrow the pattern or the path."],
    ],
    ["a bounded error", "grep: bad pattern aaaa ... (9000 more bytes of this message left out)", ["(9000 more bytes of this message left out)"]],
    ["words alone are no notice", "the parts left out of the plan\n", []],
  ];
  for (const [name, text, want] of cases) {
    it(name, () => expect(truncationNotices(text)).toEqual(want));
  }
});
