import { useCallback, useEffect, useReducer, useState } from "react";
import { createApi, useTransport } from "../../backend";
import type { BackgroundCommand } from "../../backend/gen/kernel";
import { errorText } from "../settings/errors";
import { applyChange, initialBackground, listing, withCommand, withList, type BackgroundState } from "./reducer";

type Action =
  | { type: "listing" }
  | { type: "listed"; commands: BackgroundCommand[] }
  | { type: "notice"; data: Parameters<typeof applyChange>[1] }
  | { type: "command"; command: BackgroundCommand };

function reduce(s: BackgroundState, a: Action): BackgroundState {
  switch (a.type) {
    case "listing":
      return listing(s);
    case "listed":
      return withList(s, a.commands);
    case "notice":
      return applyChange(s, a.data);
    case "command":
      return withCommand(s, a.command);
  }
}

export interface BackgroundList {
  commands: BackgroundCommand[];
  /** listed says the kernel's list has come. */
  listed: boolean;
  /** The last list error; the list is not read again until refresh. */
  error: string | null;
  /** refresh lists again now (and clears the error). */
  refresh(): void;
  /** put takes a command as the kernel returned it (KillBackground's answer). */
  put(c: BackgroundCommand): void;
}

/**
 * useBackgroundList keeps a session's background commands: it subscribes to
 * the kernel's notices, lists once, and applies every background.changed
 * of the session from then on (those that come while it lists, after the
 * list). A stream that came back lists again, since notices are not
 * replayed. Nothing is read on a timer.
 */
export function useBackgroundList(sessionId: string): BackgroundList {
  const transport = useTransport();
  const [state, dispatch] = useReducer(reduce, initialBackground);
  const [error, setError] = useState<string | null>(null);
  const [asked, setAsked] = useState(0);

  useEffect(() => {
    let live = true;
    const list = () => {
      dispatch({ type: "listing" });
      createApi(transport)
        .BackgroundCommands(sessionId)
        .then(
          (commands) => live && dispatch({ type: "listed", commands: commands ?? [] }),
          (e: unknown) => live && setError(errorText(e)),
        );
    };
    const stop = transport.subscribeNotices((n) => {
      if (n.type === "background.changed" && n.data.sessionId === sessionId) dispatch({ type: "notice", data: n.data });
    }, list);
    list();
    return () => {
      live = false;
      stop();
    };
  }, [transport, sessionId, asked]);

  const refresh = useCallback(() => {
    setError(null);
    setAsked((n) => n + 1);
  }, []);
  const put = useCallback((command: BackgroundCommand) => dispatch({ type: "command", command }), []);
  return { commands: state.commands, listed: state.listed, error, refresh, put };
}
