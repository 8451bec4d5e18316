// The composer's token meter: the tokens the session's runs used, from the
// usage they recorded, with the counts in its tooltip. The provider
// profiles do not say a model's context window, so the meter shows use,
// not a fraction of a limit.
import { useMemo } from "react";
import { useSession } from "../session/hooks";
import { tokens, usageOf } from "./usage";

/** ContextMeter shows "12.3k tokens" for the open session; nothing before any usage is recorded. */
export function ContextMeter() {
  const turns = useSession((s) => s.conversation.turns);
  const u = useMemo(() => usageOf(turns), [turns]);
  if (u.total === 0) return null;
  const fmt = (n: number) => n.toLocaleString("en-US");
  const title =
    `Tokens used in this session: ${fmt(u.prompt)} prompt, ${fmt(u.completion)} completion, ${fmt(u.total)} in all.` +
    (u.context > 0 ? ` The last model request held ${fmt(u.context)} prompt tokens.` : "");
  return (
    <span className="convo-meter" title={title}>
      {tokens(u.total)} tokens
    </span>
  );
}
