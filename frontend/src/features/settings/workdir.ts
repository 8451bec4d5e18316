import { useEffect, useState } from "react";
import { useApi } from "../../backend";

/**
 * useSessionWorkdir is the open session's folder, for the settings that
 * show a project's file beside the user's own (MCP servers, hooks): null
 * while it is read, "" without a session or when it cannot be read (the
 * user's own still show).
 */
export function useSessionWorkdir(sessionId: string | null): string | null {
  const api = useApi();
  const [workdir, setWorkdir] = useState<string | null>(sessionId === null ? "" : null);
  useEffect(() => {
    if (sessionId === null) {
      setWorkdir("");
      return;
    }
    let live = true;
    api.Session(sessionId).then(
      (s) => live && setWorkdir(s.workdir),
      () => live && setWorkdir(""),
    );
    return () => {
      live = false;
    };
  }, [api, sessionId]);
  return workdir;
}
