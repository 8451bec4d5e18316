import { useCallback, useEffect, useState } from "react";
import { useApi } from "../../backend";
import { useBackgroundCommands, useBackgroundStale, useSession } from "../session/hooks";
import { errorText } from "../settings/errors";

/** pollMs is how often the list is read again while a command runs (nothing announces its end). */
export const pollMs = 1000;

/**
 * useBackgroundList keeps the store's background-command list fresh: it
 * lists at once when an event made it stale (a shell call or a run ended),
 * and every pollMs while a command runs. It returns the last list error
 * (then it stops until refresh is called) and refresh, which lists again now (and clears the error).
 */
export function useBackgroundList(sessionId: string): { error: string | null; refresh(): void } {
  const api = useApi();
  const stale = useBackgroundStale();
  const behind = useSession((s) => s.background.listedAt < s.background.changedAt);
  const commands = useBackgroundCommands();
  const setCommands = useSession((s) => s.setCommands);
  const [error, setError] = useState<string | null>(null);
  const [force, setForce] = useState(false);

  useEffect(() => {
    if (error !== null || (!stale && !force)) return;
    let live = true;
    const t = setTimeout(
      () => {
        api.BackgroundCommands(sessionId).then(
          (list) => {
            if (!live) return;
            setCommands(list);
            setForce(false);
          },
          (e: unknown) => live && setError(errorText(e)),
        );
      },
      behind || force ? 0 : pollMs,
    );
    return () => {
      live = false;
      clearTimeout(t);
    };
    // commands: each list is a new array, so a running command is polled again.
  }, [api, sessionId, stale, behind, commands, setCommands, error, force]);

  const refresh = useCallback(() => {
    setError(null);
    setForce(true);
  }, []);
  return { error, refresh };
}
