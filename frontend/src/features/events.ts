// TO BE REPLACED by the types that tygo generates from backend/event into
// src/backend/gen/ (issue 11). Until those exist, this one file holds the
// smallest structural view of the event envelope, the event type constants
// and the payloads that the reducers read, with the Go names of package
// backend/event (RunStartData, TypeRunStart, ...) and the JSON field names of
// docs/events.md. No other file declares a Go shape; when the generated types
// land, this file goes and the reducers import them instead.

/** Event is one entry of a session's append-only log (docs/events.md). */
export interface Event {
  type: string;
  sessionId: string;
  runId?: string;
  seq: number;
  /** RFC 3339 with nanoseconds. */
  time: string;
  data?: unknown;
}

export interface Usage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
}

export interface Instructions {
  status: string;
  file?: string;
  size?: number;
  bytes?: number;
  truncated?: boolean;
  invalidUtf8?: boolean;
  skipped?: string;
}

export interface RunStartData {
  prompt: string;
  workdir: string;
  model: string;
  provider: string;
  approvalMode: string;
  instructions: Instructions;
}

export interface StepStartData {
  step: number;
  tools: string[];
}

export interface TextDeltaData {
  step: number;
  text: string;
}

export interface ReasoningDeltaData {
  step: number;
  text: string;
}

export interface ToolBeginData {
  step: number;
  index: number;
  id: string;
  name: string;
}

export interface ToolUpdateData {
  step: number;
  id: string;
  argsBytes?: number;
  argsDelta?: string;
  status?: string;
  progress?: Progress;
}

export interface Progress {
  tail: string;
}

export interface FileChange {
  id: string;
  sessionId: string;
  runId?: string;
  callId?: string;
  tool?: string;
  path: string;
  op: string;
  existedBefore: boolean;
  existsAfter: boolean;
  isDir?: boolean;
  binary?: boolean;
  diff?: string;
  added?: number;
  removed?: number;
  trashPath?: string;
  trashInfo?: string;
  revertOf?: string;
  createdAt: string;
}

export interface ToolEndData {
  step: number;
  index: number;
  id: string;
  name: string;
  status: string;
  isError: boolean;
  text: string;
  artifacts?: string[];
  fileChanges?: FileChange[];
  displayDiff?: string;
  durationMs?: number;
}

export interface ToolsActivatedData {
  names: string[];
}

export interface StepEndData {
  error?: string;
  finishReason?: string;
  step: number;
  toolCalls?: number;
  usage: Usage;
}

export interface Action {
  kind: string;
  tool: string;
  paths?: string[];
  command?: string;
  host?: string;
  readOnly?: boolean;
}

export interface Ask {
  callId: string;
  action: Action;
  why: string;
  preview?: string;
}

export interface Grant {
  kind: string;
  tool?: string;
  prefix?: string[];
  host?: string;
  folder?: string;
}

export interface ApprovalRequestData {
  id: string;
  sessionId: string;
  runId: string;
  request: Ask;
  reason: string;
  scopes: Grant[];
  askedAt: string;
}

export interface Answer {
  choice: string;
  scope?: Grant;
  message?: string;
}

export interface ApprovalAnswerData {
  id: string;
  callId: string;
  state: string;
  answer: Answer;
}

export interface SessionModeData {
  from: string;
  to: string;
}

export interface FileRevertedData {
  changeId: string;
  revertOf: string;
  path: string;
  op: string;
}

export interface FileChangedOutsideData {
  path: string;
  exists: boolean;
}

export interface FileWatchDegradedData {
  reason: string;
}

export interface RunInterruptedData {
  calls: number;
}

export interface RunEndData {
  error: string;
  status: string;
  steps: number;
  usage: Usage;
}

// Event types (backend/event), one per payload.
export const TypeRunStart = "run.start";
export const TypeStepStart = "step.start";
export const TypeTextDelta = "text.delta";
export const TypeReasoningDelta = "reasoning.delta";
export const TypeToolBegin = "tool.begin";
export const TypeToolUpdate = "tool.update";
export const TypeToolEnd = "tool.end";
export const TypeToolsActivated = "tools.activated";
export const TypeStepEnd = "step.end";
export const TypeApprovalRequest = "approval.request";
export const TypeApprovalAnswer = "approval.answer";
export const TypeSessionMode = "session.mode";
export const TypeFileReverted = "file.reverted";
export const TypeFileChangedOutside = "file.changed_outside";
export const TypeFileWatchDegraded = "file.watch_degraded";
export const TypeRunInterrupted = "run.interrupted";
export const TypeRunEnd = "run.end";

/**
 * BackgroundCommand is a background command as the kernel lists it
 * (kernel.BackgroundCommand, the BackgroundCommands call). Not an event: no
 * event announces background commands.
 */
export interface BackgroundCommand {
  id: string;
  sessionId: string;
  command: string;
  pid: number;
  startedAt: string;
  running: boolean;
  exitCode: number;
  signal?: string;
  killed?: boolean;
  timedOut?: boolean;
  durationNs?: number;
  sandbox: string;
  outputBytes: number;
}
