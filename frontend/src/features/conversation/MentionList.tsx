// The list an "@" in the message box opens: the session folder's files and
// folders matching what follows the "@", best first. The box keeps focus
// (its aria-activedescendant names the active option): arrow keys move,
// Enter or Tab picks, Escape closes.
import { useEffect, useState } from "react";
import { useApi } from "../../backend";
import type { WorkspaceEntry } from "../../backend/gen/kernel";
import { token } from "./mentions";

/** Files is the session folder's listing as the list needs it. */
export interface Files {
  /** null until read (or when the read failed). */
  entries: WorkspaceEntry[] | null;
  truncated: boolean;
  error: string;
}

/**
 * useWorkspaceFiles reads the session folder's files each time the list
 * opens (files come and go between mentions); what was read stays while
 * it is open.
 */
export function useWorkspaceFiles(sessionId: string, open: boolean): Files {
  const api = useApi();
  const [files, setFiles] = useState<Files>({ entries: null, truncated: false, error: "" });
  useEffect(() => {
    if (!open) return;
    let live = true;
    api.WorkspaceFiles(sessionId).then(
      (w) => live && setFiles({ entries: w.entries ?? [], truncated: w.truncated === true, error: "" }),
      (e: unknown) => live && setFiles({ entries: null, truncated: false, error: e instanceof Error ? e.message : String(e) }),
    );
    return () => {
      live = false;
    };
  }, [api, sessionId, open]);
  return files;
}

export function MentionList(props: {
  id: string;
  query: string;
  files: Files;
  matches: WorkspaceEntry[];
  active: number;
  onPick(e: WorkspaceEntry): void;
  onHover(i: number): void;
}) {
  const { files, matches } = props;
  let note = "";
  if (files.error !== "") note = `The session's files could not be listed: ${files.error}`;
  else if (files.entries === null) note = "Listing the session's files…";
  else if (matches.length === 0) note = props.query === "" ? "The session's folder has no files." : `No file matches “${props.query}”.`;
  else if (files.truncated) note = "The folder has more files than are listed: type more of the path.";
  return (
    <div className="convo-mentions">
      {note !== "" && (
        <p className="convo-mentions-note" role={files.error !== "" ? "alert" : undefined}>
          {note}
        </p>
      )}
      {matches.length > 0 && (
        <ul id={props.id} role="listbox" aria-label="Files to mention">
          {matches.map((e, i) => (
            <li
              key={e.path}
              id={`${props.id}-${i}`}
              role="option"
              aria-selected={i === props.active}
              className={i === props.active ? "convo-mention convo-mention-active" : "convo-mention"}
              // The box keeps focus: a click must not blur it first.
              onMouseDown={(ev) => ev.preventDefault()}
              onMouseEnter={() => props.onHover(i)}
              onClick={() => props.onPick(e)}
            >
              {token(e).slice(1)}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
