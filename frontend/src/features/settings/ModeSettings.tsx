import { useState } from "react";
import { useApi } from "../../backend";
import { Notice } from "../../ui/Notice";
import { ModeChooser } from "./ModeChooser";
import { errorText } from "./errors";
import { modeLabel, type ModeName } from "./modes";
import { useLoad } from "../useLoad";

/**
 * ModeSettings switches the open session's approval mode (SetMode: it
 * applies from the next decision, also during a run, and the kernel records
 * session.mode in the conversation) and the mode new sessions start in.
 */
export function ModeSettings(props: { sessionId: string | null }) {
  return (
    <div className="settings-section">
      <section aria-labelledby="mode-session-h">
        <h3 id="mode-session-h">This session</h3>
        {props.sessionId === null ? (
          <p className="muted">No session is open: open one to change its approval mode.</p>
        ) : (
          <SessionMode sessionId={props.sessionId} />
        )}
      </section>
      <section aria-labelledby="mode-default-h">
        <h3 id="mode-default-h">New sessions</h3>
        <DefaultMode />
      </section>
    </div>
  );
}

function SessionMode(props: { sessionId: string }) {
  const api = useApi();
  const { sessionId } = props;
  const { state: load, reload, set } = useLoad(async () => (await api.Session(sessionId)).approvalMode, [api, sessionId]);
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<{ ok: boolean; text: string } | null>(null);

  const change = async (m: ModeName) => {
    setBusy(true);
    setResult(null);
    try {
      await api.SetMode(sessionId, m);
      set(m);
      setResult({
        ok: true,
        text: `This session is now in ${modeLabel(m)}. It applies from the agent's next decision, also during a run, and the switch shows in the conversation.`,
      });
    } catch (e) {
      setResult({ ok: false, text: `The mode was not changed: ${errorText(e)}` });
    } finally {
      setBusy(false);
    }
  };

  switch (load.status) {
    case "loading":
      return <p className="muted">Loading the session's mode…</p>;
    case "error":
      return (
        <Notice kind="alert" title="Could not read the session's mode">
          <p className="error-text">{errorText(load.error)}</p>
          <button type="button" className="button" onClick={reload}>
            Try again
          </button>
        </Notice>
      );
  }
  return (
    <>
      <ModeChooser label="Approval mode of this session" target="this session" value={load.value} disabled={busy} onChange={change} />
      <Result result={result} />
    </>
  );
}

function DefaultMode() {
  const api = useApi();
  const { state: load, reload, set } = useLoad(() => api.DefaultMode(), [api]);
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<{ ok: boolean; text: string } | null>(null);

  const change = async (m: ModeName) => {
    setBusy(true);
    setResult(null);
    try {
      await api.SetDefaultMode(m);
      set(m);
      setResult({ ok: true, text: `New sessions start in ${modeLabel(m)}. Sessions that exist keep their mode.` });
    } catch (e) {
      setResult({ ok: false, text: `The default was not changed: ${errorText(e)}` });
    } finally {
      setBusy(false);
    }
  };

  switch (load.status) {
    case "loading":
      return <p className="muted">Loading the default mode…</p>;
    case "error":
      return (
        <Notice kind="alert" title="Could not read the default mode">
          <p className="error-text">{errorText(load.error)}</p>
          <button type="button" className="button" onClick={reload}>
            Try again
          </button>
        </Notice>
      );
  }
  return (
    <>
      <ModeChooser label="Default approval mode for new sessions" target="new sessions" value={load.value} disabled={busy} onChange={change} />
      <Result result={result} />
    </>
  );
}

/** Result shows the outcome of the last change: a status, or an alert. */
export function Result(props: { result: { ok: boolean; text: string } | null }) {
  if (props.result === null) return null;
  return props.result.ok ? (
    <p role="status" className="result-ok">
      {props.result.text}
    </p>
  ) : (
    <p role="alert" className="error-text">
      {props.result.text}
    </p>
  );
}
