import { screen, waitFor, within } from "@testing-library/react";
import { expect } from "vitest";

/** described is the text of the elements that describe el (aria-describedby), as a screen reader reads it. */
export function described(el: HTMLElement): string {
  return (el.getAttribute("aria-describedby") ?? "")
    .split(" ")
    .map((id) => document.getElementById(id)?.textContent ?? "")
    .join(" ");
}

/**
 * chosenForm waits until the first run's form has chosen the server named
 * radio (the form is there at once; a found server's controls only once its
 * probe has answered) and returns the form.
 */
export async function chosenForm(radio: string): Promise<HTMLElement> {
  const form = await screen.findByRole("form", { name: "Save a provider profile" });
  await waitFor(() => expect(within(form).getByRole("radio", { name: radio })).toHaveProperty("checked", true));
  return form;
}
