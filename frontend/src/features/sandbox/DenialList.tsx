// What the sandbox refused a shell command, on its card: each refusal in
// words (event.Denial, read from the command's output), and, where the
// user may allow it without leaving the sandbox, buttons that allow it for
// the next command or for the session: the folder the card names made
// writable, or the network turned on (the files stay confined). What is
// allowed already says so; what cannot be allowed says why.
import { useState } from "react";
import type { Denial } from "../../backend/gen/event";
import type { SandboxGrant } from "../../backend/gen/kernel";
import { Button } from "../../ui/Button";
import { errorText } from "../settings/errors";
import { useSandboxGrants } from "./useSandboxGrants";
import "./sandbox.css";

/** sentence is a denial's text as a sentence: a capital first letter and a full stop. */
export function sentence(text: string): string {
  const t = text.trim();
  if (t === "") return "";
  return t.charAt(0).toUpperCase() + t.slice(1) + (/[.!?]$/.test(t) ? "" : ".");
}

/** within reports whether path is folder or lies inside it. */
function within(folder: string, path: string): boolean {
  return path === folder || path.startsWith(folder.endsWith("/") ? folder : folder + "/");
}

/** coveredBy is the grant that already allows d, if any. */
export function coveredBy(d: Denial, grants: SandboxGrant[]): SandboxGrant | undefined {
  if (d.allow === "network") return grants.find((g) => g.kind === "network");
  if (d.allow === "write" && d.folder !== undefined) {
    const folder = d.folder;
    return grants.find((g) => g.kind === "write" && g.folder !== undefined && within(g.folder, folder));
  }
  return undefined;
}

/** whyNot says why a denial cannot be allowed from the card. */
export function whyNot(d: Denial): string {
  switch (d.kind) {
    case "hidden":
      return "Credentials and Foya's data stay hidden from commands; “Readable in the sandbox” in Settings can uncover a credential store.";
    case "socket":
      return "Other programs' sockets stay out of reach in the sandbox; only a command run outside it (which asks you first) can use them.";
    case "write":
      return d.path !== undefined && /\/\.(git|foya|agents)(\/|$)/.test(d.path)
        ? "It stays read-only in the sandbox: git and agents run what it holds outside any sandbox. A command run outside the sandbox (which asks you first) can write it."
        : "Foya does not make this folder writable for commands (a system folder, or one that holds credentials, Foya's data or other programs' sockets); a command run outside the sandbox (which asks you first) can write it.";
  }
  return "A command run outside the sandbox (which asks you first) can do this.";
}

/** what names what allowing d allows, for its buttons. */
function what(d: Denial): string {
  return d.allow === "network" ? "the network for commands" : `writes to ${d.folder ?? ""}`;
}

/** DenialList is the card's list of what the sandbox refused, with what may be allowed. */
export function DenialList({ sessionId, denials }: { sessionId: string; denials: Denial[] }) {
  const { grants, allow } = useSandboxGrants(sessionId);
  const [done, setDone] = useState<Record<number, string>>({});
  const [errors, setErrors] = useState<Record<number, string>>({});
  const [busy, setBusy] = useState(-1);
  if (denials.length === 0) return null;
  const onAllow = async (i: number, d: Denial, once: boolean) => {
    setBusy(i);
    setErrors((e) => ({ ...e, [i]: "" }));
    try {
      const g = await allow(d.allow === "write" && d.folder !== undefined ? { kind: "write", folder: d.folder, once } : { kind: d.allow ?? "", once });
      setDone((s) => ({ ...s, [i]: `Allowed: ${g.text}. Ask the agent to run the command again.` }));
    } catch (e) {
      setErrors((s) => ({ ...s, [i]: `Not allowed: ${errorText(e)}` }));
    } finally {
      setBusy(-1);
    }
  };
  return (
    <section className="sandbox-denials" aria-label="Refused by the sandbox">
      <p className="sandbox-denials-title">The sandbox refused:</p>
      <ul>
        {denials.map((d, i) => {
          const covered = coveredBy(d, grants);
          return (
            <li key={i} className={`sandbox-denial sandbox-denial-${d.kind}`}>
              <span className="sandbox-denial-text">{sentence(d.text)}</span>
              {done[i] !== undefined && done[i] !== "" ? (
                <p className="sandbox-denial-done" role="status">
                  {done[i]}
                </p>
              ) : covered !== undefined ? (
                <p className="sandbox-denial-done muted">Allowed since: {covered.text}. Ask the agent to run the command again.</p>
              ) : d.allow !== undefined && d.allow !== "" ? (
                <div className="sandbox-denial-actions" role="group" aria-label={`Allow ${what(d)}`}>
                  <span className="muted">
                    Allow {d.allow === "network" ? "the network (files stay confined)" : <span className="mono">{d.folder} writable</span>}:
                  </span>
                  <Button disabled={busy === i} aria-label={`Allow ${what(d)} for the next command`} onClick={() => void onAllow(i, d, true)}>
                    For the next command
                  </Button>
                  <Button disabled={busy === i} aria-label={`Allow ${what(d)} for this session`} onClick={() => void onAllow(i, d, false)}>
                    For this session
                  </Button>
                </div>
              ) : (
                <p className="sandbox-denial-why muted">{whyNot(d)}</p>
              )}
              {errors[i] !== undefined && errors[i] !== "" && (
                <p role="alert" className="error-text">
                  {errors[i]}
                </p>
              )}
            </li>
          );
        })}
      </ul>
    </section>
  );
}
