import { useCallback, useEffect, useState } from "react";
import { toError, type Backend, type Session } from "../../backend";

/** SessionsState is what the sessions view shows. */
export type SessionsState =
  | { status: "loading" }
  | { status: "ready"; sessions: Session[] }
  | { status: "error"; message: string };

/**
 * useSessions loads the stored sessions from backend, and again on reload.
 * A reply that arrives after a newer request started is dropped.
 */
export function useSessions(backend: Backend): { state: SessionsState; reload: () => void } {
  const [state, setState] = useState<SessionsState>({ status: "loading" });
  const [generation, setGeneration] = useState(0);

  useEffect(() => {
    let current = true;
    setState({ status: "loading" });
    backend.sessions().then(
      (sessions) => {
        if (current) setState({ status: "ready", sessions });
      },
      (e: unknown) => {
        if (current) setState({ status: "error", message: toError(e).message });
      },
    );
    return () => {
      current = false;
    };
  }, [backend, generation]);

  const reload = useCallback(() => setGeneration((g) => g + 1), []);
  return { state, reload };
}
