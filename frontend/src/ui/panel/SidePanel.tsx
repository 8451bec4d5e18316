// SidePanel is the frame of a view beside the conversation (the review,
// the background commands): its width is the person's, set by dragging its
// left edge or from the keyboard on that edge (a focusable separator) and
// kept in localStorage; and it can take the whole window and give it back.
// The view inside shows the full-window toggle (FullWindowButton) where
// its other controls are.
import { createContext, useContext, useEffect, useRef, useState, type KeyboardEvent, type PointerEvent, type ReactNode } from "react";
import { Maximize2, Minimize2 } from "lucide-react";
import { useStoredNumber } from "../stored";
import "./panel.css";

/** PANEL_MIN is the narrowest a side panel gets, in CSS pixels. */
export const PANEL_MIN = 300;
/** CENTRE_MIN is what a side panel leaves to the conversation beside it. */
export const CENTRE_MIN = 320;
/** STEP and BIG_STEP are the keyboard's resize steps (arrow, shift+arrow). */
export const STEP = 16;
export const BIG_STEP = 64;
// FALLBACK is the width assumed when none is kept and none can be measured.
const FALLBACK = 560;

/**
 * clampWidth keeps a width between PANEL_MIN and what leaves CENTRE_MIN of
 * available (the width the conversation and the panel share); an unknown
 * available (0) sets no upper bound.
 */
export function clampWidth(width: number, available: number): number {
  const max = available > 0 ? Math.max(PANEL_MIN, available - CENTRE_MIN) : Infinity;
  return Math.round(Math.min(Math.max(width, PANEL_MIN), max));
}

interface Frame {
  full: boolean;
  setFull: (full: boolean) => void;
}

const FrameContext = createContext<Frame | null>(null);

export interface SidePanelProps {
  /** What the panel holds, for the separator's name ("Resize the review panel"). */
  name: string;
  /** The localStorage key its width is kept under. */
  storageKey: string;
  children: ReactNode;
}

export function SidePanel(props: SidePanelProps) {
  const [kept, keep] = useStoredNumber(props.storageKey);
  const [dragged, setDragged] = useState<number | null>(null);
  const [full, setFull] = useState(false);
  const box = useRef<HTMLDivElement>(null);

  // The panel's drawn width and the width it shares with the conversation,
  // followed as the window or the panel changes.
  const [sizes, setSizes] = useState({ panel: 0, available: 0 });
  useEffect(() => {
    const el = box.current;
    const parent = el?.parentElement;
    if (!el || !parent) return;
    const measure = () => setSizes({ panel: el.getBoundingClientRect().width, available: parent.clientWidth });
    measure();
    if (typeof ResizeObserver === "undefined") return;
    const ro = new ResizeObserver(measure);
    ro.observe(el);
    ro.observe(parent);
    return () => ro.disconnect();
  }, []);

  const available = () => box.current?.parentElement?.clientWidth ?? sizes.available;
  const width = dragged ?? kept;
  const avail = sizes.available;
  const shown = clampWidth(width ?? (Math.round(sizes.panel) || FALLBACK), avail);

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const step = e.shiftKey ? BIG_STEP : STEP;
    let next: number;
    // The edge is on the panel's left: moving it left widens the panel.
    if (e.key === "ArrowLeft") next = shown + step;
    else if (e.key === "ArrowRight") next = shown - step;
    else if (e.key === "Home") next = PANEL_MIN;
    else if (e.key === "End") next = Infinity;
    else return;
    e.preventDefault();
    keep(clampWidth(next, available()));
  };

  // The drag under way: where it started, and the width it has reached
  // (kept when the pointer is let go).
  const drag = useRef<{ x: number; width: number; now: number } | null>(null);
  const onPointerDown = (e: PointerEvent<HTMLDivElement>) => {
    if (e.button !== 0) return;
    e.preventDefault();
    e.currentTarget.setPointerCapture?.(e.pointerId);
    drag.current = { x: e.clientX, width: shown, now: shown };
    setDragged(shown);
  };
  const onPointerMove = (e: PointerEvent<HTMLDivElement>) => {
    const d = drag.current;
    if (d === null) return;
    d.now = clampWidth(d.width + (d.x - e.clientX), available());
    setDragged(d.now);
  };
  const onPointerUp = () => {
    const d = drag.current;
    if (d === null) return;
    drag.current = null;
    keep(d.now);
    setDragged(null);
  };

  const max = avail > 0 ? clampWidth(Infinity, avail) : undefined;
  return (
    <FrameContext.Provider value={{ full, setFull }}>
      <div
        ref={box}
        className={`side-panel${full ? " side-panel-full" : ""}${dragged !== null ? " side-panel-dragging" : ""}`}
        style={!full && width !== null ? { width: clampWidth(width, avail) } : undefined}
      >
        {!full && (
          <div
            role="separator"
            aria-orientation="vertical"
            aria-label={`Resize the ${props.name} panel`}
            aria-valuenow={shown}
            aria-valuemin={PANEL_MIN}
            {...(max !== undefined ? { "aria-valuemax": max } : {})}
            aria-valuetext={`${shown} pixels wide`}
            tabIndex={0}
            className="side-panel-edge"
            title="Drag to resize; arrow keys when focused"
            onKeyDown={onKeyDown}
            onPointerDown={onPointerDown}
            onPointerMove={onPointerMove}
            onPointerUp={onPointerUp}
            onPointerCancel={onPointerUp}
          />
        )}
        {props.children}
      </div>
    </FrameContext.Provider>
  );
}

/**
 * FullWindowButton switches the side panel it is in between its place
 * beside the conversation and the whole window; outside a SidePanel it
 * renders nothing.
 */
export function FullWindowButton(props: { className?: string }) {
  const frame = useContext(FrameContext);
  if (frame === null) return null;
  const Icon = frame.full ? Minimize2 : Maximize2;
  return (
    <button
      type="button"
      className={`side-panel-full-toggle ${props.className ?? ""}`}
      aria-pressed={frame.full}
      aria-label="Full window"
      title={frame.full ? "Back beside the conversation" : "Take the whole window"}
      onClick={() => frame.setFull(!frame.full)}
    >
      <Icon size={16} aria-hidden />
    </button>
  );
}
