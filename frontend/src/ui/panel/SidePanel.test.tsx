import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { act, cleanup, fireEvent, render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { BIG_STEP, CENTRE_MIN, FullWindowButton, PANEL_MIN, STEP, SidePanel, clampWidth } from "./SidePanel";

const KEY = "test.panel.width";

beforeEach(() => localStorage.removeItem(KEY));
afterEach(() => {
  cleanup();
  localStorage.removeItem(KEY);
});

function mount() {
  return render(
    <SidePanel name="review" storageKey={KEY}>
      <aside aria-label="Review changes">
        <FullWindowButton />
      </aside>
    </SidePanel>,
  );
}

const edge = () => screen.getByRole("separator", { name: "Resize the review panel" });
const panelOf = (el: HTMLElement) => el.closest(".side-panel") as HTMLElement;

describe("clampWidth", () => {
  it("keeps the panel between its least width and what leaves the conversation its room", () => {
    expect(clampWidth(100, 1200)).toBe(PANEL_MIN);
    expect(clampWidth(500, 1200)).toBe(500);
    expect(clampWidth(5000, 1200)).toBe(1200 - CENTRE_MIN);
    // Too little room for both: the panel keeps its least width.
    expect(clampWidth(500, 400)).toBe(PANEL_MIN);
    // Unknown room (not laid out yet): no upper bound.
    expect(clampWidth(5000, 0)).toBe(5000);
  });
});

describe("SidePanel", () => {
  it("resizes from the keyboard on its focusable edge and keeps the width", async () => {
    localStorage.setItem(KEY, "400");
    const { unmount } = mount();
    const sep = edge();
    expect(sep.tabIndex).toBe(0);
    expect(sep.getAttribute("aria-orientation")).toBe("vertical");
    expect(sep.getAttribute("aria-valuenow")).toBe("400");
    expect(panelOf(sep).style.width).toBe("400px");
    sep.focus();
    // The edge is the panel's left: left widens, right narrows.
    await userEvent.keyboard("{ArrowLeft}");
    expect(sep.getAttribute("aria-valuenow")).toBe(String(400 + STEP));
    expect(localStorage.getItem(KEY)).toBe(String(400 + STEP));
    await userEvent.keyboard("{Shift>}{ArrowRight}{/Shift}");
    expect(sep.getAttribute("aria-valuenow")).toBe(String(400 + STEP - BIG_STEP));
    await userEvent.keyboard("{Home}");
    expect(sep.getAttribute("aria-valuenow")).toBe(String(PANEL_MIN));
    await userEvent.keyboard("{ArrowRight}");
    expect(sep.getAttribute("aria-valuenow")).toBe(String(PANEL_MIN));
    await userEvent.keyboard("{ArrowLeft}{ArrowLeft}");
    const kept = String(PANEL_MIN + 2 * STEP);
    expect(localStorage.getItem(KEY)).toBe(kept);
    unmount();
    // Opened again (a reload, another session): the kept width.
    mount();
    expect(edge().getAttribute("aria-valuenow")).toBe(kept);
    expect(panelOf(edge()).style.width).toBe(`${kept}px`);
  });

  it("resizes by dragging its edge and keeps the width when let go", () => {
    localStorage.setItem(KEY, "500");
    mount();
    const sep = edge();
    act(() => {
      fireEvent.pointerDown(sep, { button: 0, clientX: 800, pointerId: 1 });
      fireEvent.pointerMove(sep, { clientX: 700, pointerId: 1 });
    });
    expect(sep.getAttribute("aria-valuenow")).toBe("600");
    // Not kept while the drag goes on.
    expect(localStorage.getItem(KEY)).toBe("500");
    act(() => {
      fireEvent.pointerMove(sep, { clientX: 850, pointerId: 1 });
      fireEvent.pointerUp(sep, { clientX: 850, pointerId: 1 });
    });
    expect(sep.getAttribute("aria-valuenow")).toBe("450");
    expect(localStorage.getItem(KEY)).toBe("450");
  });

  it("takes the whole window and gives it back", async () => {
    mount();
    const button = screen.getByRole("button", { name: "Full window" });
    expect(button.getAttribute("aria-pressed")).toBe("false");
    await userEvent.click(button);
    expect(button.getAttribute("aria-pressed")).toBe("true");
    expect(panelOf(button).classList.contains("side-panel-full")).toBe(true);
    // No edge to drag when the panel is the whole window.
    expect(screen.queryByRole("separator")).toBeNull();
    await userEvent.click(button);
    expect(panelOf(button).classList.contains("side-panel-full")).toBe(false);
    expect(screen.getByRole("separator")).toBeTruthy();
  });

  it("shows no full-window toggle outside a side panel", () => {
    render(<FullWindowButton />);
    expect(screen.queryByRole("button", { name: "Full window" })).toBeNull();
  });
});
