// The approvals slot of the shell. Requests now show inline in the
// conversation, at their calls (Request.tsx, mounted by the conversation
// view through ApprovalsProvider), with the composer's notice: the slot
// itself shows nothing, so the shell's layout needs no change.

/** ApprovalQueue renders nothing: the conversation shows the waiting requests inline. */
export function ApprovalQueue(_: { sessionId: string }) {
  return null;
}
