export { FirstRunView } from "./FirstRunView";
export { useFirstRun } from "./useFirstRun";
