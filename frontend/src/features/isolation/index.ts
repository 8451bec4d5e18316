// Isolated sessions (issue 29): the header's where and actions, applying
// and discarding, the setup's progress, Settings' list of copies.
export { IsolationActions, IsolationReviewNote, IsolationWhere, whereWords } from "./IsolationHeader";
export { IsolationNotes } from "./SetupProgress";
export { ApplyDialog } from "./ApplyDialog";
export { DiscardDialog } from "./DiscardDialog";
export { CopiesSettings } from "./CopiesSettings";
