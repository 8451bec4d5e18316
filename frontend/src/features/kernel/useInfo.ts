import { useEffect, useState } from "react";
import { createApi, toApiError, type Info, type Transport } from "../../backend";

/** InfoState is what the window knows about the kernel. */
export type InfoState =
  | { status: "loading" }
  | { status: "ready"; info: Info }
  | { status: "error"; message: string };

/** useInfo loads the kernel's info once per transport. */
export function useInfo(transport: Transport): InfoState {
  const [state, setState] = useState<InfoState>({ status: "loading" });
  useEffect(() => {
    let current = true;
    setState({ status: "loading" });
    createApi(transport).Info().then(
      (info) => {
        if (current) setState({ status: "ready", info });
      },
      (e: unknown) => {
        if (current) setState({ status: "error", message: toApiError(e).message });
      },
    );
    return () => {
      current = false;
    };
  }, [transport]);
  return state;
}
