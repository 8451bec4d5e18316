// Virtual pages: a long diff keeps in the page only the pages of lines
// near the part of it in view; the others are empty boxes of the height
// the page had when it was last drawn (or, never drawn, of an estimate
// from the pages drawn so far), so the scroll bar and what is in view do
// not move when pages come and go. Every page drawn costs the browser
// style, layout, paint and hit testing for each of its rows, so a diff
// drawn whole (5,000 lines) makes every later change of the panel slow.
import { useCallback, useEffect, useLayoutEffect, useRef, useState, type RefObject } from "react";

/**
 * NEAR_MARGIN is how far beyond the scroll box's edges a page is still
 * drawn: about a screen each way, so a page is drawn before it scrolls
 * into view and not dropped the moment it leaves.
 */
export const NEAR_MARGIN = "1000px 0px";

/** DEFAULT_ROW is the height, in CSS pixels, guessed for a row before any page was measured. */
export const DEFAULT_ROW = 20;

/**
 * scrollBox is the element that scrolls el vertically: its nearest
 * ancestor with overflow-y auto or scroll, or null (the window).
 */
export function scrollBox(el: HTMLElement | null): HTMLElement | null {
  for (let p = el?.parentElement ?? null; p !== null; p = p.parentElement) {
    const y = getComputedStyle(p).overflowY;
    if (y === "auto" || y === "scroll" || y === "overlay") return p;
  }
  return null;
}

/** PageSize is what a page's height is estimated from: its rows, and a key that changes when its rows or their layout change. */
export interface PageSize {
  key: string;
  rows: number;
}

/**
 * useVirtualPages tells which of a diff's pages are drawn: those whose box
 * (slots[i], always in the page) is within NEAR_MARGIN of the scroll box's
 * view, page keep (the one a jump asked for), and a page holding the
 * focus. It returns the set drawn (null when the browser has no
 * IntersectionObserver: then every page is drawn) and the height to give
 * page i while it is not drawn.
 */
export function useVirtualPages(
  pages: readonly PageSize[],
  container: RefObject<HTMLElement | null>,
  slots: RefObject<(HTMLElement | null)[]>,
  keep: number,
): { drawn: ReadonlySet<number> | null; height: (i: number) => number } {
  const observing = typeof IntersectionObserver !== "undefined";
  const [near, setNear] = useState<ReadonlySet<number>>(() => new Set([0]));
  // Heights measured while drawn, by page key; the row height they give on
  // average is the estimate for pages never drawn.
  const measured = useRef(new Map<string, number>());
  const [perRow, setPerRow] = useState(DEFAULT_ROW);

  useEffect(() => {
    if (!observing) return;
    const list = slots.current ?? [];
    const io = new IntersectionObserver(
      (entries) => {
        setNear((prev) => {
          const next = new Set(prev);
          for (const e of entries) {
            const i = Number((e.target as HTMLElement).dataset.page);
            if (e.isIntersecting) next.add(i);
            // A page holding the focus stays: dropping it would send the
            // focus (and the review keys with it) to the document.
            else if (!e.target.contains(document.activeElement)) next.delete(i);
          }
          return same(prev, next) ? prev : next;
        });
      },
      { root: scrollBox(container.current), rootMargin: NEAR_MARGIN },
    );
    for (const el of list.slice(0, pages.length)) if (el) io.observe(el);
    return () => io.disconnect();
  }, [observing, pages, container, slots]);

  // Each drawn page's height, as laid out (a ResizeObserver reads it after
  // layout, so measuring forces none). A browser without scroll anchoring
  // (WebKit) is scrolled by the difference when a page above the view is
  // drawn at a height other than its box had, so what is in view stays.
  const placeholder = useRef(new Map<Element, number>());
  const anchors = typeof CSS !== "undefined" && CSS.supports?.("overflow-anchor", "auto") === true;
  useEffect(() => {
    if (typeof ResizeObserver === "undefined") return;
    const list = slots.current ?? [];
    const ro = new ResizeObserver((entries) => {
      let changed = false;
      for (const e of entries) {
        const el = e.target as HTMLElement;
        if (el.dataset.drawn !== "true") continue;
        const i = Number(el.dataset.page);
        const page = pages[i];
        if (page === undefined) continue;
        const h = el.getBoundingClientRect().height;
        if (measured.current.get(page.key) !== h) changed = true;
        measured.current.set(page.key, h);
        const was = placeholder.current.get(el);
        placeholder.current.delete(el);
        if (!anchors && was !== undefined && was !== h) {
          const box = scrollBox(container.current);
          const top = box === null ? 0 : box.getBoundingClientRect().top;
          if (el.getBoundingClientRect().bottom <= top + 1) {
            if (box === null) window.scrollBy(0, h - was);
            else box.scrollTop += h - was;
          }
        }
      }
      if (!changed) return;
      let rows = 0;
      let px = 0;
      for (const p of pages) {
        const h = measured.current.get(p.key);
        if (h !== undefined && p.rows > 0) {
          rows += p.rows;
          px += h;
        }
      }
      if (rows > 0) setPerRow((old) => (Math.abs(old - px / rows) < 0.25 ? old : px / rows));
    });
    for (const el of list.slice(0, pages.length)) if (el) ro.observe(el);
    return () => ro.disconnect();
  }, [pages, container, slots, anchors]);

  const height = useCallback(
    (i: number) => {
      const p = pages[i];
      if (p === undefined) return 0;
      return measured.current.get(p.key) ?? Math.round(p.rows * perRow);
    },
    [pages, perRow],
  );

  // A page's box remembers the height it had while empty, so the
  // ResizeObserver knows by how much it grew when drawn.
  const drawn = observing ? withKeep(near, keep) : null;
  useLayoutEffect(() => {
    const list = slots.current ?? [];
    list.slice(0, pages.length).forEach((el, i) => {
      if (el === null) return;
      if (drawn !== null && !drawn.has(i)) placeholder.current.set(el, height(i));
    });
  });
  return { drawn, height };
}

function withKeep(near: ReadonlySet<number>, keep: number): ReadonlySet<number> {
  if (keep < 0 || near.has(keep)) return near;
  return new Set(near).add(keep);
}

function same(a: ReadonlySet<number>, b: ReadonlySet<number>): boolean {
  if (a.size !== b.size) return false;
  for (const x of a) if (!b.has(x)) return false;
  return true;
}
