import { cleanup, render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ApiError } from "../backend/errors";
import { ErrorActions, ErrorNotice } from "./ErrorNotice";

afterEach(cleanup);

const refused = 'model: provider: Post "http://127.0.0.1:39999/v1/chat/completions": dial tcp 127.0.0.1:39999: connect: connection refused';

describe("ErrorNotice", () => {
  it("says the sentence first, folds the technical text under Details, and retries", async () => {
    const user = userEvent.setup();
    const retry = vi.fn();
    render(<ErrorNotice title="The run failed" error={refused} onRetry={retry} />);
    const alert = screen.getByRole("alert", { name: /Foya could not reach the model server at 127\.0\.0\.1:39999\./ });
    expect(alert.textContent!.indexOf("could not reach")).toBeLessThan(alert.textContent!.indexOf("dial tcp"));
    const details = alert.querySelector("details")!;
    expect(details.open).toBe(false);
    expect(within(details).getByText("Details").tagName).toBe("SUMMARY");
    expect(within(details).getByText(refused)).toBeTruthy();
    await user.click(within(details).getByText("Details"));
    expect(details.open).toBe(true);
    await user.click(within(alert).getByRole("button", { name: "Retry" }));
    expect(retry).toHaveBeenCalledTimes(1);
  });

  it("offers Open settings when the app gives it, and no button it cannot do", async () => {
    const user = userEvent.setup();
    const open = vi.fn();
    render(
      <ErrorActions.Provider value={{ onSettings: open }}>
        <ErrorNotice error="provider: 401 Unauthorized: invalid api key" />
      </ErrorActions.Provider>,
    );
    const alert = screen.getByRole("alert");
    expect(alert.textContent).toContain("The model server refused the key.");
    expect(within(alert).queryByRole("button", { name: "Retry" })).toBeNull();
    expect(within(alert).queryByRole("button", { name: "Test connection" })).toBeNull();
    await user.click(within(alert).getByRole("button", { name: "Open settings" }));
    expect(open).toHaveBeenCalledTimes(1);
  });

  it("words an unknown error generally and shows its text, and one without text has no Details", () => {
    render(<ErrorNotice error={new ApiError("internal", "the flux capacitor melted")} />);
    const alert = screen.getByRole("alert");
    expect(alert.textContent).toMatch(/^Something went wrong\./);
    expect(alert.textContent).toContain("the flux capacitor melted");
    cleanup();
    render(<ErrorNotice error={new ApiError("internal", "")} />);
    expect(screen.getByRole("alert").querySelector("details")).toBeNull();
  });
});
