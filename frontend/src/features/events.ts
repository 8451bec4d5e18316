// TO BE REPLACED by the types that tygo generates from backend/event into
// src/backend/gen/ (issue 11). Until those exist, this one file holds the
// smallest structural view of the event envelope and its payloads that the
// reducers read, field names as docs/events.md gives them. No other file
// declares an event shape; when the generated types land, this file goes and
// the reducers import them instead.

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

export interface RunStart {
  prompt: string;
  workdir: string;
  model: string;
  provider: string;
  approvalMode: string;
  instructions: Instructions;
}

export interface StepStart {
  step: number;
  tools: string[] | null;
}

export interface Delta {
  step: number;
  text: string;
}

export interface ToolBegin {
  step: number;
  index: number;
  id: string;
  name: string;
}

export interface ToolUpdate {
  step: number;
  id: string;
  argsBytes?: number;
  argsDelta?: string;
  status?: string;
  progress?: { tail?: string } & Record<string, unknown>;
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

export interface ToolEnd {
  step: number;
  index: number;
  id: string;
  name: string;
  status: string;
  isError?: boolean;
  text?: string;
  artifacts?: string[];
  fileChanges?: FileChange[];
  displayDiff?: string;
  durationMs?: number;
}

export interface ToolsActivated {
  names: string[] | null;
}

export interface StepEnd {
  step: number;
  finishReason?: string;
  usage?: Usage;
  toolCalls?: number;
  error?: string;
}

export interface Action {
  kind: string;
  tool: string;
  paths?: string[];
  command?: string;
  host?: string;
  readOnly?: boolean;
}

export interface Grant {
  kind: string;
  tool?: string;
  prefix?: string[];
  host?: string;
  folder?: string;
}

export interface ApprovalRequest {
  id: string;
  sessionId: string;
  runId: string;
  request: { callId: string; action: Action; why: string; preview?: string };
  reason: string;
  scopes: Grant[] | null;
  askedAt: string;
}

export interface ApprovalAnswer {
  id: string;
  callId: string;
  state: string;
  answer: { choice: string; scope?: Grant; message?: string };
}

export interface SessionMode {
  from: string;
  to: string;
}

export interface FileReverted {
  changeId: string;
  revertOf: string;
  path: string;
  op: string;
}

export interface FileChangedOutside {
  path: string;
  exists: boolean;
}

export interface WatchDegraded {
  reason: string;
}

export interface RunInterrupted {
  calls: number;
}

export interface RunEnd {
  status: string;
  error?: string;
  steps: number;
  usage?: Usage;
}

/** Payloads maps each event type the reducers read to its payload. */
export interface Payloads {
  "run.start": RunStart;
  "step.start": StepStart;
  "text.delta": Delta;
  "reasoning.delta": Delta;
  "tool.begin": ToolBegin;
  "tool.update": ToolUpdate;
  "tool.end": ToolEnd;
  "tools.activated": ToolsActivated;
  "step.end": StepEnd;
  "approval.request": ApprovalRequest;
  "approval.answer": ApprovalAnswer;
  "session.mode": SessionMode;
  "file.reverted": FileReverted;
  "file.changed_outside": FileChangedOutside;
  "file.watch_degraded": WatchDegraded;
  "run.interrupted": RunInterrupted;
  "run.end": RunEnd;
}

/** EventTypes lists every type of Payloads, for checks at run time. */
export const EventTypes: readonly (keyof Payloads)[] = [
  "run.start",
  "step.start",
  "text.delta",
  "reasoning.delta",
  "tool.begin",
  "tool.update",
  "tool.end",
  "tools.activated",
  "step.end",
  "approval.request",
  "approval.answer",
  "session.mode",
  "file.reverted",
  "file.changed_outside",
  "file.watch_degraded",
  "run.interrupted",
  "run.end",
];

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
