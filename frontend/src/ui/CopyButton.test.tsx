import { act, cleanup, fireEvent, render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it, vi } from "vitest";
import { CopyButton } from "./CopyButton";

afterEach(() => {
  cleanup();
  vi.useRealTimers();
  vi.restoreAllMocks();
});

function stubClipboard(writeText: (text: string) => Promise<void>) {
  const clipboard = { writeText: vi.fn(writeText) };
  vi.spyOn(navigator, "clipboard", "get").mockReturnValue(clipboard as unknown as Clipboard);
  return clipboard;
}

describe("CopyButton", () => {
  it("copies the text and says Copied, then reads Copy again", async () => {
    // The feedback ends by its own timer: a fake one, run by the test.
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const clipboard = stubClipboard(async () => undefined);
    render(<CopyButton text="go test ./..." label="Copy code" />);
    await act(async () => {
      fireEvent.click(screen.getByRole("button", { name: "Copy code" }));
      await Promise.resolve();
    });
    expect(clipboard.writeText).toHaveBeenCalledWith("go test ./...");
    expect(screen.getByRole("status").textContent).toBe("Copied");
    expect(screen.getByRole("button", { name: "Copy code" }).textContent).toBe("Copied");
    act(() => {
      vi.advanceTimersByTime(2000);
    });
    expect(screen.getByRole("status").textContent).toBe("");
  });

  it("says so, and what to do instead, when the clipboard is refused", async () => {
    const user = userEvent.setup();
    stubClipboard(async () => {
      throw new DOMException("Write permission denied.", "NotAllowedError");
    });
    render(<CopyButton text="secret plan" label="Copy message" />);
    await user.click(screen.getByRole("button", { name: "Copy message" }));
    const status = await screen.findByText(/^Not copied/);
    expect(status.textContent).toBe("Not copied: the clipboard was refused (Write permission denied.). Select the text and press Ctrl+C instead.");
    expect(status.getAttribute("role")).toBe("status");
    expect(screen.getByRole("button", { name: "Copy message" }).textContent).toBe("Copy");
  });
});
