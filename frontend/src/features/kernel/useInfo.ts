import { createApi, type Info, type Transport } from "../../backend";
import { useLoad } from "../useLoad";

/** InfoState is what the window knows about the kernel. */
export type InfoState =
  | { status: "loading" }
  | { status: "ready"; info: Info }
  | { status: "error"; message: string };

/** useInfo loads the kernel's info once per transport. */
export function useInfo(transport: Transport): InfoState {
  const { state } = useLoad(() => createApi(transport).Info(), [transport]);
  switch (state.status) {
    case "loading":
      return { status: "loading" };
    case "ready":
      return { status: "ready", info: state.value };
    case "error":
      return { status: "error", message: state.error.message };
  }
}
