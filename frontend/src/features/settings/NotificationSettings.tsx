import { useState } from "react";
import { useApi } from "../../backend";
import { notifySetting, type NotifyKind } from "../../backend/attention";
import { Notice } from "../../ui/Notice";
import { useLoad } from "../useLoad";
import { errorText } from "./errors";
import { Result } from "./ModeSettings";

const kinds: readonly { kind: NotifyKind; label: string; why: string }[] = [
  { kind: "approval", label: "Approval waiting", why: "An approval request waits for your answer." },
  { kind: "run_ended", label: "Run ended", why: "A run finished and the session waits for your next message." },
  { kind: "run_failed", label: "Run failed", why: "A run stopped with an error, and says why." },
];

/**
 * NotificationSettings turns each kind of notification on or off (the
 * notify.* settings). Notifications show only while Foya's window is not
 * in front; each names the session and what waits.
 */
export function NotificationSettings() {
  const api = useApi();
  const { state: load, reload, set } = useLoad(() => api.Settings(), [api]);
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<{ ok: boolean; text: string } | null>(null);

  const change = async (kind: NotifyKind, label: string, on: boolean) => {
    const key = notifySetting[kind];
    setBusy(true);
    setResult(null);
    try {
      await api.SetSetting(key, String(on));
      if (load.status === "ready") set({ ...load.value, [key]: String(on) });
      setResult({ ok: true, text: on ? `“${label}” notifications are on.` : `“${label}” notifications are off.` });
    } catch (e) {
      setResult({ ok: false, text: `The setting was not changed: ${errorText(e)}` });
    } finally {
      setBusy(false);
    }
  };

  switch (load.status) {
    case "loading":
      return <p className="muted">Loading the notification settings…</p>;
    case "error":
      return (
        <Notice kind="alert" title="Could not read the notification settings">
          <p className="error-text">{errorText(load.error)}</p>
          <button type="button" className="button" onClick={reload}>
            Try again
          </button>
        </Notice>
      );
  }
  const values = load.value ?? {};
  return (
    <div className="settings-section">
      <fieldset className="notify-kinds">
        <legend>Notify me when</legend>
        <p className="muted">Only while Foya's window is not in front. Each notification names the session and what waits.</p>
        {kinds.map((k) => (
          <label className="check-label" key={k.kind}>
            <input
              type="checkbox"
              checked={values[notifySetting[k.kind]] !== "false"}
              disabled={busy}
              onChange={(e) => void change(k.kind, k.label, e.target.checked)}
            />{" "}
            <span>
              <strong>{k.label}</strong> <span className="muted">{k.why}</span>
            </span>
          </label>
        ))}
      </fieldset>
      <Result result={result} />
    </div>
  );
}
