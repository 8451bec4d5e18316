// The typed calls the window makes today, in the shape of the generated
// client (gen/api.ts: createApi, one function per api.Service method),
// which replaces this file.
import type { Info, Session } from "./types";

/** Caller is what the client needs of a transport (desktop or browser). */
export interface Caller {
  call<T>(method: string, args: unknown[]): Promise<T>;
}

/** createApi returns the API of api.Service over a transport. */
export function createApi(transport: Caller) {
  return {
    /** Info returns the kernel's version and where it keeps its data. */
    Info: (): Promise<Info> => transport.call<Info>("Info", []),
    /** Sessions lists the stored sessions, most recently updated first. */
    Sessions: (): Promise<Session[]> => transport.call<Session[]>("Sessions", []),
  };
}
