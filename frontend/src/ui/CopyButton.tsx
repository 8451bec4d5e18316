import { Check, Copy } from "lucide-react";
import { useEffect, useRef, useState } from "react";
import "./feedback.css";

/** copiedFor is how long (ms) the button says "Copied" before it reads "Copy" again. */
const copiedFor = 2000;

type State = { kind: "idle" } | { kind: "copied" } | { kind: "refused"; why: string };

/**
 * CopyButton puts text on the clipboard (navigator.clipboard.writeText)
 * and says so: "Copied" for a moment, announced politely; when the
 * clipboard is refused or missing it says that, with what to do instead
 * (select the text and press Ctrl+C), and keeps saying it until the next try.
 * label names what is copied ("Copy code", "Copy message").
 */
export function CopyButton(props: { text: string | (() => string); label: string; className?: string }) {
  const [state, setState] = useState<State>({ kind: "idle" });
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(
    () => () => {
      if (timer.current !== null) clearTimeout(timer.current);
    },
    [],
  );
  const copy = async () => {
    const text = typeof props.text === "function" ? props.text() : props.text;
    if (timer.current !== null) clearTimeout(timer.current);
    try {
      // A page without clipboard access (not a secure context) has no navigator.clipboard.
      if (typeof navigator === "undefined" || navigator.clipboard === undefined) throw new Error("this page has no clipboard access");
      await navigator.clipboard.writeText(text);
      setState({ kind: "copied" });
      timer.current = setTimeout(() => setState({ kind: "idle" }), copiedFor);
    } catch (e) {
      setState({ kind: "refused", why: e instanceof Error ? e.message : String(e) });
    }
  };
  const copied = state.kind === "copied";
  return (
    <span className={`copy${props.className !== undefined ? ` ${props.className}` : ""}`}>
      <button type="button" className="copy-button" onClick={() => void copy()} aria-label={props.label} title={props.label}>
        {copied ? <Check size={14} aria-hidden="true" /> : <Copy size={14} aria-hidden="true" />}
        <span className="copy-word" aria-hidden="true">
          {copied ? "Copied" : "Copy"}
        </span>
      </button>
      <span className={state.kind === "refused" ? "copy-refused" : "visually-hidden"} role="status">
        {copied
          ? "Copied"
          : state.kind === "refused"
            ? `Not copied: the clipboard was refused (${state.why}). Select the text and press Ctrl+C instead.`
            : ""}
      </span>
    </span>
  );
}
