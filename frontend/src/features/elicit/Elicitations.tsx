import type { ElicitAnswer } from "../../backend/gen/kernel";
import { ElicitForm } from "./ElicitForm";
import { useElicitations } from "./useElicitations";

/**
 * Elicitations shows the questions MCP servers of the session ask during
 * its tool calls, each as its form; answering one gives focus back with
 * onDone (the message box).
 */
export function Elicitations(props: { sessionId: string; onDone?: () => void }) {
  const { pending, answer } = useElicitations(props.sessionId);
  if (pending.length === 0) return null;
  return (
    <div className="elicit-list">
      {pending.map((r) => (
        <ElicitForm
          key={r.id}
          req={r}
          onAnswer={async (a: ElicitAnswer) => {
            await answer(r.id, a);
            props.onDone?.();
          }}
        />
      ))}
    </div>
  );
}
