// The desktop smoke run's hooks: which session it opens, and the report of
// what that session's conversation view rendered.
import { afterEach, describe, expect, it, vi } from "vitest";
import { countConversation, reportConversation, smokeSession, type UIReport } from "./smoke";
import type { WailsWindow } from "./wails";

const app = (methods: Record<string, (...args: unknown[]) => Promise<unknown>>): WailsWindow => ({ go: { main: { App: methods } } });

afterEach(() => {
  document.body.innerHTML = "";
});

describe("smokeSession", () => {
  it("is the session App.SmokeSession names, and empty without it or when it fails", async () => {
    expect(await smokeSession(app({ SmokeSession: () => Promise.resolve("ses_1") }))).toBe("ses_1");
    expect(await smokeSession(app({ SmokeSession: () => Promise.resolve("") }))).toBe("");
    expect(await smokeSession(app({ SmokeSession: () => Promise.reject(new Error("gone")) }))).toBe("");
    expect(await smokeSession(app({ SmokeSession: () => Promise.resolve(42) }))).toBe("");
    expect(await smokeSession({})).toBe("");
    expect(await smokeSession()).toBe(""); // the test page: no Wails
  });
});

function conversation(turns: number, cards: number): string {
  return (
    '<div role="log" aria-label="Conversation">' +
    '<section aria-label="Your message">hi</section>'.repeat(turns) +
    "<article>card</article>".repeat(cards) +
    "</div>"
  );
}

describe("countConversation", () => {
  it("counts the prompts and cards inside the conversation log only", () => {
    expect(countConversation()).toBeNull();
    document.body.innerHTML = conversation(2, 3) + "<article>elsewhere</article>";
    expect(countConversation()).toEqual({ turns: 2, cards: 3, images: 0, pending: 0 });
  });

  it("counts the images decoded, and those still being read or decoded as pending", () => {
    document.body.innerHTML =
      '<div role="log" aria-label="Conversation"><article><img id="a"><img id="b"><img id="c"></article>' +
      '<article><p data-artifact="loading">Reading image</p></article></div>';
    const set = (id: string, complete: boolean, naturalWidth: number) => {
      const img = document.getElementById(id)!;
      Object.defineProperty(img, "complete", { value: complete });
      Object.defineProperty(img, "naturalWidth", { value: naturalWidth });
    };
    set("a", true, 4); // shown
    set("b", true, 0); // broken: neither shown nor pending
    set("c", false, 0); // decoding
    expect(countConversation()).toEqual({ turns: 0, cards: 2, images: 1, pending: 2 });
  });
});

describe("reportConversation", () => {
  const base: UIReport = { version: "1", sessions: 1, error: "", open: "", turns: 0, cards: 0, images: 0, setup: false };

  it("waits for the conversation to show a turn, then reports its counts once", async () => {
    const sent: UIReport[] = [];
    const w = app({ UIReady: (r) => (sent.push(r as UIReport), Promise.resolve()) });
    reportConversation("ses_1", base, w);
    await new Promise((r) => setTimeout(r, 100));
    expect(sent).toEqual([]); // nothing rendered yet: no report
    document.body.innerHTML = conversation(1, 2);
    await vi.waitFor(() => expect(sent).toEqual([{ ...base, open: "ses_1", turns: 1, cards: 2, setup: false, shellPainted: 0 }]), { timeout: 5000 });
  });

  it("waits while an image is still being read, then reports it", async () => {
    const sent: UIReport[] = [];
    const w = app({ UIReady: (r) => (sent.push(r as UIReport), Promise.resolve()) });
    document.body.innerHTML =
      '<div role="log" aria-label="Conversation"><section aria-label="Your message">hi</section>' +
      '<article><p data-artifact="loading">Reading image</p></article></div>';
    reportConversation("ses_1", base, w);
    await new Promise((r) => setTimeout(r, 400));
    expect(sent).toEqual([]); // still reading: no report
    const card = document.querySelector("article")!;
    card.innerHTML = '<img id="a">';
    Object.defineProperty(card.firstChild, "complete", { value: true });
    Object.defineProperty(card.firstChild, "naturalWidth", { value: 4 });
    await vi.waitFor(() => expect(sent).toEqual([{ ...base, open: "ses_1", turns: 1, cards: 1, images: 1, setup: false, shellPainted: 0 }]), { timeout: 5000 });
  });

  it("reports what is there when the conversation never shows a turn", async () => {
    const sent: UIReport[] = [];
    const w = app({ UIReady: (r) => (sent.push(r as UIReport), Promise.resolve()) });
    document.body.innerHTML = conversation(0, 0);
    reportConversation("ses_1", base, w, 50);
    await vi.waitFor(() => expect(sent).toEqual([{ ...base, open: "ses_1", turns: 0, cards: 0, setup: false, shellPainted: 0 }]), { timeout: 5000 });
  });
});
