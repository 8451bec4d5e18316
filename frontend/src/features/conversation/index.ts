// The conversation view of a session.
export { ConversationView } from "./ConversationView";
export { ForkProvider, type ForkTarget } from "./Fork";
