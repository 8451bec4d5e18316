import { act } from "@testing-library/react";
import { flushSync } from "react-dom";
import { createRoot } from "react-dom/client";
import { afterEach, describe, expect, it } from "vitest";
import { ModelText } from "./Markdown";

let cleanup: (() => void) | null = null;
afterEach(() => {
  cleanup?.();
  cleanup = null;
});

describe("ModelText", () => {
  // Rows mounting together (opening a long session)
  // must not parse every step's markdown in the task that mounts them.
  it("shows the plain text when it mounts, and its markdown in a later render", async () => {
    const el = document.createElement("div");
    document.body.append(el);
    const root = createRoot(el);
    cleanup = () => {
      act(() => root.unmount());
      el.remove();
    };
    flushSync(() => root.render(<ModelText text={"Step **1**: run `go test`"} />));
    expect(el.querySelector("strong")).toBeNull();
    expect(el.textContent).toBe("Step **1**: run `go test`");
    await act(async () => {
      await new Promise((r) => setTimeout(r, 0));
    });
    expect(el.querySelector("strong")?.textContent).toBe("1");
    expect(el.querySelector("code")?.textContent).toBe("go test");
  });
});
