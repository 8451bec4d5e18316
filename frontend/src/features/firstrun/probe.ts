import type { ModelServer } from "../../backend/gen/profiles";
import { CheckOK, CheckUnauthorized } from "../../backend/gen/profiles";

/** Probe is one candidate as the view knows it: not yet answered, or its probe's result. */
export type Probe = { server: ModelServer; state: "probing" | "done" | "error"; error?: string };

/** usable says whether a probed server can be saved: it lists models, or it wants a key. */
export function usable(p: Probe): boolean {
  return p.state === "done" && ((p.server.status === CheckOK && p.server.models.length > 0) || p.server.status === CheckUnauthorized);
}

/** profileName suggests a profile's name from its server ("ollama", "lm-studio", ...). */
export function profileName(s: ModelServer): string {
  if (s.fromEnv) return "openai-env";
  if (s.id.startsWith("port-")) return `local-${s.id.slice("port-".length)}`;
  return s.name.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "") || s.id;
}

/** statusText is a candidate's state in a few words. */
export function statusText(p: Probe): string {
  if (p.state === "probing") return "looking…";
  if (p.state === "error") return "could not be probed";
  const s = p.server;
  switch (s.status) {
    case CheckOK:
      return s.models.length === 0 ? "found, no model loaded" : `found, ${s.models.length} ${s.models.length === 1 ? "model" : "models"}`;
    case CheckUnauthorized:
      return "found, wants an API key";
    case "down":
      return "not running";
    case "timeout":
      return "no answer in time";
    case "no-key":
      return "no key set";
    default:
      return "not a model server";
  }
}
