// KeyboardHelp is the keyboard map in the app: "?" (anywhere but a text
// field) or the sidebar's keyboard button opens it. Its lists are the
// same the keys' own modules answer (the review panel's reviewKeys), so
// the map says what the app does.
import { useEffect, useRef, useState } from "react";
import { Keyboard } from "lucide-react";
import { Dialog } from "../../ui/Dialog";
import { IconButton } from "../../ui/IconButton";
import { typing } from "../../ui/typing";
import { reviewKeys } from "../changes/keys";
import { steerShortcut } from "../conversation/queue";

const mac = typeof navigator !== "undefined" && /Mac/.test(navigator.platform);
const mod = mac ? "Cmd" : "Ctrl";

/** sections are the keyboard map's groups: where the keys work, and what each does. */
export const sections: { title: string; keys: { keys: string; does: string }[] }[] = [
  {
    title: "Anywhere",
    keys: [
      { keys: `${mod}+N, Ctrl+Alt+N`, does: "new session" },
      { keys: `${mod}+K`, does: "search the sessions" },
      { keys: `${mod}+,`, does: "settings" },
      { keys: `${mod}+Shift+M`, does: "the open session's approval mode" },
      { keys: "?", does: "this list" },
    ],
  },
  {
    title: "An approval request",
    keys: [
      { keys: "Y", does: "allow once" },
      { keys: "S", does: "allow for this session" },
      { keys: "N", does: "deny" },
      { keys: mac ? "Option+A" : "Alt+A", does: "go to the waiting request" },
      { keys: "Escape", does: "back to the message box (answers nothing)" },
    ],
  },
  {
    title: "The message box",
    keys: [
      { keys: "Enter", does: "send (while a run goes: queue)" },
      { keys: "Shift+Enter", does: "new line" },
      { keys: steerShortcut.label, does: "send the first queued message now, to the running run" },
      { keys: "Up", does: "the last prompt again (empty box, no run going)" },
      { keys: "@", does: "mention a file of the session's folder" },
      { keys: `${mod}+V`, does: "paste an image" },
      { keys: "Escape", does: "stop the run" },
    ],
  },
  { title: "The review panel", keys: reviewKeys.map((k) => ({ keys: k.keys, does: k.does })) },
];

export function KeyboardHelp() {
  const [open, setOpenState] = useState(false);
  // The focus goes back where it was when the list opened.
  const back = useRef<HTMLElement | null>(null);
  const setOpen = (o: boolean) => {
    if (o) back.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    setOpenState(o);
    if (!o) setTimeout(() => back.current?.focus(), 0);
  };
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== "?" || e.ctrlKey || e.metaKey || e.altKey || e.defaultPrevented || typing(e.target)) return;
      e.preventDefault();
      back.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
      setOpenState(true);
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);
  return (
    <>
      <IconButton label="Keyboard shortcuts" icon={<Keyboard size={16} />} onClick={() => setOpen(true)} aria-keyshortcuts="?" />
      <Dialog open={open} onOpenChange={setOpen} title="Keyboard shortcuts">
        <div className="keyboard-help">
          {sections.map((s) => (
            <section key={s.title} aria-label={s.title}>
              <h3>{s.title}</h3>
              <dl>
                {s.keys.map((k) => (
                  <div key={k.keys} className="keyboard-help-row">
                    <dt>
                      <kbd>{k.keys}</kbd>
                    </dt>
                    <dd>{k.does}</dd>
                  </div>
                ))}
              </dl>
            </section>
          ))}
        </div>
      </Dialog>
    </>
  );
}
