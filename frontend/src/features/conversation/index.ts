// The conversation view of a session (issue 12 item 2).
export { ConversationView } from "./ConversationView";
