// Extra request headers of a provider profile as the settings form edits
// them: one "Name: value" per line.

/** formatHeaders writes headers one per line, sorted by name. */
export function formatHeaders(h: Record<string, string> | undefined): string {
  return Object.keys(h ?? {})
    .sort()
    .map((k) => `${k}: ${h![k]}`)
    .join("\n");
}

/**
 * parseHeaders reads "Name: value" lines (blank lines skipped). A line
 * without a colon or with an empty name is an error naming the line; the
 * kernel checks the names and values themselves.
 */
export function parseHeaders(text: string): { headers: Record<string, string> } | { error: string } {
  const headers: Record<string, string> = {};
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === "") continue;
    const colon = line.indexOf(":");
    const name = colon < 0 ? "" : line.slice(0, colon).trim();
    if (name === "") {
      return { error: `Header line ${i + 1} ("${line}") is not "Name: value": write one header per line, such as X-Org-Id: 42.` };
    }
    if (name in headers) {
      return { error: `Header ${name} is given twice (line ${i + 1}): keep one.` };
    }
    headers[name] = line.slice(colon + 1).trim();
  }
  return { headers };
}
