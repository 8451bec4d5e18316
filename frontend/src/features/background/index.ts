export { BackgroundPanel } from "./BackgroundPanel";
export { useBackgroundCommand, type CommandState } from "./useBackgroundCommand";
export { statusKind, statusText } from "./format";
