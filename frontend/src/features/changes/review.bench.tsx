// How long the review panel takes to render a session's 500 file changes
// (the aim: a session of 2,000 tool cards and 500 file changes opens and
// renders in under 150 ms; this is the review panel's part, in happy-dom,
// the browser figure is the e2e's). Run with
// `npx vitest bench --run src/features/changes/review.bench.tsx`.
import { cleanup, render } from "@testing-library/react";
import { bench, describe } from "vitest";
import { TransportProvider } from "../../backend/context";
import { FakeTransport } from "../../backend/fake";
import { Log, SESSION, WORKDIR, fileChange } from "../eventstest";
import { SessionStoreProvider } from "../session/hooks";
import { createSessionStore } from "../session/store";
import { ReviewPanel } from "./index";

// 100 turns of 5 writes, each with a file change: 500 changes.
function history(): Log {
  const log = new Log();
  let n = 0;
  for (let r = 0; r < 100; r++) {
    const run = "run_" + r;
    log.runStart(run, "prompt " + r);
    log.stepStart(run, 1);
    for (let c = 0; c < 5; c++) {
      const id = `call_${c}`;
      log.call(run, 1, c, id, "write", '{"path":"a.txt","content":"x"}');
      log.end(run, 1, c, id, "write", "done", "ok", { fileChanges: [fileChange("chg_" + n, run, id, `${WORKDIR}/f${n++}.txt`, "edit")] });
    }
    log.stepEnd(run, 1, "tool_calls", 5);
    log.runEnd(run, "completed", "", 1);
  }
  return log;
}

const events = history().events;
const store = createSessionStore(SESSION);
store.getState().apply(events);
const transport = new FakeTransport({ Changes: [] });

describe("review panel", () => {
  bench("render 500 changes in 100 turns", () => {
    render(
      <TransportProvider transport={transport}>
        <SessionStoreProvider store={store}>
          <ReviewPanel sessionId={SESSION} onClose={() => {}} />
        </SessionStoreProvider>
      </TransportProvider>,
    );
    cleanup();
  });
});
