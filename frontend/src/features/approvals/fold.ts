// Arguments of an MCP call as a person reads them before allowing it:
// pretty JSON, long values folded so the request stays short; "Show all"
// shows them whole. Pure.

/** maxString is the longest string value shown whole while folded. */
export const maxString = 160;
/** maxItems is how many items of an array, or keys of an object, show while folded. */
export const maxItems = 20;
/** maxRaw is how much of arguments that are not JSON shows while folded. */
export const maxRaw = 800;

/** Shown is the arguments' text: folded (the short form) and whole. */
export interface Shown {
  folded: string;
  whole: string;
  /** json says the text is the arguments as parsed JSON, pretty printed. */
  json: boolean;
}

/**
 * showArguments pretty-prints raw, an MCP call's arguments: JSON is
 * indented and folded (strings over maxString characters cut, with the
 * count of what is left out; arrays and objects past maxItems cut the
 * same way); text that is not JSON (arguments cut short by the backend)
 * is folded after maxRaw characters. folded === whole when nothing is long.
 */
export function showArguments(raw: string): Shown {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    const folded = raw.length > maxRaw ? raw.slice(0, maxRaw) + `… (${raw.length - maxRaw} more characters)` : raw;
    return { folded, whole: raw, json: false };
  }
  return { folded: JSON.stringify(fold(value), null, 2), whole: JSON.stringify(value, null, 2), json: true };
}

function fold(v: unknown): unknown {
  if (typeof v === "string") {
    const chars = [...v];
    return chars.length > maxString ? chars.slice(0, maxString).join("") + `… (${chars.length - maxString} more characters)` : v;
  }
  if (Array.isArray(v)) {
    const shown = v.slice(0, maxItems).map(fold);
    if (v.length > maxItems) shown.push(`… (${v.length - maxItems} more items)`);
    return shown;
  }
  if (v !== null && typeof v === "object") {
    const entries = Object.entries(v);
    const out: Record<string, unknown> = {};
    for (const [k, x] of entries.slice(0, maxItems)) out[k] = fold(x);
    if (entries.length > maxItems) out["…"] = `${entries.length - maxItems} more keys`;
    return out;
  }
  return v;
}
