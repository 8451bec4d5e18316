import { cleanup, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it } from "vitest";
import { KeyboardHelp } from "./KeyboardHelp";

afterEach(cleanup);

describe("KeyboardHelp", () => {
  it("opens on ? and lists the review panel's keys, and the focus comes back", async () => {
    render(
      <>
        <input aria-label="Message" />
        <KeyboardHelp />
      </>,
    );
    const button = screen.getByRole("button", { name: "Keyboard shortcuts" });
    button.focus();
    await userEvent.keyboard("?");
    const dialog = await screen.findByRole("dialog", { name: "Keyboard shortcuts" });
    const review = within(dialog).getByRole("region", { name: "The review panel" });
    expect(within(review).getByText("R").closest(".keyboard-help-row")!.textContent).toBe("Rrevert the hunk (or the change) the focus is on, at once");
    expect(within(dialog).getByRole("region", { name: "An approval request" }).textContent).toContain("allow once");
    // The steering key is the one the composer answers (queue.tsx), named once for both.
    expect(within(dialog).getByRole("region", { name: "The message box" }).textContent).toContain("Ctrl+Shift+Entersend the first queued message now");
    await userEvent.keyboard("{Escape}");
    expect(screen.queryByRole("dialog")).toBeNull();
    await waitFor(() => expect(document.activeElement).toBe(button));
  });

  it("leaves ? typed in a text field alone", async () => {
    render(
      <>
        <input aria-label="Message" />
        <KeyboardHelp />
      </>,
    );
    await userEvent.click(screen.getByRole("textbox", { name: "Message" }));
    await userEvent.keyboard("?");
    expect(screen.queryByRole("dialog")).toBeNull();
    expect((screen.getByRole("textbox", { name: "Message" }) as HTMLInputElement).value).toBe("?");
  });
});
