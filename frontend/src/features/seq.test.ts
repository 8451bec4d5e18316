import { describe, expect, it } from "vitest";
import { Log } from "./eventstest";
import { inSeqOrder, initialOrder, typed, type SeqOrder } from "./seq";
import type { Event } from "../backend/gen/event";

function through(order: SeqOrder, evs: readonly Event[]): { order: SeqOrder; seen: number[] } {
  const seen: number[] = [];
  for (const ev of evs) order = inSeqOrder(order, ev, (e) => seen.push(e.seq));
  return { order, seen };
}

function log(n: number): Event[] {
  const l = new Log();
  for (let i = 0; i < n; i++) l.add("text.delta", { step: 1, text: String(i) }, "run_1");
  return l.events;
}

describe("inSeqOrder", () => {
  it("lets events through in seq order, each once, holding what comes early", () => {
    const [e1, e2, e3, e4] = log(4) as [Event, Event, Event, Event];
    let s = through(initialOrder, [e3]);
    expect(s).toEqual({ order: { seq: 0, ahead: [e3] }, seen: [] });
    s = through(s.order, [e4]);
    expect(s.order.ahead).toEqual([e3, e4]);
    expect(inSeqOrder(s.order, e4, () => expect.fail("a duplicate went through"))).toBe(s.order);
    s = through(s.order, [e1]);
    expect(s).toEqual({ order: { seq: 1, ahead: [e3, e4] }, seen: [1] });
    s = through(s.order, [e2]);
    expect(s).toEqual({ order: { seq: 4, ahead: [] }, seen: [2, 3, 4] });
    expect(inSeqOrder(s.order, e2, () => expect.fail("a duplicate went through"))).toBe(s.order);
  });

  it("ignores a seq that is not a positive whole number", () => {
    const [e1] = log(1) as [Event];
    for (const seq of [0, -1, 1.5, Number.NaN]) expect(through(initialOrder, [{ ...e1, seq }])).toEqual({ order: initialOrder, seen: [] });
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
