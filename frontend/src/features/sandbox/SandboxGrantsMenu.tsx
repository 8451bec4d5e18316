// The open session's sandbox grants in the header: a pill, shown while
// there are any, that opens the list of what its sandboxed commands may
// write or reach beyond the workspace, each with Revoke.
import { ShieldPlus } from "lucide-react";
import { Popover } from "radix-ui";
import { useState } from "react";
import { Button } from "../../ui/Button";
import { errorText } from "../settings/errors";
import { useSandboxGrants } from "./useSandboxGrants";
import "./sandbox.css";

/** SandboxGrantsMenu is the header's pill and list of the session's sandbox grants; nothing when there are none. */
export function SandboxGrantsMenu({ sessionId }: { sessionId: string }) {
  const { grants, error, revoke } = useSandboxGrants(sessionId);
  const [failed, setFailed] = useState("");
  const [busy, setBusy] = useState(-1);
  if (grants.length === 0 && error === "") return null;
  const onRevoke = async (id: number) => {
    setBusy(id);
    setFailed("");
    try {
      await revoke(id);
    } catch (e) {
      setFailed(`Not revoked: ${errorText(e)}`);
    } finally {
      setBusy(-1);
    }
  };
  const label = error !== "" ? "Sandbox grants: not listed" : `Sandbox: ${grants.length} allowed`;
  return (
    <Popover.Root>
      <Popover.Trigger asChild>
        <button type="button" className="mode-badge sandbox-pill" aria-label={`${label} beyond the workspace`}>
          <ShieldPlus size={14} aria-hidden="true" />
          {label}
        </button>
      </Popover.Trigger>
      <Popover.Portal>
        <Popover.Content className="sandbox-grants" align="end" sideOffset={6} aria-label="Sandbox grants of this session">
          <p className="sandbox-grants-title">Beyond the workspace, this session's sandboxed commands may:</p>
          {error !== "" && (
            <p role="alert" className="error-text">
              {error}
            </p>
          )}
          <ul>
            {grants.map((g) => (
              <li key={g.id} className="sandbox-grant">
                <span className={g.kind === "write" ? "mono" : ""}>{g.text}</span>
                <Button variant="ghost" disabled={busy === g.id} aria-label={`Revoke ${g.text}`} onClick={() => void onRevoke(g.id)}>
                  Revoke
                </Button>
              </li>
            ))}
          </ul>
          {failed !== "" && (
            <p role="alert" className="error-text">
              {failed}
            </p>
          )}
          <p className="muted sandbox-grants-note">Credentials, Foya's data and .git folders stay out of reach whatever is allowed.</p>
        </Popover.Content>
      </Popover.Portal>
    </Popover.Root>
  );
}
