// The conversation view of a session.
export { ConversationView } from "./ConversationView";
