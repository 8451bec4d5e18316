import { describe, expect, it } from "vitest";
import { takeToken, tokenKey, type TokenPlace } from "./token";

/** place is a window with an address and a tab's sessionStorage. */
function place(hash: string, stored: Record<string, string> = {}) {
  const storage = new Map(Object.entries(stored));
  const urls: string[] = [];
  const w: TokenPlace = {
    location: { pathname: "/", search: "", hash },
    history: { replaceState: (_d, _u, url) => urls.push(String(url)) },
    sessionStorage: { getItem: (k) => storage.get(k) ?? null, setItem: (k, v) => void storage.set(k, v) },
  };
  return { w, storage, urls };
}

// The token lives in the page, never in a cookie (any page could send it) or the address bar (history and logs keep it).
describe("takeToken", () => {
  it("takes the token from the fragment, keeps it for the tab and removes it from the address", () => {
    const p = place("#token=abc123");
    expect(takeToken(p.w)).toBe("abc123");
    expect(p.storage.get(tokenKey)).toBe("abc123");
    expect(p.urls).toEqual(["/"]);
  });

  it("keeps the other parameters of the fragment", () => {
    const p = place("#session=ses_1&token=abc123");
    expect(takeToken(p.w)).toBe("abc123");
    expect(p.urls).toEqual(["/#session=ses_1"]);
  });

  it("finds the kept token after a reload, the address left alone", () => {
    const p = place("#session=ses_1", { [tokenKey]: "kept" });
    expect(takeToken(p.w)).toBe("kept");
    expect(p.urls).toEqual([]);
  });

  it("prefers a new link's token to the kept one", () => {
    const p = place("#token=new", { [tokenKey]: "old" });
    expect(takeToken(p.w)).toBe("new");
    expect(p.storage.get(tokenKey)).toBe("new");
  });

  it("is empty without a token anywhere", () => {
    expect(takeToken(place("").w)).toBe("");
  });
});
