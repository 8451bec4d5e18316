// What a card shows of a call's output: its last lines, whole on demand.
// bash's result ends with how the command ended and what confined it
// (backend/tools/shell: "Exit code 3 after 5ms. …"), which the card's exit
// badge says already; the output is what comes before that ending.

/** tailLines is how many of the output's last lines a card shows by default. */
export const tailLines = 8;

// How bash's result says the command ended, after a blank line.
const bashEnding = /\n(?:Exit code -?\d+ after |Timed out after |Cancelled after |Killed by signal )/g;

/** Output is a result's text as a card shows it. */
export interface Output {
  /** The output proper: for bash, the text before its ending; for other tools, the whole text. */
  body: string;
  /** How many lines body has. */
  lines: number;
  /** body's last tailLines lines (all of it when it has no more). */
  tail: string;
  /** The tail leaves lines out. */
  cut: boolean;
  /** Text after the output (bash's ending and notes); "" for other tools. */
  rest: string;
}

/** outputOf splits tool name's result text into what a card shows. */
export function outputOf(name: string, text: string): Output {
  let body = text;
  let rest = "";
  if (name === "bash") {
    let at = -1;
    for (const m of text.matchAll(bashEnding)) at = m.index;
    if (at >= 0) {
      body = text.slice(0, at);
      rest = text.slice(at + 1);
    }
  }
  body = body.replace(/\n+$/, "");
  const all = body === "" ? [] : body.split("\n");
  const cut = all.length > tailLines;
  return { body, lines: all.length, tail: cut ? all.slice(-tailLines).join("\n") : body, cut, rest };
}

/** exitWord says a shell command's exit status in words: "exit 3". */
export function exitWord(code: number): string {
  return `exit ${code}`;
}
