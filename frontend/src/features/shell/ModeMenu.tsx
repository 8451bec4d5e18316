import { Check, ChevronDown, Hand, ShieldCheck, Zap } from "lucide-react";
import { AlertDialog, DropdownMenu } from "radix-ui";
import { useEffect, useRef, useState } from "react";
import { toApiError, useApi } from "../../backend";
import { Button } from "../../ui/Button";
import { useMode } from "../session/hooks";
import { modeHint, modeLabel, modes, toMode, type Mode } from "../sessions/modes";
import { fullAccessWarning } from "../settings/modes";
import { shortcutOf } from "./keyboard";
import "./modemenu.css";

const icons: Record<Mode, typeof Hand> = { manual: Hand, auto: ShieldCheck, full_access: Zap };

/** modeMenuKeys is how the shortcut that opens the menu is written for people (docs/ui.md, "Keyboard"). */
export const modeMenuKeys = "Ctrl+Shift+M";

/**
 * ModeMenu is the open session's approval mode in the header, as a button
 * that opens a menu of the three modes, each with its sentence. Choosing
 * one switches the session's mode (SetMode: the kernel records session.mode,
 * which the conversation shows and the pill follows); Full Access asks
 * first in an alert dialog that says what it allows. Ctrl+Shift+M (Cmd on
 * macOS) opens the menu. Focus comes back to the pill when the menu or the
 * dialog closes. listed is the mode the session list gave, shown until the
 * session's store knows.
 */
export function ModeMenu(props: { sessionId: string; listed: string }) {
  const api = useApi();
  const live = useMode();
  const current = toMode(live !== "" ? live : props.listed);
  const [open, setOpen] = useState(false);
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState("");
  const pill = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (shortcutOf(e) !== "modeMenu" || e.defaultPrevented) return;
      e.preventDefault();
      pill.current?.focus();
      setOpen(true);
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);

  const change = async (m: Mode) => {
    setBusy(true);
    setError("");
    try {
      await api.SetMode(props.sessionId, m);
    } catch (e) {
      setError(`The mode was not changed: ${toApiError(e).message}`);
    } finally {
      setBusy(false);
    }
  };
  const choose = (m: Mode) => {
    if (m === current || busy) return;
    if (m === "full_access") setAsking(true);
    else void change(m);
  };

  const Icon = current === null ? null : icons[current];
  const name = current === null ? "not known yet" : modeLabel[current];
  return (
    <div className="mode-menu">
      <DropdownMenu.Root open={open} onOpenChange={setOpen} modal={false}>
        <DropdownMenu.Trigger asChild>
          <button
            ref={pill}
            type="button"
            className={`mode-badge mode-pill mode-${current ?? "unknown"}`}
            aria-label={`Approval mode: ${name}`}
            aria-keyshortcuts="Control+Shift+M"
            title={current === null ? `Approval mode (${modeMenuKeys})` : `${modeHint[current]} (${modeMenuKeys} to change)`}
            aria-busy={busy}
          >
            {Icon !== null && <Icon size={14} aria-hidden="true" />}
            {current === null ? "Mode …" : modeLabel[current]}
            <ChevronDown size={12} aria-hidden="true" />
          </button>
        </DropdownMenu.Trigger>
        <DropdownMenu.Portal>
          <DropdownMenu.Content className="mode-menu-content" align="end" sideOffset={6}>
            <DropdownMenu.RadioGroup value={current ?? ""} onValueChange={(v) => choose(toMode(v) ?? "manual")}>
              {modes.map((m) => {
                const I = icons[m];
                return (
                  <DropdownMenu.RadioItem key={m} value={m} className={`mode-menu-item mode-${m}`} aria-describedby={`mode-menu-${m}-why`}>
                    <span className="mode-menu-check" aria-hidden="true">
                      <DropdownMenu.ItemIndicator>
                        <Check size={14} />
                      </DropdownMenu.ItemIndicator>
                    </span>
                    <I size={14} aria-hidden="true" />
                    <span className="mode-menu-text">
                      <span className="mode-menu-label">{modeLabel[m]}</span>
                      <span className="mode-menu-why muted" id={`mode-menu-${m}-why`}>
                        {modeHint[m]}
                      </span>
                    </span>
                  </DropdownMenu.RadioItem>
                );
              })}
            </DropdownMenu.RadioGroup>
          </DropdownMenu.Content>
        </DropdownMenu.Portal>
      </DropdownMenu.Root>
      {error !== "" && (
        <p role="alert" className="error-text mode-menu-error">
          {error}
        </p>
      )}
      <AlertDialog.Root open={asking} onOpenChange={setAsking}>
        <AlertDialog.Portal>
          <AlertDialog.Overlay className="mode-confirm-overlay" />
          <AlertDialog.Content
            className="mode-confirm"
            onCloseAutoFocus={(e) => {
              e.preventDefault();
              pill.current?.focus();
            }}
          >
            <AlertDialog.Title>Switch this session to Full Access?</AlertDialog.Title>
            <AlertDialog.Description>{fullAccessWarning}</AlertDialog.Description>
            <div className="confirm-actions">
              <AlertDialog.Cancel asChild>
                <Button>Cancel</Button>
              </AlertDialog.Cancel>
              <AlertDialog.Action asChild>
                <Button variant="danger" onClick={() => void change("full_access")}>
                  Switch to Full Access
                </Button>
              </AlertDialog.Action>
            </div>
          </AlertDialog.Content>
        </AlertDialog.Portal>
      </AlertDialog.Root>
    </div>
  );
}
