// The approvals view: the requests waiting for a person, inline in the
// conversation at their calls, and the composer's notice.
export { ApprovalQueue } from "./ApprovalQueue";
export { ApprovalsProvider, isGoToKey, type Revealer, useApprovals } from "./context";
export { GUARD_MS, keys, Request, RequestsAt, Unanchored } from "./Request";
export { WaitingNotice, goToKey } from "./WaitingNotice";
export { scopeWords, title } from "./words";
