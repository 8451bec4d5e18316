const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });

/**
 * formatTime renders an RFC 3339 time for people, in their locale. A value
 * that does not parse is shown as it came, so nothing is hidden.
 */
export function formatTime(rfc3339: string): string {
  const t = Date.parse(rfc3339);
  if (Number.isNaN(t)) {
    return rfc3339;
  }
  return dateTime.format(t);
}
