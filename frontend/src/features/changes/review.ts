// The review panel's data and its revert flow: the kernel's stored list of
// the session's changes (the events carry less for reverts), and a revert
// that is always previewed (RevertRequest.dryRun) before it runs, stops at
// a conflict until the person overwrites or cancels, and can be undone.
import { useCallback, useRef, useState } from "react";
import { useApi } from "../../backend/context";
import { toApiError } from "../../backend/errors";
import type { Change as Stored, RevertRequest, RevertResult } from "../../backend/gen/kernel";
import { useLoad } from "../useLoad";

/** useStoredChanges lists the session's changes by ID, read when the panel opens and again on reload(). */
export function useStoredChanges(sessionId: string): {
  byId: Record<string, Stored>;
  error: string;
  reload: () => void;
} {
  const api = useApi();
  const { state, reload } = useLoad(async () => {
    const m: Record<string, Stored> = {};
    for (const c of await api.Changes(sessionId)) m[c.id] = c;
    return m;
  }, [api, sessionId]);
  const error =
    state.status === "error"
      ? `The list of changes could not be read: ${state.error.message}. Close and open the panel to try again.`
      : "";
  return { byId: state.value ?? noChanges, error, reload };
}

const noChanges: Record<string, Stored> = {};

/** Flow is where a revert is: previewing, waiting for a confirmation or an overwrite, running, done. */
export type Flow =
  | { step: "idle" }
  | { step: "previewing"; what: string; req: RevertRequest }
  | { step: "confirm"; what: string; req: RevertRequest; preview: RevertResult }
  | { step: "running"; what: string; req: RevertRequest; preview: RevertResult }
  | { step: "done"; what: string; result: RevertResult }
  | { step: "failed"; what: string; req: RevertRequest; message: string };

/**
 * useRevertFlow runs reverts: start(what, req) previews req; confirm()
 * runs it (with force when the preview met conflicts that may be
 * overwritten); cancel() drops it and sends nothing more. A revert whose
 * files changed between the preview and the confirmation comes back to
 * the conflict step with what it met. onDone runs after each revert that
 * changed something.
 */
export function useRevertFlow(onDone: () => void) {
  const api = useApi();
  const [flow, setFlow] = useState<Flow>({ step: "idle" });
  const current = useRef(0);

  const start = useCallback(
    (what: string, req: RevertRequest) => {
      const n = ++current.current;
      setFlow({ step: "previewing", what, req });
      api.Revert({ ...req, dryRun: true }).then(
        (preview) => {
          if (current.current === n) setFlow({ step: "confirm", what, req, preview });
        },
        (e: unknown) => {
          if (current.current === n) setFlow({ step: "failed", what, req, message: toApiError(e).message });
        },
      );
    },
    [api],
  );

  const confirm = useCallback(() => {
    if (flow.step !== "confirm") return;
    const { what, preview } = flow;
    const conflicts = preview.conflicts ?? [];
    if (conflicts.some((c) => !c.forceable)) return;
    const req: RevertRequest = conflicts.length > 0 ? { ...flow.req, force: true } : { ...flow.req };
    delete req.dryRun;
    const n = ++current.current;
    setFlow({ step: "running", what, req: flow.req, preview });
    api.Revert(req).then(
      (result) => {
        if (current.current !== n) return;
        if ((result.conflicts ?? []).length > 0 && result.reverted.length === 0) {
          // The files changed since the preview: show what the revert met.
          setFlow({ step: "confirm", what, req: flow.req, preview: result });
          return;
        }
        setFlow({ step: "done", what, result });
        onDone();
      },
      (e: unknown) => {
        if (current.current !== n) return;
        setFlow({ step: "failed", what, req: flow.req, message: toApiError(e).message });
        onDone();
      },
    );
  }, [api, flow, onDone]);

  const cancel = useCallback(() => {
    current.current++;
    setFlow({ step: "idle" });
  }, []);

  return { flow, start, confirm, cancel };
}

/** relative shows path relative to the session's folder when it is inside it. */
export function relative(path: string, workdir: string): string {
  if (workdir === "") return path;
  const root = workdir.endsWith("/") ? workdir : `${workdir}/`;
  return path.startsWith(root) ? path.slice(root.length) : path;
}

/** opLabel names what a change did, for people. */
export function opLabel(op: string, revertOf: string): string {
  if (revertOf !== "" || op === "revert") return "revert";
  switch (op) {
    case "create":
      return "created";
    case "write":
      return "written";
    case "edit":
      return "edited";
    case "delete":
      return "deleted";
    case "rename":
      return "renamed";
    case "chmod":
      return "mode changed";
    default:
      return op;
  }
}

/** effect says in words what a (previewed) revert change does to its path. */
export function effect(c: Pick<Stored, "existedBefore" | "existsAfter" | "isDir">): string {
  const thing = c.isDir === true ? "folder" : "file";
  if (!c.existedBefore && c.existsAfter) return `brings the ${thing} back`;
  if (c.existedBefore && !c.existsAfter) return `moves the ${thing} to the trash`;
  return `restores the ${thing}'s content`;
}
