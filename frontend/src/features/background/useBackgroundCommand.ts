import type { BackgroundCommand } from "../../backend/gen/kernel";
import { useBackgroundList } from "./useBackgroundList";

/**
 * CommandState is one background command as the kernel keeps it: still
 * being listed, the command, or gone (the kernel forgets commands when Foya
 * exits and the oldest ended ones past its bound).
 */
export type CommandState =
  | { kind: "listing" }
  | { kind: "known"; command: BackgroundCommand }
  | { kind: "gone" }
  | { kind: "error"; message: string };

/**
 * useBackgroundCommand follows background command id of a session, live
 * from the background.changed notices (useBackgroundList): a bash call's
 * card says from it whether the command it started still runs.
 */
export function useBackgroundCommand(sessionId: string, id: string): CommandState {
  const { commands, listed, error } = useBackgroundList(sessionId);
  const command = commands.find((c) => c.id === id);
  if (command !== undefined) return { kind: "known", command };
  if (error !== null) return { kind: "error", message: error };
  return listed ? { kind: "gone" } : { kind: "listing" };
}
