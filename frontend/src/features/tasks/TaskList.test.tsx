import { act, cleanup, screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { BackgroundPanel } from "../background";
import { Log } from "../eventstest";
import { mount } from "../settings/testkit";

afterEach(cleanup);

const SID = "ses_01";

describe("TaskList in the Background panel", () => {
  it("says there is no task list before the agent writes one", async () => {
    mount(<BackgroundPanel sessionId={SID} onClose={() => {}} />, { BackgroundCommands: [] }, SID);
    const section = screen.getByRole("region", { name: "Tasks" });
    expect(section.textContent).toContain("No task list.");
    expect(within(section).queryByRole("list")).toBeNull();
  });

  it("shows the latest list with each task's status, and follows its replacement", async () => {
    const { store } = mount(<BackgroundPanel sessionId={SID} onClose={() => {}} />, { BackgroundCommands: [] }, SID);
    const log = new Log(SID);
    log.runStart("run_1", "plan and fix");
    log.add(
      "todo.updated",
      {
        todos: [
          { content: "read main.go", status: "completed" },
          { content: "fix the bug", status: "in_progress" },
          { content: "write the test", status: "pending" },
        ],
      },
      "run_1",
    );
    act(() => store.getState().apply(log.events));
    const section = screen.getByRole("region", { name: "Tasks" });
    const list = within(section).getByRole("list", { name: "Tasks of this session" });
    const items = within(list).getAllByRole("listitem");
    expect(items.map((i) => i.getAttribute("aria-label"))).toEqual([
      "read main.go: Completed",
      "fix the bug: In progress",
      "write the test: Pending",
    ]);
    expect(items[1]!.getAttribute("aria-current")).toBe("step");
    expect(items[0]!.getAttribute("aria-current")).toBeNull();
    expect(within(section).getByRole("status").textContent).toBe("1 of 3 completed");

    log.add("todo.updated", { todos: [{ content: "write the test", status: "completed" }] }, "run_1");
    act(() => store.getState().apply(log.events));
    expect(within(list).getAllByRole("listitem").map((i) => i.getAttribute("aria-label"))).toEqual(["write the test: Completed"]);
    expect(within(section).getByRole("status").textContent).toBe("1 of 1 completed");
  });
});
