import { describe, expect, it } from "vitest";
import { session } from "../../backend/fake";
import { folderName, matchSessions, titleOf } from "./search";

describe("matchSessions", () => {
  const all = [session({ id: "a", title: "Ünïcode Title", workdir: "/x/alpha" }), session({ id: "b", title: "", workdir: "C:\\work\\beta" })];
  it.each([
    ["", ["a", "b"]],
    ["   ", ["a", "b"]],
    ["ünï", ["a"]],
    ["ALPHA title", ["a"]],
    ["beta", ["b"]],
    ["alpha beta", []],
  ])("%j keeps %j", (q, want) => {
    expect(matchSessions(all, q).map((s) => s.id)).toEqual(want);
  });
});

describe("titleOf and folderName", () => {
  it("names a blank title Untitled and takes a folder's last element", () => {
    expect(titleOf(session({ title: "  " }))).toBe("Untitled");
    expect(folderName("/home/ada/project/")).toBe("project");
    expect(folderName("C:\\work\\beta")).toBe("beta");
    expect(folderName("/")).toBe("/");
  });
});
