import { createContext, useContext, useMemo, type ReactNode } from "react";
import { createApi, type Api } from "./gen/api";
import type { Transport } from "./transport";

const TransportContext = createContext<Transport | null>(null);

/** TransportProvider makes a Transport available to the components below it. */
export function TransportProvider(props: { transport: Transport; children: ReactNode }) {
  return <TransportContext.Provider value={props.transport}>{props.children}</TransportContext.Provider>;
}

/** useTransport returns the Transport given to the nearest TransportProvider. */
export function useTransport(): Transport {
  const t = useContext(TransportContext);
  if (t === null) {
    throw new Error("useTransport: no TransportProvider above this component");
  }
  return t;
}

/** useApi returns the typed API (one function per api.Service method) over the nearest Transport. */
export function useApi(): Api {
  const t = useTransport();
  return useMemo(() => createApi(t), [t]);
}
