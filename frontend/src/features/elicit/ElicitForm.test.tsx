// The form of an MCP server's question: built from its fields with the
// defaults filled in and the required marked; Send checks each field and
// says what is wrong at it; Enter sends, Esc cancels (not the run), focus
// goes into the form; URL mode opens nothing until the user clicks. Then
// the list of a session's questions, fed by mcp.elicitation notices.
import { act, cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { TransportProvider } from "../../backend";
import { FakeTransport } from "../../backend/fake";
import type { MCPElicitationData } from "../../backend/gen/event";
import { Elicitations } from "./Elicitations";
import { ElicitForm, GUARD_MS } from "./ElicitForm";
import { check, initialRaw } from "./form";

const req: MCPElicitationData = {
  id: "eli_1",
  sessionId: "ses_1",
  runId: "run_1",
  callId: "call_1",
  server: "github",
  mode: "form",
  message: "Where should I push?",
  state: "pending",
  askedAt: "2026-12-02T10:00:00Z",
  fields: [
    { name: "email", title: "Email", type: "string", format: "email", required: true },
    { name: "branch", title: "Branch", type: "string", minLength: 2, maxLength: 5, default: "main" },
    { name: "count", type: "integer", minimum: 1, maximum: 9, default: 3 },
    { name: "ratio", type: "number", default: 0.5 },
    { name: "color", type: "string", options: [{ value: "r", title: "Red" }, { value: "g", title: "Green" }], default: "g" },
    { name: "force", title: "Force", type: "boolean", default: true },
  ],
};

beforeEach(() => vi.useFakeTimers());
afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

function show(r: MCPElicitationData = req) {
  const onAnswer = vi.fn((): Promise<void> => Promise.resolve());
  const view = render(<ElicitForm req={r} onAnswer={onAnswer} />);
  act(() => vi.advanceTimersByTime(GUARD_MS));
  return { onAnswer, view };
}

describe("check", () => {
  it("fills defaults and reads them back as the answer", () => {
    const raw = initialRaw(req.fields!);
    expect(raw).toEqual({ email: "", branch: "main", count: "3", ratio: "0.5", color: "g", force: true });
    expect(check(req.fields!, { ...raw, email: "a@b.example" })).toEqual({
      values: { email: "a@b.example", branch: "main", count: 3, ratio: 0.5, color: "g", force: true },
      errors: {},
    });
  });
  it("names what is wrong with each field", () => {
    const { errors } = check(req.fields!, { email: "nope", branch: "x", count: "2.5", ratio: "abc", color: "b", force: false });
    expect(errors).toEqual({
      email: "must be an email address",
      branch: "must be at least 2 characters",
      count: "must be a whole number",
      ratio: "must be a number",
      color: "must be one of the choices",
    });
    expect(check(req.fields!, { email: "", count: "12" }).errors).toEqual({ email: "required", count: "must be at most 9" });
  });
  it("checks dates and URIs", () => {
    const fields = [
      { name: "d", type: "string", format: "date" },
      { name: "t", type: "string", format: "date-time" },
      { name: "u", type: "string", format: "uri" },
    ];
    expect(check(fields, { d: "2026-02-30", t: "2026-12-31", u: "example.com" }).errors).toEqual({
      d: "must be a date, such as 2026-12-31",
      t: "must be a date and time, such as 2026-12-31T09:30:00Z",
      u: "must be a URI, such as https://example.com",
    });
    expect(check(fields, { d: "2026-12-31", t: "2026-12-31T09:30:00+01:00", u: "https://x" }).errors).toEqual({});
  });
});

describe("ElicitForm", () => {
  it("shows the fields with their defaults, marks the required, focuses the first", () => {
    show();
    expect(screen.getByRole("heading", { name: "The MCP server github asks" })).toBeTruthy();
    expect(screen.getByText("Where should I push?")).toBeTruthy();
    const email = screen.getByLabelText(/Email/) as HTMLInputElement;
    expect(email.getAttribute("aria-required")).toBe("true");
    expect(document.activeElement).toBe(email);
    expect((screen.getByLabelText("Branch") as HTMLInputElement).value).toBe("main");
    expect((screen.getByLabelText("count") as HTMLInputElement).value).toBe("3");
    expect((screen.getByLabelText("color") as HTMLSelectElement).value).toBe("g");
    expect((screen.getByLabelText("Force") as HTMLInputElement).checked).toBe(true);
    expect(screen.getByRole("option", { name: "Red" })).toBeTruthy();
  });

  it("says what is wrong at each field and sends nothing until it fits", async () => {
    const { onAnswer } = show();
    fireEvent.change(screen.getByLabelText("count"), { target: { value: "12" } });
    fireEvent.click(screen.getByRole("button", { name: "Send" }));
    expect(onAnswer).not.toHaveBeenCalled();
    const email = screen.getByLabelText(/Email/);
    expect(email.getAttribute("aria-invalid")).toBe("true");
    expect(screen.getByText("required")).toBeTruthy();
    expect(screen.getByText("must be at most 9")).toBeTruthy();
    expect(document.activeElement).toBe(email);
    fireEvent.change(email, { target: { value: "ada@example.com" } });
    fireEvent.change(screen.getByLabelText("count"), { target: { value: "7" } });
    fireEvent.keyDown(screen.getByLabelText("count"), { key: "Enter" });
    await act(async () => {});
    expect(onAnswer).toHaveBeenCalledWith({
      action: "accept",
      content: { email: "ada@example.com", branch: "main", count: 7, ratio: 0.5, color: "g", force: true },
    });
  });

  it("ignores Enter in its first moments, then Enter on a checkbox sends", async () => {
    const onAnswer = vi.fn((): Promise<void> => Promise.resolve());
    const r = { ...req, fields: [{ name: "ok", type: "boolean", default: false }] };
    render(<ElicitForm req={r} onAnswer={onAnswer} />);
    fireEvent.keyDown(screen.getByLabelText("ok"), { key: "Enter" });
    expect(onAnswer).not.toHaveBeenCalled();
    act(() => vi.advanceTimersByTime(GUARD_MS));
    fireEvent.keyDown(screen.getByLabelText("ok"), { key: "Enter" });
    await act(async () => {});
    expect(onAnswer).toHaveBeenCalledWith({ action: "accept", content: { ok: false } });
  });

  it("Esc cancels the question, not the run; Decline declines", async () => {
    const outer = vi.fn();
    const onAnswer = vi.fn((): Promise<void> => Promise.resolve());
    render(
      <div onKeyDown={outer}>
        <ElicitForm req={req} onAnswer={onAnswer} />
      </div>,
    );
    fireEvent.keyDown(screen.getByLabelText(/Email/), { key: "Escape" });
    await act(async () => {});
    expect(onAnswer).toHaveBeenCalledWith({ action: "cancel" });
    expect(outer).not.toHaveBeenCalled();
    cleanup();
    const { onAnswer: second } = show();
    fireEvent.click(screen.getByRole("button", { name: "Decline" }));
    await act(async () => {});
    expect(second).toHaveBeenCalledWith({ action: "decline" });
  });

  it("shows the kernel's refusal and lets the user try again", async () => {
    const onAnswer = vi.fn((): Promise<void> => Promise.reject(new Error("the values do not fit the form: email must be an email address")));
    render(<ElicitForm req={{ ...req, fields: [] }} onAnswer={onAnswer} />);
    act(() => vi.advanceTimersByTime(GUARD_MS));
    fireEvent.click(screen.getByRole("button", { name: "Send" }));
    await act(async () => {});
    expect(screen.getByRole("alert").textContent).toContain("email must be an email address");
    expect((screen.getByRole("button", { name: "Send" }) as HTMLButtonElement).disabled).toBe(false);
  });

  it("URL mode shows the address and opens it only on the user's click", async () => {
    const { fields: _, ...noFields } = req;
    const { onAnswer } = show({ ...noFields, mode: "url", url: "https://example.com/connect" });
    expect(screen.getByText("https://example.com/connect")).toBeTruthy();
    fireEvent.keyDown(document.activeElement!, { key: "Enter" });
    expect(onAnswer).not.toHaveBeenCalled();
    const open = screen.getByRole("link", { name: "Open in the browser" });
    expect(open.getAttribute("href")).toBe("https://example.com/connect");
    expect(open.getAttribute("rel")).toContain("noopener");
    open.addEventListener("click", (e) => e.preventDefault()); // jsdom navigates nowhere
    fireEvent.click(open);
    await act(async () => {});
    expect(onAnswer).toHaveBeenCalledWith({ action: "accept" });
  });
});

describe("Elicitations", () => {
  it("lists the pending, adds and drops them on notices, answers through AnswerElicitation", async () => {
    const transport = new FakeTransport({ PendingElicitations: [], AnswerElicitation: null });
    render(
      <TransportProvider transport={transport}>
        <Elicitations sessionId="ses_1" />
      </TransportProvider>,
    );
    await act(async () => {});
    expect(screen.queryByRole("heading")).toBeNull();
    const notice = (d: MCPElicitationData) => act(() => transport.notice({ type: "mcp.elicitation", sessionId: d.sessionId, seq: 0, time: d.askedAt, data: d }));
    notice({ ...req, sessionId: "ses_other" });
    expect(screen.queryByRole("heading")).toBeNull();
    notice(req);
    expect(screen.getByRole("heading", { name: "The MCP server github asks" })).toBeTruthy();
    act(() => vi.advanceTimersByTime(GUARD_MS));
    fireEvent.change(screen.getByLabelText(/Email/), { target: { value: "ada@example.com" } });
    fireEvent.click(screen.getByRole("button", { name: "Send" }));
    await act(async () => {});
    const sent = transport.calls.find((c) => c.method === "AnswerElicitation");
    expect(sent?.args[0]).toBe("eli_1");
    expect(screen.queryByRole("heading")).toBeNull();
    notice({ ...req, id: "eli_2" });
    expect(screen.getByRole("heading")).toBeTruthy();
    notice({ ...req, id: "eli_2", state: "cancelled", note: "the run was cancelled" });
    expect(screen.queryByRole("heading")).toBeNull();
  });
});
