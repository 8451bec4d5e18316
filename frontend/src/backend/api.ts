// The typed calls the window makes today, one per api.Service method, over
// whichever Transport it runs on. The generated client (gen/api.ts, one
// function per method) replaces this file.
import type { Transport } from "./transport";
import type { Info, Session } from "./types";

/** info returns the kernel's version and where it keeps its data. */
export function info(t: Transport): Promise<Info> {
  return t.call<Info>("Info", []);
}

/** sessions lists the stored sessions, newest first. */
export async function sessions(t: Transport): Promise<Session[]> {
  return (await t.call<Session[] | null>("Sessions", [])) ?? [];
}
