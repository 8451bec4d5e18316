// The review panel's "Export patch" and "Compare with git HEAD": the
// export saved as a download in the browser and through the desktop's save
// dialog, its notes shown; an empty session said; the comparison listing
// each file with its diff, the untracked files, a truncated diff and
// git's errors.
import { cleanup, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { TransportProvider } from "../../backend/context";
import { ApiError } from "../../backend/errors";
import { FakeTransport } from "../../backend/fake";
import type { GitDiff, SessionPatch } from "../../backend/gen/kernel";
import { useBeyond } from "./Beyond";
import { splitGitDiff } from "./gitdiff";

const SESSION = "ses_1";

function Host() {
  const b = useBeyond(SESSION);
  return (
    <div>
      {b.actions}
      {b.view}
    </div>
  );
}

function mount(replies: Record<string, unknown>) {
  const t = new FakeTransport(replies);
  render(
    <TransportProvider transport={t}>
      <Host />
    </TransportProvider>,
  );
  return t;
}

const patch: SessionPatch = {
  sessionId: SESSION,
  name: "Fix the parser.patch",
  text: "# Foya session\ndiff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+two\n",
  files: 1,
  notes: ["big.bin: binary contents: the patch says only that they differ, git apply cannot make them"],
};

const gitText =
  "diff --git a/main.go b/main.go\nindex 1111111..2222222 100644\n--- a/main.go\n+++ b/main.go\n@@ -1,2 +1,2 @@\n package main\n-// two\n+// TWO\n" +
  "diff --git a/gone.txt b/gone.txt\ndeleted file mode 100644\nindex 3333333..0000000\n--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n" +
  "diff --git a/logo.png b/logo.png\nindex 4444444..5555555 100644\nBinary files a/logo.png and b/logo.png differ\n";

let clicked: { name: string; href: string; text: Promise<string> }[] = [];
let blobs: Map<string, Blob>;

beforeEach(() => {
  clicked = [];
  blobs = new Map();
  let n = 0;
  URL.createObjectURL = (b: Blob | MediaSource) => {
    const url = `blob:test/${++n}`;
    blobs.set(url, b as Blob);
    return url;
  };
  URL.revokeObjectURL = () => {};
  vi.spyOn(HTMLAnchorElement.prototype, "click").mockImplementation(function (this: HTMLAnchorElement) {
    const b = blobs.get(this.href);
    clicked.push({ name: this.download, href: this.href, text: b ? b.text() : Promise.resolve("") });
  });
});

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
  delete (window as { go?: unknown }).go;
  delete (window as { runtime?: unknown }).runtime;
});

describe("Export patch", () => {
  it("downloads the session's patch in the browser, named for the session, and lists what it leaves out", async () => {
    const t = mount({ SessionPatch: patch });
    await userEvent.click(screen.getByRole("button", { name: "Export patch" }));
    await screen.findByText(/Downloaded Fix the parser\.patch: the patch of 1 file/);
    expect(t.calls.find((c) => c.method === "SessionPatch")?.args).toEqual([SESSION]);
    expect(clicked.map((c) => c.name)).toEqual(["Fix the parser.patch"]);
    expect(await clicked[0]!.text).toBe(patch.text);
    expect(screen.getByText(/big\.bin: binary contents/)).toBeTruthy();
  });

  it("says so and downloads nothing when the session's changes add up to nothing", async () => {
    mount({ SessionPatch: { ...patch, files: 0, notes: [], text: "# empty\n" } });
    await userEvent.click(screen.getByRole("button", { name: "Export patch" }));
    await screen.findByText(/Nothing to export: this session's changes add up to no change to any file/);
    expect(clicked).toEqual([]);
  });

  it("saves through the desktop's save dialog, not a download, in the desktop window", async () => {
    const saved: unknown[][] = [];
    Object.assign(window, {
      runtime: { EventsOn: () => () => {} },
      go: { main: { App: { SaveText: (...a: unknown[]) => (saved.push(a), Promise.resolve("/home/me/x.patch")) } } },
    });
    mount({ SessionPatch: patch });
    await userEvent.click(screen.getByRole("button", { name: "Export patch" }));
    await screen.findByText("Saved the patch of 1 file to /home/me/x.patch.");
    expect(saved).toEqual([["Fix the parser.patch", patch.text]]);
    expect(clicked).toEqual([]);
  });

  it("shows the kernel's error", async () => {
    mount({ SessionPatch: new ApiError("not_found", "session ses_1 not found") });
    await userEvent.click(screen.getByRole("button", { name: "Export patch" }));
    expect((await screen.findByRole("alert")).textContent).toContain("The patch could not be exported: session ses_1 not found");
  });
});

describe("Compare with git HEAD", () => {
  const diff: GitDiff = { sessionId: SESSION, root: "/home/me/project", text: gitText, untracked: ["fresh.txt"] };

  it("lists each file that differs from HEAD with its diff, and the untracked files", async () => {
    const t = mount({ GitStatusDiff: diff });
    const button = screen.getByRole("button", { name: "Compare with git HEAD" });
    await userEvent.click(button);
    expect(button.getAttribute("aria-pressed")).toBe("true");
    const view = await screen.findByRole("region", { name: "Compare with git HEAD" });
    const files = await within(view).findByRole("list", { name: "Files that differ from HEAD" });
    expect(within(files).getAllByRole("listitem").map((li) => li.getAttribute("aria-label"))).toEqual(["main.go", "gone.txt", "logo.png"]);
    expect(within(within(files).getByRole("listitem", { name: "main.go" })).getByText("// TWO")).toBeTruthy();
    expect(within(view).getByText(/3 files differ from HEAD/)).toBeTruthy();
    expect(within(within(view).getByRole("list", { name: "Untracked files" })).getByText("fresh.txt")).toBeTruthy();
    expect(t.calls.find((c) => c.method === "GitStatusDiff")?.args).toEqual([SESSION]);
    await userEvent.click(within(view).getByRole("button", { name: "Close comparison" }));
    expect(screen.queryByRole("region", { name: "Compare with git HEAD" })).toBeNull();
  });

  it("says a clean tree has nothing to commit, and a diff was cut", async () => {
    mount({ GitStatusDiff: { ...diff, text: "", untracked: [], truncated: true, omitted: 5 << 20 } });
    await userEvent.click(screen.getByRole("button", { name: "Compare with git HEAD" }));
    await screen.findByText(/git diff HEAD shows nothing to commit/);
    expect(screen.getByText(/5\.0 MiB left out/)).toBeTruthy();
  });

  it("shows git's error: not a repository", async () => {
    const t = mount({ GitStatusDiff: new ApiError("invalid", "not a git repository: /home/me/project (nor any folder above it)") });
    await userEvent.click(screen.getByRole("button", { name: "Compare with git HEAD" }));
    expect((await screen.findByRole("alert")).textContent).toContain("not a git repository");
    t.replies["GitStatusDiff"] = diff;
    await userEvent.click(screen.getByRole("button", { name: "Refresh" }));
    await waitFor(() => expect(screen.queryByRole("alert")).toBeNull());
    expect(screen.getByRole("listitem", { name: "main.go" })).toBeTruthy();
  });
});

describe("splitGitDiff", () => {
  it("splits git's output into files named by their paths", () => {
    expect(splitGitDiff(gitText).map((f) => [f.path, f.binary])).toEqual([
      ["main.go", false],
      ["gone.txt", false],
      ["logo.png", true],
    ]);
    expect(splitGitDiff("")).toEqual([]);
    expect(splitGitDiff("diff --git a/new empty b/new empty\nnew file mode 100644\nindex 0000000..e69de29\n")[0]?.path).toBe("new empty");
    expect(splitGitDiff("diff --git a/x b/y\nsimilarity index 100%\nrename from x\nrename to y\n")[0]?.path).toBe("y");
  });
});
