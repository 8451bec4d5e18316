import { useCallback, useEffect, useState } from "react";
import { createApi, toApiError, type Session, type Transport } from "../../backend";

/** SessionsState is what the sessions view shows. */
export type SessionsState =
  | { status: "loading" }
  | { status: "ready"; sessions: Session[] }
  | { status: "error"; message: string };

/**
 * useSessions loads the stored sessions over transport, and again on reload.
 * A reply that arrives after a newer request started is dropped.
 */
export function useSessions(transport: Transport): { state: SessionsState; reload: () => void } {
  const [state, setState] = useState<SessionsState>({ status: "loading" });
  const [generation, setGeneration] = useState(0);

  useEffect(() => {
    let current = true;
    setState({ status: "loading" });
    createApi(transport).Sessions().then(
      (sessions) => {
        // The API sends [] for none; null is accepted all the same.
        if (current) setState({ status: "ready", sessions: sessions ?? [] });
      },
      (e: unknown) => {
        if (current) setState({ status: "error", message: toApiError(e).message });
      },
    );
    return () => {
      current = false;
    };
  }, [transport, generation]);

  const reload = useCallback(() => setGeneration((g) => g + 1), []);
  return { state, reload };
}
