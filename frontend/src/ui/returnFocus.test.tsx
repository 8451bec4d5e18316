import { cleanup, render, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { useState } from "react";
import { afterEach, describe, expect, it } from "vitest";
import { Dialog, DialogClose } from "./Dialog";

afterEach(cleanup);

// A dialog opened from state, not from a radix Trigger: a button elsewhere
// (or a shortcut) sets open.
function Page() {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" onClick={() => setOpen(true)}>
        Open it
      </button>
      <button type="button">Elsewhere</button>
      <Dialog open={open} onOpenChange={setOpen} title="A dialog">
        <DialogClose asChild>
          <button type="button">Close</button>
        </DialogClose>
      </Dialog>
    </>
  );
}

describe("Dialog gives focus back to what opened it", () => {
  it("after Escape", async () => {
    const user = userEvent.setup();
    render(<Page />);
    const opener = screen.getByRole("button", { name: "Open it" });
    await user.click(opener);
    await waitFor(() => expect(screen.getByRole("dialog", { name: "A dialog" }).contains(document.activeElement)).toBe(true));
    await user.keyboard("{Escape}");
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
    await waitFor(() => expect(document.activeElement).toBe(opener));
  });

  it("after its Close button, opened from the keyboard", async () => {
    const user = userEvent.setup();
    render(<Page />);
    const opener = screen.getByRole("button", { name: "Open it" });
    opener.focus();
    await user.keyboard("{Enter}");
    await user.click(await screen.findByRole("button", { name: "Close" }));
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
    await waitFor(() => expect(document.activeElement).toBe(opener));
  });
});
