// How long a session's store takes to fold a long stored history, the work
// of opening a session before anything renders (the aim: a session of 2,000
// tool cards and 500 file changes opens in under 150 ms). Run with
// `npx vitest bench --run src/features/session/store.bench.ts`.
import { bench, describe } from "vitest";
import { Log, WORKDIR, fileChange } from "../eventstest";
import { createSessionStore } from "./store";

// history is 100 runs of 4 steps, each step 20 text deltas and 5 write
// calls (streamed arguments, running, ended): 2,000 cards, the first 500
// with a file change; 19,000 events.
function history(): Log {
  const log = new Log();
  let changes = 0;
  for (let r = 0; r < 100; r++) {
    const run = "run_" + r;
    log.runStart(run, "prompt " + r);
    for (let st = 1; st <= 4; st++) {
      log.stepStart(run, st);
      for (let k = 0; k < 20; k++) log.text(run, st, "word ");
      for (let c = 0; c < 5; c++) {
        const id = `call_${st}_${c}`;
        log.call(run, st, c, id, "write", '{"path":"a.txt","content":"x"}');
        log.running(run, st, id);
        const extra =
          changes < 500 ? { fileChanges: [fileChange("chg_" + changes, run, id, `${WORKDIR}/f${changes++}.txt`, "edit")] } : {};
        log.end(run, st, c, id, "write", "done", "ok", extra);
      }
      log.stepEnd(run, st, "tool_calls", 5);
    }
    log.runEnd(run, "completed", "", 4);
  }
  return log;
}

const events = history().events;

describe("open a session", () => {
  bench("fold 19,000 stored events (2,000 cards, 500 changes) in one batch", () => {
    createSessionStore("ses_01").getState().apply(events);
  });

  bench("stream 1,000 text deltas one batch each", () => {
    const log = new Log();
    log.runStart("run_1", "p");
    log.stepStart("run_1", 1);
    for (let i = 0; i < 1000; i++) log.text("run_1", 1, "token ");
    const store = createSessionStore("ses_01");
    for (const ev of log.events) store.getState().apply([ev]);
  });
});
