import { cleanup, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it } from "vitest";
import { NotificationSettings } from "./NotificationSettings";
import { argsOf, mount } from "./testkit";

afterEach(cleanup);

// spec: W3 — each kind of notification is turned on or off in the settings.
describe("NotificationSettings", () => {
  it("shows each kind on unless set off, and stores a change at once", async () => {
    const { t } = mount(<NotificationSettings />, {
      Settings: { "notify.approval": "true", "notify.runEnded": "false", "notify.runFailed": "true" },
      SetSetting: null,
    });
    const user = userEvent.setup();
    const approval = (await screen.findByRole("checkbox", { name: /Approval waiting/ })) as HTMLInputElement;
    const ended = screen.getByRole("checkbox", { name: /Run ended/ }) as HTMLInputElement;
    const failed = screen.getByRole("checkbox", { name: /Run failed/ }) as HTMLInputElement;
    expect([approval.checked, ended.checked, failed.checked]).toEqual([true, false, true]);

    await user.click(failed);
    await waitFor(() => expect(argsOf(t, "SetSetting")).toEqual([["notify.runFailed", "false"]]));
    expect((await screen.findByRole("status")).textContent).toBe("“Run failed” notifications are off.");
    expect(failed.checked).toBe(false);
    await user.click(ended);
    await waitFor(() => expect(argsOf(t, "SetSetting")).toEqual([["notify.runFailed", "false"], ["notify.runEnded", "true"]]));
    expect(ended.checked).toBe(true);
  });

  it("says so when a change is refused, and keeps the box as stored", async () => {
    const { t } = mount(<NotificationSettings />, { Settings: {}, SetSetting: new Error("the database is read-only") });
    const user = userEvent.setup();
    const approval = (await screen.findByRole("checkbox", { name: /Approval waiting/ })) as HTMLInputElement;
    expect(approval.checked).toBe(true); // unset is on
    await user.click(approval);
    expect((await screen.findByRole("alert")).textContent).toMatch(/The setting was not changed: .*read-only/);
    expect(t.callsOf("SetSetting")).toBe(1);
    expect(approval.checked).toBe(true);
  });
});
