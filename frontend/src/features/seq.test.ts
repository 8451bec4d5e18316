import { describe, expect, it } from "vitest";
import { Log } from "./eventstest";
import { inSeqOrder, initialSeq, typed, type Sequenced } from "./seq";
import type { Event } from "../backend/gen/event";

interface Seen extends Sequenced {
  seen: number[];
}
const start: Seen = { ...initialSeq, seen: [] };
const note = (s: Seen, ev: Event): Seen => ({ ...s, seen: [...s.seen, ev.seq] });

function log(n: number): Event[] {
  const l = new Log();
  for (let i = 0; i < n; i++) l.add("text.delta", { step: 1, text: String(i) }, "run_1");
  return l.events;
}

describe("inSeqOrder", () => {
  it("applies in seq order, buffering what comes early", () => {
    const [e1, e2, e3, e4] = log(4) as [Event, Event, Event, Event];
    let s = inSeqOrder(start, e3, note);
    expect(s).toMatchObject({ seq: 0, seen: [], ahead: [e3] });
    s = inSeqOrder(s, e4, note);
    expect(s.ahead).toEqual([e3, e4]);
    expect(inSeqOrder(s, e4, note)).toBe(s);
    s = inSeqOrder(s, e1, note);
    expect(s).toMatchObject({ seq: 1, seen: [1], ahead: [e3, e4] });
    s = inSeqOrder(s, e2, note);
    expect(s).toMatchObject({ seq: 4, seen: [1, 2, 3, 4], ahead: [] });
    expect(inSeqOrder(s, e2, note)).toBe(s);
  });

  it("ignores a seq that is not a positive whole number", () => {
    const [e1] = log(1) as [Event];
    for (const seq of [0, -1, 1.5, Number.NaN]) expect(inSeqOrder(start, { ...e1, seq }, note)).toBe(start);
  });
});

describe("typed", () => {
  it("types known events with an object payload only", () => {
    const [e1] = log(1) as [Event];
    expect(typed(e1)?.type).toBe("text.delta");
    expect(typed({ ...e1, type: "message.user" })).toBeNull();
    expect(typed({ ...e1, type: "future.thing" })).toBeNull();
    for (const data of [null, undefined, "text", 3, [1]]) expect(typed({ ...e1, data })).toBeNull();
  });
});
