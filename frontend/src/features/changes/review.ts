// The review panel's data and its revert flow: the kernel's stored list of
// the session's changes (the events carry less for reverts), and a revert
// that stops at a conflict until the person overwrites or cancels and can
// be undone. A revert of one change or hunk (and an undo of one) runs at
// once, its undo one click away; one of several files is previewed
// (RevertRequest.dryRun) before it runs.
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

/**
 * Verb is what a person asked for, in their words: a revert of changes,
 * the undo of a revert, or a file brought back from the trash. The dialog,
 * its button and the notice use it; the kernel's request is a revert in
 * each case.
 */
export type Verb = "revert" | "undo" | "restore";

/** Flow is where a revert is: previewing, waiting for a confirmation or an overwrite, running, done. */
export type Flow =
  | { step: "idle" }
  | { step: "previewing"; what: string; verb: Verb; req: RevertRequest }
  | { step: "applying"; what: string; verb: Verb; req: RevertRequest }
  | { step: "confirm"; what: string; verb: Verb; req: RevertRequest; preview: RevertResult }
  | { step: "running"; what: string; verb: Verb; req: RevertRequest; preview: RevertResult }
  | { step: "done"; what: string; verb: Verb; result: RevertResult }
  | { step: "failed"; what: string; verb: Verb; req: RevertRequest; message: string };

/** words are what the dialog and its button say for each verb. */
export const words: Record<Verb, { title: string; button: string; running: string; failed: string }> = {
  revert: { title: "Revert preview", button: "Revert", running: "Reverting…", failed: "The revert did not run" },
  undo: { title: "Undo", button: "Undo", running: "Undoing…", failed: "The undo did not run" },
  restore: { title: "Restore", button: "Restore", running: "Restoring…", failed: "The restore did not run" },
};

/**
 * useRevertFlow runs reverts: start(what, req, verb) previews req, or with
 * direct runs it at once (a conflict then comes to the conflict step, as
 * after a preview); confirm()
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
    (what: string, req: RevertRequest, verb: Verb = "revert", direct = false) => {
      const n = ++current.current;
      if (direct) {
        setFlow({ step: "applying", what, verb, req });
        api.Revert(req).then(
          (result) => {
            if (current.current !== n) return;
            if ((result.conflicts ?? []).length > 0 && result.reverted.length === 0) {
              setFlow({ step: "confirm", what, verb, req, preview: result });
              return;
            }
            setFlow({ step: "done", what, verb, result });
            onDone();
          },
          (e: unknown) => {
            if (current.current !== n) return;
            setFlow({ step: "failed", what, verb, req, message: toApiError(e).message });
            onDone();
          },
        );
        return;
      }
      setFlow({ step: "previewing", what, verb, req });
      api.Revert({ ...req, dryRun: true }).then(
        (preview) => {
          if (current.current === n) setFlow({ step: "confirm", what, verb, req, preview });
        },
        (e: unknown) => {
          if (current.current === n) setFlow({ step: "failed", what, verb, req, message: toApiError(e).message });
        },
      );
    },
    [api, onDone],
  );

  const confirm = useCallback(() => {
    if (flow.step !== "confirm") return;
    const { what, verb, preview } = flow;
    const conflicts = preview.conflicts ?? [];
    if (conflicts.some((c) => !c.forceable)) return;
    const req: RevertRequest = conflicts.length > 0 ? { ...flow.req, force: true } : { ...flow.req };
    delete req.dryRun;
    const n = ++current.current;
    setFlow({ step: "running", what, verb, req: flow.req, preview });
    api.Revert(req).then(
      (result) => {
        if (current.current !== n) return;
        if ((result.conflicts ?? []).length > 0 && result.reverted.length === 0) {
          // The files changed since the preview: show what the revert met.
          setFlow({ step: "confirm", what, verb, req: flow.req, preview: result });
          return;
        }
        setFlow({ step: "done", what, verb, result });
        onDone();
      },
      (e: unknown) => {
        if (current.current !== n) return;
        setFlow({ step: "failed", what, verb, req: flow.req, message: toApiError(e).message });
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

/** opNoun names what a change did as a noun: "the edit of 10:02". */
function opNoun(op: string): string {
  switch (op) {
    case "create":
      return "creation";
    case "delete":
      return "deletion";
    case "chmod":
      return "mode change";
    default:
      return op;
  }
}

/** clock is a change's time of day, as people read it in the panel. */
export function clock(at: string): string {
  const d = new Date(at);
  // A change not stored yet carries Go's zero time: no time to show.
  if (Number.isNaN(d.getTime()) || d.getUTCFullYear() < 2000) return "";
  return d.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
}

function hunkWords(hunks: number[]): { words: string; verb: string } {
  if (hunks.length === 1) return { words: `Hunk ${hunks[0]}`, verb: "is" };
  return { words: `Hunks ${hunks.slice(0, -1).join(", ")} and ${hunks[hunks.length - 1]}`, verb: "are" };
}

/**
 * onDisk says, for a revert the kernel made, what changed on disk, in the
 * words of the change it brings back or undoes: "notes.txt is back to the
 * edit of 10:02". stored holds the session's changes (the reverted one
 * among them).
 */
export function onDisk(rec: Stored, stored: Record<string, Stored>, workdir: string): string {
  const p = relative(rec.path, workdir);
  const target = stored[rec.revertOf ?? ""];
  if (target === undefined) return `${p} changed.`;
  const undo = (target.revertOf ?? "") !== "";
  const orig = undo ? (stored[target.revertOf ?? ""] ?? target) : target;
  const at = clock(orig.createdAt);
  const of = at === "" ? `the ${opNoun(orig.op)}` : `the ${opNoun(orig.op)} of ${at}`;
  if (undo) {
    const hunks = target.ofHunks ?? [];
    if (hunks.length > 0 && rec.existsAfter) {
      const h = hunkWords(hunks);
      return `${h.words} of ${of} ${h.verb} back in ${p}.`;
    }
    if (!rec.existsAfter) return `${p} is in the trash again, as ${of} left it.`;
    return `${p} is back to ${of}.`;
  }
  const hunks = rec.ofHunks ?? [];
  if (hunks.length > 0) {
    const h = hunkWords(hunks);
    return `${h.words} of ${of} ${h.verb} undone in ${p}.`;
  }
  if (!rec.existsAfter) return `${p} is in the trash: it did not exist before ${of}.`;
  if (!rec.existedBefore) return `${p} is back from the trash.`;
  return `${p} is back to what it was before ${of}.`;
}
