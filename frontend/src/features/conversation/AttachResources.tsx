// Attaching MCP resources to the next message (spec M3: a person picks
// resources, the model does not call them as tools): a dialog lists the
// resources of the ready MCP servers of the session's folder, and the
// composer shows what is attached; the message then goes with
// RunWithResources, which puts their text (bounded) and images into it.
import { useState } from "react";
import { Dialog } from "radix-ui";
import { X } from "lucide-react";
import { toApiError, useApi } from "../../backend";
import type { ResourceRef } from "../../backend/gen/kernel";
import type { Resource } from "../../backend/gen/mcpconfig";
import { MaxAttached } from "../../backend/gen/mcpconfig";
import { useLoad } from "../useLoad";

/** MAX_ATTACHED is the kernel's bound on resources per message. */
export const MAX_ATTACHED = MaxAttached;

/** Attached is a resource attached to the draft: its reference and its name. */
export interface Attached extends ResourceRef {
  name: string;
}

/** refsOf is what RunWithResources takes. */
export function refsOf(list: Attached[]): ResourceRef[] {
  return list.map((a) => ({ server: a.server, uri: a.uri }));
}

/** AttachedList shows the draft's attached resources, each removable. */
export function AttachedList(props: { attached: Attached[]; onRemove(a: Attached): void }) {
  if (props.attached.length === 0) return null;
  return (
    <ul className="convo-attached" aria-label="Attached resources">
      {props.attached.map((a) => (
        <li key={`${a.server} ${a.uri}`}>
          <span>
            {a.name} <code>{a.uri}</code> from {a.server}
          </span>
          <button type="button" className="button icon-button" aria-label={`Detach ${a.uri} from ${a.server}`} onClick={() => props.onRemove(a)}>
            <X aria-hidden size={14} />
          </button>
        </li>
      ))}
    </ul>
  );
}

type Found = { server: string; resources: Resource[] } | { server: string; error: string };
/** AttachButton opens the dialog that attaches a resource of a ready MCP server. */
export function AttachButton(props: { sessionId: string; attached: Attached[]; disabled: boolean; onAttach(a: Attached): void }) {
  const [open, setOpen] = useState(false);
  return (
    <Dialog.Root open={open} onOpenChange={setOpen}>
      <Dialog.Trigger asChild>
        <button type="button" className="button convo-attach" disabled={props.disabled}>
          Attach…
        </button>
      </Dialog.Trigger>
      <Dialog.Portal>
        <Dialog.Overlay className="convo-attach-overlay" />
        <Dialog.Content className="convo-attach-dialog">
          <Dialog.Title>Attach an MCP resource</Dialog.Title>
          <Dialog.Description className="muted">
            Its text goes into your next message (at most 256 KiB for all), its images as images. At most {MAX_ATTACHED} per message.
          </Dialog.Description>
          {open && <Picker sessionId={props.sessionId} attached={props.attached} onAttach={props.onAttach} />}
          <Dialog.Close asChild>
            <button type="button" className="button">
              Done
            </button>
          </Dialog.Close>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}

function Picker(props: { sessionId: string; attached: Attached[]; onAttach(a: Attached): void }) {
  const api = useApi();
  const { state: load } = useLoad(async () => {
    let workdir = "";
    try {
      workdir = (await api.Session(props.sessionId)).workdir;
    } catch {
      // Without the session, the user's own servers still list.
    }
    const list = await api.MCPServers(workdir);
    const ready = list.servers.filter((s) => s.state === "ready");
    return Promise.all(
      ready.map(async (s): Promise<Found> => {
        try {
          return { server: s.name, resources: await api.MCPResources(s.scope === "project" ? workdir : "", s.name) };
        } catch (e) {
          return { server: s.name, error: toApiError(e).message };
        }
      }),
    );
  }, [api, props.sessionId]);

  if (load.status === "loading") return <p className="muted">Listing the resources of the ready MCP servers…</p>;
  if (load.status === "error") return <p role="alert" className="error-text">Could not list the MCP servers: {load.error.message}</p>;
  if (load.value.length === 0) return <p className="muted">No MCP server is ready: add one in Settings → MCP servers.</p>;
  const full = props.attached.length >= MAX_ATTACHED;
  return (
    <div className="convo-attach-list">
      {load.value.map((f) => (
        <section key={f.server} aria-label={`Resources of ${f.server}`}>
          <h3>{f.server}</h3>
          {"error" in f ? (
            <p role="alert" className="error-text">
              Could not list its resources: {f.error}
            </p>
          ) : f.resources.length === 0 ? (
            <p className="muted">It offers no resources.</p>
          ) : (
            <ul>
              {f.resources.map((r) => {
                const on = props.attached.some((a) => a.server === f.server && a.uri === r.uri);
                return (
                  <li key={r.uri}>
                    <span>
                      {r.name} <code>{r.uri}</code>
                    </span>
                    <button
                      type="button"
                      className="button"
                      disabled={on || full}
                      aria-label={on ? `${r.uri} is attached` : `Attach ${r.uri} from ${f.server}`}
                      onClick={() => props.onAttach({ server: f.server, uri: r.uri, name: r.name })}
                    >
                      {on ? "Attached" : "Attach"}
                    </button>
                  </li>
                );
              })}
            </ul>
          )}
        </section>
      ))}
    </div>
  );
}
