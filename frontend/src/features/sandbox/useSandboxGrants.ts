// A session's sandbox grants (kernel.SandboxGrant): what the user allowed
// its sandboxed commands beyond the workspace. Every view of one session
// (the cards' denials, the header's list) reads them through this hook;
// a change made in one view lists them again in all of them.
import { useCallback, useEffect, useState } from "react";
import { useApi } from "../../backend";
import type { SandboxAllow, SandboxGrant } from "../../backend/gen/kernel";
import { errorText } from "../settings/errors";

const listeners = new Map<string, Set<() => void>>();

/** changed tells every view of the session to list its grants again. */
function changed(sessionId: string): void {
  for (const fn of listeners.get(sessionId) ?? []) fn();
}

export interface SandboxGrants {
  grants: SandboxGrant[];
  /** The last error listing them; "" when none. */
  error: string;
  /** allow stores a grant; it rejects with the kernel's message (a folder it refuses says why). */
  allow(a: SandboxAllow): Promise<SandboxGrant>;
  /** revoke removes a grant; it rejects with the kernel's message. */
  revoke(id: number): Promise<void>;
}

/** useSandboxGrants lists a session's sandbox grants and changes them. */
export function useSandboxGrants(sessionId: string): SandboxGrants {
  const api = useApi();
  const [grants, setGrants] = useState<SandboxGrant[]>([]);
  const [error, setError] = useState("");
  useEffect(() => {
    let live = true;
    const load = () => {
      api.SandboxGrants(sessionId).then(
        (gs) => {
          if (!live) return;
          setGrants(gs);
          setError("");
        },
        (e: unknown) => live && setError(errorText(e)),
      );
    };
    let set = listeners.get(sessionId);
    if (set === undefined) {
      set = new Set();
      listeners.set(sessionId, set);
    }
    set.add(load);
    load();
    return () => {
      live = false;
      set.delete(load);
      if (set.size === 0) listeners.delete(sessionId);
    };
  }, [api, sessionId]);
  const allow = useCallback(
    async (a: SandboxAllow) => {
      const g = await api.AllowSandbox(sessionId, a);
      changed(sessionId);
      return g;
    },
    [api, sessionId],
  );
  const revoke = useCallback(
    async (id: number) => {
      await api.RevokeSandbox(sessionId, id);
      changed(sessionId);
    },
    [api, sessionId],
  );
  return { grants, error, allow, revoke };
}
