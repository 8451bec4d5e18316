// The model picker beside the composer: profiles, then the chosen
// profile's models (ProviderModels), by keyboard; a choice calls SetModel;
// a server that is down still takes a typed name; a refusal is shown.
import { cleanup, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it } from "vitest";
import { ApiError } from "../../backend";
import { Log, SESSION } from "../eventstest";
import { session } from "../../backend/fake";
import { mountConversation as mount } from "./mounttest";

afterEach(cleanup);

const providers = [
  { name: "local", baseUrl: "http://127.0.0.1:9/v1", model: "m", default: true },
  { name: "work", baseUrl: "http://127.0.0.1:10/v1", model: "w", default: false },
];

function idle(): Log {
  const log = new Log();
  log.runStart("run_1", "Hi");
  log.runEnd("run_1", "completed");
  return log;
}

const picker = () => screen.getByRole("button", { name: /^Model: / });
const options = (name: string) => within(screen.getByRole("listbox", { name })).getAllByRole("option");

describe("the model picker", () => {
  it("names the session's model, lists profiles then models, filters by typing, chooses with Enter", async () => {
    const chosen = session({ id: SESSION, provider: "work", model: "w-large" });
    const { t } = await mount(idle().events, { replies: { Providers: providers, ProviderModels: ["w", "w-large", "w-small"], SetModel: chosen } });
    await waitFor(() => expect(picker().textContent).toBe("Model: m (local)"));
    await userEvent.click(picker());
    expect(picker().getAttribute("aria-expanded")).toBe("true");
    expect(options("Provider profiles").map((o) => o.textContent)).toEqual(["local (default)", "work"]);
    await userEvent.keyboard("{ArrowDown}{Enter}");
    await waitFor(() => expect(options("Models of work").map((o) => o.textContent)).toEqual(["w", "w-large", "w-small"]));
    expect(t.calls.find((c) => c.method === "ProviderModels")!.args).toEqual(["work"]);
    await userEvent.keyboard("lar");
    expect(options("Models of work").map((o) => o.textContent)).toEqual(["w-large", "Use “lar”"]);
    await userEvent.keyboard("{Enter}");
    await waitFor(() => expect(t.callsOf("SetModel")).toBe(1));
    expect(t.calls.find((c) => c.method === "SetModel")!.args).toEqual([{ sessionId: SESSION, provider: "work", model: "w-large" }]);
    await waitFor(() => expect(screen.queryByRole("listbox")).toBeNull());
    expect(picker().textContent).toBe("Model: w-large (work)");
    expect(document.activeElement).toBe(picker());
  });

  it("Escape closes the menu and changes nothing", async () => {
    const { t } = await mount(idle().events, { replies: { Providers: providers } });
    await userEvent.click(picker());
    await userEvent.keyboard("{Escape}");
    expect(screen.queryByRole("listbox")).toBeNull();
    expect(t.callsOf("SetModel")).toBe(0);
  });

  it("takes a typed model name when the profile's server is down, and shows a refusal in words", async () => {
    const { t } = await mount(idle().events, {
      replies: {
        Providers: providers,
        ProviderModels: new ApiError("unavailable", "models of provider work: connection refused"),
        SetModel: new ApiError("invalid", "the model name is empty: pick a model of provider work, or type its name"),
      },
    });
    await userEvent.click(picker());
    await userEvent.click(screen.getByRole("option", { name: "work" }));
    expect(await screen.findByText(/Could not list the models of work: models of provider work: connection refused/)).toBeTruthy();
    await userEvent.keyboard("my-model{Enter}");
    await waitFor(() => expect(t.callsOf("SetModel")).toBe(1));
    expect(t.calls.find((c) => c.method === "SetModel")!.args).toEqual([{ sessionId: SESSION, provider: "work", model: "my-model" }]);
    expect((await screen.findByRole("alert")).textContent).toContain("the model name is empty");
    expect(screen.getByRole("listbox", { name: "Models of work" })).toBeTruthy(); // still open: nothing lost
  });
});
