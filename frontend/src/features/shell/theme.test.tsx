import { act, cleanup, render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { resolve, setTheme, startTheme, themeKey, useTheme } from "./theme";
import { ThemeChoice } from "./ThemeChoice";

afterEach(cleanup);

let prefersDark = false;
let onChange: ((e: MediaQueryListEvent) => void) | null = null;
beforeEach(() => {
  localStorage.clear();
  prefersDark = false;
  vi.stubGlobal("matchMedia", (q: string) => ({
    matches: q === "(prefers-color-scheme: dark)" && prefersDark,
    addEventListener: (_: string, f: (e: MediaQueryListEvent) => void) => (onChange = f),
    removeEventListener: () => (onChange = null),
  }));
});

function Shown() {
  const { theme, resolved } = useTheme();
  return <p>{`${theme} ${resolved}`}</p>;
}

describe("theme", () => {
  it.each([
    ["system", false, "light"],
    ["system", true, "dark"],
    ["light", true, "light"],
    ["dark", false, "dark"],
  ] as const)("resolve(%s, dark=%s) = %s", (t, d, want) => {
    expect(resolve(t, d)).toBe(want);
  });

  it("starts from the stored choice, follows the system under System, and stores a new choice", async () => {
    localStorage.setItem(themeKey, "system");
    prefersDark = true;
    const stop = startTheme();
    expect(document.documentElement.dataset["theme"]).toBe("dark");
    render(
      <>
        <Shown />
        <ThemeChoice />
      </>,
    );
    expect(screen.getByText("system dark")).toBeTruthy();

    act(() => onChange?.({ matches: false } as MediaQueryListEvent));
    expect(document.documentElement.dataset["theme"]).toBe("light");
    expect(screen.getByText("system light")).toBeTruthy();

    await userEvent.setup().click(screen.getByRole("radio", { name: "Dark" }));
    expect(localStorage.getItem(themeKey)).toBe("dark");
    expect(document.documentElement.dataset["theme"]).toBe("dark");
    expect(screen.getByText("dark dark")).toBeTruthy();
    stop();
  });

  it("takes a choice made in another tab, and ignores a stored value it does not know", () => {
    localStorage.setItem(themeKey, "purple");
    const stop = startTheme();
    render(<Shown />);
    expect(screen.getByText("system light")).toBeTruthy();
    act(() => {
      window.dispatchEvent(new StorageEvent("storage", { key: themeKey, newValue: "dark" }));
    });
    expect(screen.getByText("dark dark")).toBeTruthy();
    act(() => setTheme("light"));
    expect(screen.getByText("light light")).toBeTruthy();
    stop();
  });
});
