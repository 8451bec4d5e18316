import { useEffect, useState } from "react";
import { toError, type Backend, type Info } from "../../backend";

/** InfoState is what the window knows about the kernel. */
export type InfoState =
  | { status: "loading" }
  | { status: "ready"; info: Info }
  | { status: "error"; message: string };

/** useInfo loads the kernel's info once per backend. */
export function useInfo(backend: Backend): InfoState {
  const [state, setState] = useState<InfoState>({ status: "loading" });
  useEffect(() => {
    let current = true;
    setState({ status: "loading" });
    backend.info().then(
      (info) => {
        if (current) setState({ status: "ready", info });
      },
      (e: unknown) => {
        if (current) setState({ status: "error", message: toError(e).message });
      },
    );
    return () => {
      current = false;
    };
  }, [backend]);
  return state;
}
