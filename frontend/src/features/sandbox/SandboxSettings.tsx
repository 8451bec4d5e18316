// Settings → Sandbox: what the open session's sandboxed commands may do
// beyond the workspace, each grant with Revoke, and a form that allows a
// folder or the network for the session without a refused call to start
// from. The kernel refuses what it never grants (the root, the home folder,
// system folders, credentials, Foya's data) and says why at the field.
import { useState, type FormEvent } from "react";
import { Button } from "../../ui/Button";
import { Field } from "../../ui/Field";
import { errorText } from "../settings/errors";
import { useSandboxGrants } from "./useSandboxGrants";
import "./sandbox.css";

/** SandboxSettings is the Sandbox tab: the open session's grants, and allowing more. */
export function SandboxSettings({ sessionId }: { sessionId: string | null }) {
  return (
    <div className="settings-section">
      <section aria-labelledby="sandbox-session-h">
        <h3 id="sandbox-session-h">This session's commands</h3>
        {sessionId === null ? <p className="muted">No session is open: open one to allow its commands more.</p> : <Grants sessionId={sessionId} />}
      </section>
    </div>
  );
}

function Grants({ sessionId }: { sessionId: string }) {
  const { grants, error, allow, revoke } = useSandboxGrants(sessionId);
  const [folder, setFolder] = useState("");
  const [folderError, setFolderError] = useState("");
  const [said, setSaid] = useState<{ ok: boolean; text: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const network = grants.some((g) => g.kind === "network" && !g.once);
  const run = async (f: () => Promise<string>) => {
    setBusy(true);
    setSaid(null);
    try {
      setSaid({ ok: true, text: await f() });
    } catch (e) {
      setSaid({ ok: false, text: errorText(e) });
    } finally {
      setBusy(false);
    }
  };
  const onAllowFolder = async (e: FormEvent) => {
    e.preventDefault();
    const f = folder.trim();
    if (f === "") {
      setFolderError("Name the folder, as an absolute path.");
      return;
    }
    setBusy(true);
    setFolderError("");
    setSaid(null);
    try {
      const g = await allow({ kind: "write", folder: f, once: false });
      setFolder("");
      setSaid({ ok: true, text: `Allowed: ${g.text}.` });
    } catch (err) {
      setFolderError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <p className="muted">
        Sandboxed commands write only the workspace and the session's temp folder, without network. Beyond that, they may:
      </p>
      {error !== "" && (
        <p role="alert" className="error-text">
          {error}
        </p>
      )}
      {grants.length === 0 && error === "" ? (
        <p>Nothing more.</p>
      ) : (
        <ul className="sandbox-grant-list" aria-label="Sandbox grants of this session">
          {grants.map((g) => (
            <li key={g.id} className="sandbox-grant">
              <span className={g.kind === "write" ? "mono" : ""}>{g.text}</span>
              <Button disabled={busy} aria-label={`Revoke ${g.text}`} onClick={() => void run(async () => (await revoke(g.id), `Revoked: ${g.text}.`))}>
                Revoke
              </Button>
            </li>
          ))}
        </ul>
      )}
      <form className="sandbox-allow" onSubmit={(e) => void onAllowFolder(e)} aria-label="Allow a folder">
        <Field
          label="A folder its commands may write"
          hint="An absolute path, such as a package manager's cache. Credentials, Foya's data, system folders and .git folders are never made writable."
          error={folderError}
        >
          {(c) => <input {...c} className="mono" value={folder} onChange={(e) => setFolder(e.target.value)} placeholder="/home/you/.npm" spellCheck={false} />}
        </Field>
        <Button type="submit" disabled={busy}>
          Allow for this session
        </Button>
      </form>
      {!network && (
        <p>
          <Button disabled={busy} onClick={() => void run(async () => `Allowed: ${(await allow({ kind: "network", once: false })).text}.`)}>
            Turn the network on for this session's commands
          </Button>{" "}
          <span className="muted">Their files stay confined; any host is reachable.</span>
        </p>
      )}
      {said !== null && (
        <p role={said.ok ? "status" : "alert"} className={said.ok ? "" : "error-text"}>
          {said.text}
        </p>
      )}
    </>
  );
}
