import type { UIReport } from "./backend";
import { Shell } from "./features/shell";

/**
 * App is Foya's window (features/shell: the sessions sidebar, the open
 * session, settings). onReady, if given, is told once what the window
 * first rendered (the desktop smoke test reads it).
 */
export function App(props: { onReady?: (r: UIReport) => void }) {
  return <Shell {...(props.onReady !== undefined ? { onReady: props.onReady } : {})} />;
}
