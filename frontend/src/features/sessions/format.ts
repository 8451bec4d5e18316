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

const timeOnly = new Intl.DateTimeFormat(undefined, { timeStyle: "short" });
const dayOnly = new Intl.DateTimeFormat(undefined, { month: "short", day: "numeric" });
const dayYear = new Intl.DateTimeFormat(undefined, { dateStyle: "medium" });

/**
 * formatShort renders an RFC 3339 time briefly, for a narrow list: the time
 * of day when it is today, the day this year, else the date. A value that
 * does not parse is shown as it came.
 */
export function formatShort(rfc3339: string, now: Date = new Date()): string {
  const t = Date.parse(rfc3339);
  if (Number.isNaN(t)) {
    return rfc3339;
  }
  const d = new Date(t);
  if (d.toDateString() === now.toDateString()) return timeOnly.format(d);
  if (d.getFullYear() === now.getFullYear()) return dayOnly.format(d);
  return dayYear.format(d);
}
