// The approvals view: the queue of requests waiting for a person.
export { ApprovalQueue, GUARD_MS } from "./ApprovalQueue";
export { scopeWords, title } from "./words";
