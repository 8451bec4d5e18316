// Truncation notices in tool results. The tools bound what they return to the
// model (spec O1-O3) and say so in the result text itself; the card shows
// those lines as notices, with the full stored result a click away.

// The forms a result's text uses (backend/tools and its packages):
//   tools.Cut.Notice:  "[12 lines (345 bytes) of 900 lines (40,000 bytes) left out before this] …"
//   bash_output:       "[1,024 bytes of new output were overwritten in the bounded buffer …]"
//   read:              "[Showing lines 1-2000 of 5000 (…). Not shown: lines 2001-5000 after (…). To read on, …]"
//   glob:              "40 matches; the first 20 (by path) are shown, 20 left out: narrow the pattern or the path."
//   tools.bounded:     "… (1234 more bytes of this message left out)" (a long error cut short)
const bracketed = /^\[.*(?:left out|Not shown:|were overwritten).*\]/;
const glob = /^\d+ matches; the first \d+ .* left out: /;
const bounded = /\(\d+ more bytes of this message left out\)/;

/** truncationNotices returns the lines of a result's text that say part of it was left out. */
export function truncationNotices(text: string): string[] {
  if (!text.includes("left out") && !text.includes("Not shown:") && !text.includes("overwritten")) return [];
  const out: string[] = [];
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (bracketed.test(line) || glob.test(line)) {
      out.push(line);
      continue;
    }
    const cut = bounded.exec(line);
    if (cut) out.push(cut[0]);
  }
  return out;
}
