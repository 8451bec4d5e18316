import { createContext, useContext, type ReactNode } from "react";
import type { Backend } from "./types";

const BackendContext = createContext<Backend | null>(null);

/** BackendProvider makes a Backend available to the components below it. */
export function BackendProvider(props: { backend: Backend; children: ReactNode }) {
  return <BackendContext.Provider value={props.backend}>{props.children}</BackendContext.Provider>;
}

/** useBackend returns the Backend given to the nearest BackendProvider. */
export function useBackend(): Backend {
  const b = useContext(BackendContext);
  if (b === null) {
    throw new Error("useBackend: no BackendProvider above this component");
  }
  return b;
}
