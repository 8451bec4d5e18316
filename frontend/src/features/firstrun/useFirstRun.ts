import { useApi } from "../../backend";
import { useLoad } from "../useLoad";

/**
 * useFirstRun says whether the window should open on the first-run view:
 * when the kernel has no provider profile (its Providers call) and the
 * sessions list (its Sessions call, loaded by the shell) is empty.
 * "unknown" until both are known; a failed Providers call means no (the
 * usual screens say what is wrong).
 */
export function useFirstRun(sessions: { load: "loading" | "ready" | "error"; count: number }): "unknown" | boolean {
  const api = useApi();
  const { state } = useLoad(() => api.Providers(), [api]);
  const providers = state.status === "ready" ? state.value.length : state.status;
  if (providers === "error" || sessions.load === "error") return false;
  if (providers === "loading" || sessions.load === "loading") return "unknown";
  return providers === 0 && sessions.count === 0;
}
