// What hooks did (docs/hooks.md), as the transcript shows it: on the card
// of the call a hook ran for (it denied the call, asked first, added a
// note, or failed) and at a turn's end (a turn_end hook, a hooks file
// whose hooks were skipped). A hook that ran and answered nothing is not
// shown; one that failed always is, with what it printed.
import { useState } from "react";
import { useApi } from "../../backend";
import type { HooksFile } from "../../backend/gen/kernel";
import { Button } from "../../ui/Button";
import { ApproveHooks } from "../settings/HookSettings";
import { errorText } from "../settings/errors";
import type { HookNote } from "./reducer";

/** hookShown says whether a hook's run is worth a line: it answered, failed or was skipped. */
export function hookShown(h: HookNote): boolean {
  return h.status !== "ok" || h.decision === "deny" || h.decision === "ask" || h.note !== "";
}

/** hookText is one hook run in words. */
export function hookText(h: HookNote): string {
  if (h.status === "skipped" || h.hook === "") {
    const whose = h.source === "project" ? "The project's hooks" : "Your hooks";
    return `${whose} (${h.file}) did not run: ${h.error}.`;
  }
  const who = `${h.source === "project" ? "The project's hook" : "Your hook"} “${h.hook}”`;
  const because = (why: string) => (why === "" ? "" : `: ${why}`);
  if (h.status === "failed") {
    const then = h.event === "before_tool" ? " The call was refused." : h.event === "approval" ? " You were asked as without it." : "";
    return `${who} failed: ${h.error}.${then}`;
  }
  const parts: string[] = [];
  if (h.decision === "deny") parts.push(h.event === "approval" ? `${who} denied the request${because(h.reason)}.` : `${who} denied this call${because(h.reason)}.`);
  if (h.decision === "ask") parts.push(`${who} asked you before this call${because(h.reason)}.`);
  if (h.note !== "") parts.push(`${parts.length === 0 ? `${who} noted` : "Its note"}: “${h.note}”.`);
  return parts.join(" ");
}

/**
 * HookNotes lists the hook runs worth a line. With the turn's workdir, a
 * project's hooks file skipped for want of an approval offers to review
 * and approve it here, as Settings → Hooks does.
 */
export function HookNotes({ hooks, workdir }: { hooks: HookNote[]; workdir?: string }) {
  const shown = hooks.filter(hookShown);
  if (shown.length === 0) return null;
  return (
    <ul className="convo-hooks" aria-label="Hooks">
      {shown.map((h) => (
        <li key={h.seq} className={`convo-hook convo-hook-${h.status === "ok" && h.decision === "deny" ? "denied" : h.status}`}>
          {hookText(h)}
          {h.status === "skipped" && h.source === "project" && workdir !== undefined && workdir !== "" && <ReviewHooks workdir={workdir} />}
          {h.output !== "" && h.status === "failed" && (
            <details>
              <summary>What it printed</summary>
              <pre className="convo-hook-output">{h.output}</pre>
            </details>
          )}
        </li>
      ))}
    </ul>
  );
}

type Review = { state: "idle" } | { state: "open"; file: HooksFile } | { state: "said"; ok: boolean; text: string };

/** ReviewHooks reads the project's hooks file as it is now and, unless it runs already, shows it for approval. */
function ReviewHooks({ workdir }: { workdir: string }) {
  const api = useApi();
  const [review, setReview] = useState<Review>({ state: "idle" });
  const open = () =>
    api.Hooks(workdir).then(
      (h) => {
        const f = h.project;
        if (f.status === "unapproved" || f.status === "changed") setReview({ state: "open", file: f });
        else if (f.status === "approved") setReview({ state: "said", ok: true, text: "Already approved: its hooks run from the next turn." });
        else setReview({ state: "said", ok: false, text: f.status === "invalid" ? `It cannot be approved: ${f.error ?? ""}` : "There is no hooks file to approve now." });
      },
      (e: unknown) => setReview({ state: "said", ok: false, text: `Could not read it: ${errorText(e)}` }),
    );
  return (
    <>
      {" "}
      <Button onClick={() => void open()}>Review and approve…</Button>
      {review.state === "said" && <span role={review.ok ? "status" : "alert"}> {review.text}</span>}
      {review.state === "open" && (
        <ApproveHooks
          file={review.file}
          onClose={() => setReview({ state: "idle" })}
          onApprove={() =>
            api.TrustProjectHooks(workdir, review.file.hash ?? "").then(
              () => setReview({ state: "said", ok: true, text: "Approved: the project's hooks run from the next turn, in the sandbox." }),
              (e: unknown) => setReview({ state: "said", ok: false, text: `Not approved: ${errorText(e)}` }),
            )
          }
        />
      )}
    </>
  );
}
