/** described is the text of the elements that describe el (aria-describedby), as a screen reader reads it. */
export function described(el: HTMLElement): string {
  return (el.getAttribute("aria-describedby") ?? "")
    .split(" ")
    .map((id) => document.getElementById(id)?.textContent ?? "")
    .join(" ");
}
