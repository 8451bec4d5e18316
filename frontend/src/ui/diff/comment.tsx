// The comment button of a diff's lines: one button for the whole diff, by
// the line of the after side under the mouse, rather than one in every
// line (a button per line is an element, a tab stop and its styles for
// each of thousands of lines). From the keyboard it is one tab stop; Up
// and Down move it to the line before or after.
import { useCallback, useEffect, useRef, useState, type KeyboardEvent, type MouseEvent, type ReactElement, type RefObject } from "react";

/**
 * Where the button is: the after side's line (from 1), its row and its
 * place in the box (none until it is measured: the button is then at the
 * box's start, seen only once it has the mouse or the focus, which places it).
 */
interface Spot {
  line: number;
  row: HTMLTableRowElement;
  top?: number;
  left?: number;
  height?: number;
}

/**
 * afterLine is the after side's line number of a row of the diff (0 when
 * it has none: a removed line, a header): the number in its last gutter
 * cell, which is the after side's in every layout but a deleted file's
 * split view (hasAfter false).
 */
export function afterLine(row: Element, hasAfter: boolean): number {
  if (!hasAfter || !row.classList.contains("diff-line")) return 0;
  const gutters = row.querySelectorAll("td.diff-gutter");
  const last = gutters[gutters.length - 1];
  const n = Number.parseInt(last?.textContent ?? "", 10);
  return Number.isFinite(n) && n > 0 ? n : 0;
}

/**
 * useLineComment gives the diff's box its mouse move handler and the one
 * comment button (null without onComment, or before any line of the
 * after side is drawn). The button starts by the first such line drawn,
 * so it can be reached with Tab before the mouse moved.
 */
export function useLineComment(
  box: RefObject<HTMLElement | null>,
  onComment: ((lines: { start: number; end: number }) => void) | undefined,
  hasAfter: boolean,
): { onMouseMove: ((e: MouseEvent) => void) | undefined; button: ReactElement | null } {
  const [spot, setSpot] = useState<Spot | null>(null);
  const current = useRef<Spot | null>(null);
  current.current = spot;

  const place = useCallback(
    (row: HTMLTableRowElement) => {
      const el = box.current;
      const line = afterLine(row, hasAfter);
      if (el === null || line === 0) return;
      const at = el.getBoundingClientRect();
      const r = row.getBoundingClientRect();
      const gutters = row.querySelectorAll("td.diff-gutter");
      const g = (gutters[gutters.length - 1] ?? row).getBoundingClientRect();
      const next = { line, row, top: r.top - at.top + el.scrollTop, left: g.left - at.left + el.scrollLeft, height: r.height };
      const old = current.current;
      if (old !== null && old.row === row && old.line === line && old.top === next.top && old.left === next.left && old.height === next.height) return;
      setSpot(next);
    },
    [box, hasAfter],
  );

  // Before the mouse moves: the first line of the after side in the box,
  // not measured (measuring here would lay out a page just drawn at once,
  // in the task that drew it). A row dropped since (its page scrolled far
  // away) is replaced when the button gets the focus, not on every draw.
  useEffect(() => {
    if (onComment === undefined || current.current !== null) return;
    const rows = box.current?.querySelectorAll<HTMLTableRowElement>("tr.diff-line") ?? [];
    for (const row of rows) {
      const line = afterLine(row, hasAfter);
      if (line > 0) {
        setSpot({ line, row });
        return;
      }
    }
  });

  // On the mouse's own moves only: the lines passing under a still mouse
  // while the view scrolls (a mouseover each, no move) would measure and
  // redraw the button in every frame of the scroll. A move within the
  // button's row measures nothing.
  const onMouseMove = useCallback(
    (e: MouseEvent) => {
      if (e.movementX === 0 && e.movementY === 0) return;
      const row = (e.target as Element).closest?.("tr.diff-line");
      if (!(row instanceof HTMLTableRowElement) || !box.current?.contains(row)) return;
      const old = current.current;
      if (old !== null && old.row === row && old.top !== undefined) return;
      place(row);
    },
    [box, place],
  );

  const onKeyDown = (e: KeyboardEvent) => {
    if ((e.key !== "ArrowDown" && e.key !== "ArrowUp") || spot === null || box.current === null) return;
    const rows = [...box.current.querySelectorAll<HTMLTableRowElement>("tr.diff-line")].filter((r) => afterLine(r, hasAfter) > 0);
    const at = rows.indexOf(spot.row);
    const next = rows[e.key === "ArrowDown" ? at + 1 : at < 0 ? 0 : at - 1];
    e.preventDefault();
    if (next === undefined) return;
    next.scrollIntoView?.({ block: "nearest" });
    place(next);
  };

  if (onComment === undefined || spot === null) return { onMouseMove: undefined, button: null };
  const { line } = spot;
  return {
    onMouseMove,
    button: (
      <button
        type="button"
        className="diffview-comment"
        style={{ top: spot.top, left: spot.left, height: spot.height }}
        aria-label={`Comment on line ${line}`}
        aria-keyshortcuts="ArrowUp ArrowDown"
        title={`Comment on line ${line} (Up and Down: the line before or after)`}
        onKeyDown={onKeyDown}
        onFocus={() => place(spot.row.isConnected ? spot.row : (firstRow(box.current, hasAfter) ?? spot.row))}
        onClick={() => onComment({ start: line, end: line })}
      >
        +
      </button>
    ),
  };
}

// firstRow is the first row drawn in box with a line of the after side.
function firstRow(box: HTMLElement | null, hasAfter: boolean): HTMLTableRowElement | null {
  for (const row of box?.querySelectorAll<HTMLTableRowElement>("tr.diff-line") ?? []) if (afterLine(row, hasAfter) > 0) return row;
  return null;
}
