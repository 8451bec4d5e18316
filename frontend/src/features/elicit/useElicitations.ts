import { useCallback, useEffect, useState } from "react";
import { createApi, useTransport } from "../../backend";
import type { MCPElicitationData } from "../../backend/gen/event";
import type { ElicitAnswer } from "../../backend/gen/kernel";

/**
 * useElicitations keeps a session's MCP servers' questions that wait for
 * the user: it subscribes to the kernel's notices, lists the pending ones
 * once (and again when the stream came back: notices are not replayed),
 * adds each mcp.elicitation of the session in state pending and drops it
 * when a notice says it ended (answered here or elsewhere, or the run was
 * cancelled).
 */
export function useElicitations(sessionId: string): {
  pending: MCPElicitationData[];
  answer: (id: string, a: ElicitAnswer) => Promise<void>;
} {
  const transport = useTransport();
  const [pending, setPending] = useState<MCPElicitationData[]>([]);

  useEffect(() => {
    let live = true;
    const list = () => {
      createApi(transport)
        .PendingElicitations(sessionId)
        .then(
          (l) => live && setPending(l ?? []),
          () => undefined, // the next notice or reconnection lists again
        );
    };
    const stop = transport.subscribeNotices((n) => {
      if (n.type !== "mcp.elicitation" || n.data.sessionId !== sessionId) return;
      const d = n.data;
      setPending((l) => {
        const rest = l.filter((x) => x.id !== d.id);
        return d.state === "pending" ? [...rest, d] : rest;
      });
    }, list);
    list();
    return () => {
      live = false;
      stop();
    };
  }, [transport, sessionId]);

  const answer = useCallback(
    async (id: string, a: ElicitAnswer) => {
      await createApi(transport).AnswerElicitation(id, a);
      setPending((l) => l.filter((x) => x.id !== id));
    },
    [transport],
  );
  return { pending, answer };
}
