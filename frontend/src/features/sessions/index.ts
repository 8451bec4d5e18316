// The sessions area: the sidebar's list, create, rename and delete.
export { SessionList, RenameField, type SessionListHandle } from "./SessionList";
export { CreateSessionDialog, validate } from "./CreateSessionDialog";
export { DeleteSessionDialog } from "./DeleteSessionDialog";
export { useSessionList, type ListState, type SessionList as SessionListApi } from "./useSessionList";
export { modeHint, modeLabel, modes, toMode, type Mode } from "./modes";
export { matchSessions, titleOf, folderName } from "./search";
export { useNotifications, noteOf, type Note } from "./useNotifications";
export { branches, forkLabel, type Branch } from "./forks";
