// The five views of the open session, mounted by the shell in one place,
// so the layout and the views stay apart:
//   ConversationSlot → features/conversation ConversationView
//   ApprovalsSlot    → features/approvals ApprovalQueue
//   ReviewSlot       → features/changes ReviewPanel
//   BackgroundSlot   → features/settings BackgroundPanel
//   SettingsSlot     → features/settings SettingsView
import type { ReactNode } from "react";
import { ApprovalQueue } from "../approvals";
import { ConversationView } from "../conversation";
import { BackgroundPanel } from "../background";
import { ReviewPanel } from "../changes";
import { SettingsView } from "../settings";

/** ConversationSlot is the conversation of the open session. */
export function ConversationSlot(props: { sessionId: string }) {
  return <ConversationView sessionId={props.sessionId} />;
}

/** ApprovalsSlot is the queue of the open session's pending approvals; nothing when none wait. */
export function ApprovalsSlot(props: { sessionId: string }) {
  return <ApprovalQueue sessionId={props.sessionId} />;
}

/** ReviewSlot is the review panel: the session's file changes by turn. */
export function ReviewSlot(props: { sessionId: string; onClose: () => void; above?: ReactNode }) {
  return <ReviewPanel sessionId={props.sessionId} onClose={props.onClose} above={props.above} />;
}

/** BackgroundSlot is the background commands panel. */
export function BackgroundSlot(props: { sessionId: string; onClose: () => void }) {
  return <BackgroundPanel sessionId={props.sessionId} onClose={props.onClose} />;
}

/** SettingsSlot is the settings view; sessionId is the open session, null when none is. */
export function SettingsSlot(props: { sessionId: string | null; onClose: () => void; onOpenSession?: (id: string) => void }) {
  return <SettingsView sessionId={props.sessionId} onClose={props.onClose} {...(props.onOpenSession ? { onOpenSession: props.onOpenSession } : {})} />;
}
