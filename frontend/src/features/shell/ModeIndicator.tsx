import { Hand, ShieldCheck, Zap } from "lucide-react";
import { useMode } from "../session/hooks";
import { modeHint, modeLabel, toMode, type Mode } from "../sessions/modes";

const icons: Record<Mode, typeof Hand> = { manual: Hand, auto: ShieldCheck, full_access: Zap };

/**
 * ModeBadge shows an approval mode in words with an icon and its one-line
 * meaning as the description. Each mode has its own style; Full Access is
 * marked (warning colour, bold), not alarming.
 */
export function ModeBadge(props: { mode: string }) {
  const m = toMode(props.mode);
  if (m === null) {
    return (
      <span className="mode-badge mode-unknown" role="status" aria-label="Approval mode: not known yet">
        Mode …
      </span>
    );
  }
  const Icon = icons[m];
  return (
    <span className={`mode-badge mode-${m}`} role="status" aria-label={`Approval mode: ${modeLabel[m]}`} title={modeHint[m]}>
      <Icon size={14} aria-hidden="true" />
      {modeLabel[m]}
    </span>
  );
}

/**
 * ModeIndicator is the open session's approval mode, live from its store
 * (session.mode events); listed is the mode the session list gave, used
 * until the store knows.
 */
export function ModeIndicator(props: { listed: string }) {
  const mode = useMode();
  return <ModeBadge mode={mode !== "" ? mode : props.listed} />;
}
