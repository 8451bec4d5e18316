// The conversation: one turn per run (the user's prompt and everything that
// answers it), its steps' streamed text and reasoning, and a card per tool
// call. A pure reducer over the session's events (docs/events.md).
//
// The state is normalised so that a streamed token changes as little as
// possible: text and reasoning live in `streams`, apart from the turns and the
// cards, so a text.delta leaves `entries`, `turns` and `cards` the same
// objects and a view that selects them does not render again. Cards are kept
// by run, then call ID: an event copies the run's cards, not the session's.
// In a batch of the store (../draft.ts) those records are copied once per
// batch, not once per event, so folding a long history stays linear.
//
// A sub-agent (the task tool) is a run of its own whose
// events name the task call on their envelope (parentCallId): it is a Turn
// like any other, folded by the same code, but not an entry of the
// conversation; the task call's card points at it (childRunId) and shows it.
import type { Denial, Event, FileChange, ImageRef, Instructions, ResourceRef, Usage } from "../../backend/gen/event";
import { typed, type TypedEvent } from "../seq";
import { withItem, withKey } from "../draft";
import { truncationNotices } from "./truncation";

/** CardStatus is where a tool call is (docs/events.md, "Call states"), plus waiting for a person. */
export type CardStatus = "queued" | "waiting" | "running" | "done" | "error" | "cancelled" | "interrupted";

/** Approval is a card's request for a person and, once given, the answer. */
export interface CardApproval {
  id: string;
  state: "pending" | "allowed" | "denied" | "cancelled";
  /** Why the policy asks. */
  reason: string;
  /** The person's message with a deny, or "". */
  message: string;
}

/** Result is what a call ended with (tool.end). */
export interface Result {
  /** The text the model reads. */
  text: string;
  isError: boolean;
  artifacts: string[];
  /** The files a successful write, edit or delete changed; the card shows these, not the arguments. */
  fileChanges: FileChange[];
  displayDiff: string;
  /** Lines of text saying the tool left part of its output out. */
  truncation: string[];
  /** A shell command's exit status when it exited by itself; null otherwise. */
  exitCode: number | null;
  /** The background command a bash call started (bg1, ...); "" for none. */
  background: string;
  /** What the sandbox refused a shell command, in words, with what the user may allow. */
  denials: Denial[];
}

/**
 * HookNote is one run of a hook (hook.run, docs/hooks.md): on the card of
 * the call it ran for, or on the turn (a turn_end hook, a hooks file whose
 * hooks were skipped).
 */
export interface HookNote {
  seq: number;
  /** Its name; "" for a skipped file. */
  hook: string;
  /** before_tool, after_tool, turn_end or approval; "" for a skipped file. */
  event: string;
  /** "project" or "user". */
  source: string;
  file: string;
  status: "ok" | "failed" | "skipped";
  /** allow, deny, ask or "". */
  decision: string;
  reason: string;
  note: string;
  /** Why it failed, or why a file's hooks were skipped. */
  error: string;
  /** The end of what it printed besides its answer. */
  output: string;
  durationMs: number;
}

/** ToolCard is one tool call as the conversation shows it. */
export interface ToolCard {
  /** The call's ID; models may reuse call IDs across runs, so a card is found by run and ID. */
  id: string;
  runId: string;
  step: number;
  index: number;
  name: string;
  status: CardStatus;
  /** How many bytes of arguments have streamed so far. */
  argsBytes: number;
  /** The start of the arguments as text (at most their first 4 KiB). */
  argsPreview: string;
  /** bash's live output: its last lines (tool.update progress.tail). */
  tail: string;
  approval: CardApproval | null;
  /** Event times (RFC 3339): announced, started running, ended. */
  beganAt: string;
  startedAt: string;
  endedAt: string;
  /** How long it ran, from tool.end; null until then (or when not measured). */
  durationMs: number | null;
  result: Result | null;
  /** The run ended with the call not ended: its status comes from the run's. */
  endedWithRun: boolean;
  /** The sub-agent this task call started (its Turn's ID); "" for other calls, or before it starts. */
  childRunId: string;
  /** The hooks that ran for this call, in order. */
  hooks: HookNote[];
}

/** Step is one model request of a turn. */
export interface Step {
  step: number;
  /** Tools offered to the model. */
  tools: string[];
  /** Call IDs of the step's cards, ordered by the model's index. */
  cards: string[];
  /** The tool each of those calls names, by call ID (known from tool.begin, never changed). */
  names: Record<string, string>;
  ended: boolean;
  finishReason: string;
  usage: Usage | null;
  toolCalls: number;
  /** The model's stream failed; "" otherwise. */
  error: string;
}

/** Stream is a step's streamed text and reasoning. */
export interface Stream {
  text: string;
  reasoning: string;
}

export type TurnStatus = "running" | "completed" | "failed" | "cancelled" | "interrupted";

/** ModeNote is a switch of the session's approval mode. */
export interface ModeNote {
  seq: number;
  time: string;
  from: string;
  to: string;
}

/** ModelNote is a choice of the session's provider profile and model (session.model), for its next runs. */
export interface ModelNote {
  seq: number;
  time: string;
  provider: string;
  model: string;
}

/** SteerNote is a message the person sent to the turn while it ran (run.steer): the model reads it before step `step`. */
export interface SteerNote {
  seq: number;
  step: number;
  text: string;
}

/**
 * CompactNote is a compaction of the session's context (context.compacted),
 * or one that failed (context.compact_failed: error set, id "failed:<seq>").
 */
export interface CompactNote {
  id: string;
  seq: number;
  time: string;
  /** "auto": the next request would have passed context.compactAt of the window; "user": a person asked. */
  by: string;
  /** Messages r1 to r{upto} are summarised; 0 for a failure. */
  upto: number;
  turns: number;
  /** The model's summary. */
  summary: string;
  /** File paths and tasks the note lists exactly. */
  files: number;
  tasks: number;
  tokensBefore: number;
  tokensAfter: number;
  /** A person undid it (context.uncompacted). */
  undone: boolean;
  /** Why it failed; "" for a compaction made. */
  error: string;
  /** A failure that stopped the run. */
  stopped: boolean;
  /** Of a sub-agent's own history (its event names the task call): never the session's compaction in force. */
  agent: boolean;
}

/** Turn is one run. */
export interface Turn {
  id: string;
  /** The seq of its run.start. */
  seq: number;
  startedAt: string;
  prompt: string;
  /** MCP resources the user attached to the prompt (their contents went to the model with it). */
  resources: ResourceRef[];
  /** Images the user pasted or dropped into the message (artifacts; a small copy of each for the transcript). */
  images: ImageRef[];
  model: string;
  provider: string;
  workdir: string;
  approvalMode: string;
  instructions: Instructions | null;
  steps: Step[];
  /** Deferred tools that tool_search activated in this turn. */
  activated: string[];
  /** Mode switches made while the turn ran, in order. */
  modes: ModeNote[];
  /** Messages sent to the turn while it ran ("Send now"), in order. */
  steers: SteerNote[];
  /** Compactions made while the turn ran (IDs of `compactions`), each before step `step`. */
  compactions: { id: string; step: number }[];
  status: TurnStatus;
  error: string;
  endedAt: string;
  usage: Usage | null;
  /** The run stopped at the step limit: the view offers "Continue". */
  stepLimit: boolean;
  /** How many unfinished calls a crash left (run.interrupted); null when none. */
  interruptedCalls: number | null;
  /** For a sub-agent: the task call that started it, its run, and what the call said it is for; "" otherwise. */
  parentCallId: string;
  parentRunId: string;
  description: string;
  /** Hook runs of no call: turn_end hooks, hooks files skipped at the turn's start. */
  hooks: HookNote[];
}

/** Entry is one item of the conversation in order: a turn, or a mode switch between turns. */
export type Entry =
  | { kind: "turn"; id: string }
  | ({ kind: "mode" } & ModeNote)
  | ({ kind: "model" } & ModelNote)
  | { kind: "compact"; id: string; seq: number };

export interface ConversationState {
  /** The conversation in order. Changes only when a turn starts or a mode switch falls between turns. */
  entries: Entry[];
  turns: Record<string, Turn>;
  /** streams[runId][step]. */
  streams: Record<string, Record<number, Stream>>;
  /** cards[runId][callId]. */
  cards: Record<string, Record<string, ToolCard>>;
  /** The session's compactions and failed ones, by ID (CompactNote). */
  compactions: Record<string, CompactNote>;
}

export const initialConversation: ConversationState = { entries: [], turns: {}, streams: {}, cards: {}, compactions: {} };

/**
 * compactionInForce is the ID of the compaction the session's next request
 * is compiled with: the latest one made and not undone; "" when none.
 */
export function compactionInForce(compactions: Record<string, CompactNote>): string {
  let best: CompactNote | undefined;
  for (const c of Object.values(compactions)) {
    if (c.error === "" && !c.undone && !c.agent && (best === undefined || c.seq > best.seq)) best = c;
  }
  return best?.id ?? "";
}

/** cardOf returns the card of call callId in run runId. */
export function cardOf(s: ConversationState, runId: string, callId: string): ToolCard | undefined {
  return s.cards[runId]?.[callId];
}

// The step limit's run.end error (backend/engine/run.go). The event has no
// field of its own for it; the text's start is stable.
const stepLimitError = /^stopped after \d+ model steps, the limit for one turn/;

const endStatuses = new Set(["done", "error", "cancelled", "interrupted"]);
const turnEnds = new Set(["completed", "failed", "cancelled", "interrupted"]);

/**
 * applyConversation applies one event of the session, in seq order: the session store
 * orders them (../seq.ts), each seq once.
 */
export function applyConversation(s: ConversationState, raw: Event): ConversationState {
  const ev = typed(raw);
  if (ev === null) return s;
  const runId = ev.runId ?? "";
  if (ev.type === "session.mode") {
    const note: ModeNote = { seq: ev.seq, time: ev.time, from: ev.data.from, to: ev.data.to };
    const t = s.turns[runId];
    if (t && t.status === "running") return withTurn(s, { ...t, modes: [...t.modes, note] });
    return { ...s, entries: withItem<Entry>(s.entries, { kind: "mode", ...note }) };
  }
  if (ev.type === "session.model") {
    // For the next runs: a turn going keeps its model, so the note follows it.
    const note: ModelNote = { seq: ev.seq, time: ev.time, provider: ev.data.provider, model: ev.data.model };
    return { ...s, entries: withItem<Entry>(s.entries, { kind: "model", ...note }) };
  }
  if (ev.type === "context.compacted" || ev.type === "context.compact_failed") {
    const base = { seq: ev.seq, time: ev.time, by: ev.data.by ?? "", undone: false, agent: (ev.parentCallId ?? "") !== "" };
    const note: CompactNote =
      ev.type === "context.compacted"
        ? {
            ...base,
            id: ev.data.id,
            upto: ev.data.upto ?? 0,
            turns: ev.data.turns ?? 0,
            summary: ev.data.summary ?? "",
            files: ev.data.files ?? 0,
            tasks: ev.data.tasks ?? 0,
            tokensBefore: ev.data.tokensBefore ?? 0,
            tokensAfter: ev.data.tokensAfter ?? 0,
            error: "",
            stopped: false,
          }
        : { ...base, id: `failed:${ev.seq}`, upto: 0, turns: 0, summary: "", files: 0, tasks: 0, tokensBefore: 0, tokensAfter: 0, error: ev.data.error || "the summary failed", stopped: ev.data.stopped === true };
    if (s.compactions[note.id]) return s;
    const next = { ...s, compactions: withKey(s.compactions, note.id, note) };
    const t = s.turns[runId];
    if (t && t.status === "running") {
      // Made before the turn's next step.
      const step = (t.steps[t.steps.length - 1]?.step ?? 0) + 1;
      return withTurn(next, { ...t, compactions: [...t.compactions, { id: note.id, step }] });
    }
    return { ...next, entries: withItem<Entry>(s.entries, { kind: "compact", id: note.id, seq: ev.seq }) };
  }
  if (ev.type === "context.uncompacted") {
    const c = s.compactions[ev.data.id];
    if (c === undefined || c.undone) return s;
    return { ...s, compactions: withKey(s.compactions, c.id, { ...c, undone: true }) };
  }
  if (ev.type === "run.start") {
    if (s.turns[runId] || runId === "") return s;
    const d = ev.data;
    const turn: Turn = {
      id: runId,
      seq: ev.seq,
      startedAt: ev.time,
      prompt: d.prompt ?? "",
      resources: Array.isArray(d.resources) ? d.resources : [],
      images: Array.isArray(d.images) ? d.images : [],
      model: d.model ?? "",
      provider: d.provider ?? "",
      workdir: d.workdir ?? "",
      approvalMode: d.approvalMode ?? "",
      instructions: d.instructions ?? null,
      steps: [],
      activated: [],
      modes: [],
      steers: [],
      compactions: [],
      status: "running",
      error: "",
      endedAt: "",
      usage: null,
      stepLimit: false,
      interruptedCalls: null,
      parentCallId: ev.parentCallId ?? "",
      parentRunId: d.parentRunId ?? "",
      description: d.description ?? "",
      hooks: [],
    };
    if (turn.parentCallId !== "") {
      // A sub-agent: shown in its task call's card, not as a turn of its own.
      const next = { ...s, turns: withKey(s.turns, runId, turn) };
      const parent = cardOf(s, turn.parentRunId, turn.parentCallId);
      return parent === undefined ? next : withCard(next, { ...parent, childRunId: runId });
    }
    return { ...s, entries: withItem<Entry>(s.entries, { kind: "turn", id: runId }), turns: withKey(s.turns, runId, turn) };
  }
  const turn = s.turns[runId];
  // Every event of a run follows its run.start in the log. Events of no
  // known run (file events outside a run) are not the conversation's.
  if (!turn) return s;
  return applyToTurn(s, turn, ev);
}

function applyToTurn(s: ConversationState, turn: Turn, ev: TypedEvent): ConversationState {
  switch (ev.type) {
    case "step.start": {
      if (turn.steps.some((st) => st.step === ev.data.step)) return s;
      const step: Step = { ...emptyStep(ev.data.step), tools: ev.data.tools ?? [] };
      return withTurn(s, { ...turn, steps: [...turn.steps, step] });
    }
    case "text.delta":
    case "reasoning.delta": {
      const byStep = s.streams[turn.id] ?? {};
      const old = byStep[ev.data.step] ?? { text: "", reasoning: "" };
      const next =
        ev.type === "text.delta"
          ? { ...old, text: old.text + ev.data.text }
          : { ...old, reasoning: old.reasoning + ev.data.text };
      return { ...s, streams: withKey(s.streams, turn.id, withKey(byStep, ev.data.step, next)) };
    }
    case "tool.begin": {
      const d = ev.data;
      if (cardOf(s, turn.id, d.id)) return s;
      return addCard(s, turn, newCard(turn.id, d.step, d.index, d.id, d.name, ev.time));
    }
    case "tool.update": {
      const d = ev.data;
      const card = cardOf(s, turn.id, d.id);
      if (!card || isEnded(card)) return s;
      let next = card;
      if (d.argsBytes !== undefined) next = { ...next, argsBytes: d.argsBytes };
      if (d.argsDelta !== undefined) next = { ...next, argsPreview: next.argsPreview + d.argsDelta };
      if (d.status === "running") next = { ...next, status: "running", startedAt: ev.time };
      if (typeof d.progress?.tail === "string") next = { ...next, tail: d.progress.tail };
      return next === card ? s : withCard(s, next);
    }
    case "tool.end": {
      const d = ev.data;
      const text = d.text ?? "";
      const status: CardStatus = endStatuses.has(d.status) ? (d.status as CardStatus) : "error";
      const result: Result = {
        text,
        isError: d.isError ?? false,
        artifacts: d.artifacts ?? [],
        fileChanges: status === "done" ? (d.fileChanges ?? []) : [],
        displayDiff: d.displayDiff ?? "",
        truncation: truncationNotices(text),
        exitCode: typeof d.exitCode === "number" ? d.exitCode : null,
        background: d.background ?? "",
        denials: d.denials ?? [],
      };
      let base = s;
      let card = cardOf(s, turn.id, d.id);
      if (!card) {
        // Calls that never streamed (recovery marks stored ones) still get a card.
        card = newCard(turn.id, d.step, d.index, d.id, d.name, ev.time);
        base = addCard(s, turn, card);
      }
      const ended: ToolCard = {
        ...card,
        status,
        endedAt: ev.time,
        durationMs: d.durationMs ?? null,
        approval: card.approval && card.approval.state === "pending" ? { ...card.approval, state: "cancelled" } : card.approval,
        result,
      };
      return withCard(base, ended);
    }
    case "tools.activated":
      return withTurn(s, { ...turn, activated: [...turn.activated, ...(ev.data.names ?? [])] });
    case "step.end": {
      const d = ev.data;
      // A step.end whose step.start is missing still shows (with its error).
      const known = turn.steps.some((st) => st.step === d.step) ? turn.steps : [...turn.steps, emptyStep(d.step)];
      const steps = known.map((st) =>
        st.step === d.step
          ? {
              ...st,
              ended: true,
              finishReason: d.finishReason ?? "",
              usage: d.usage ?? null,
              toolCalls: d.toolCalls ?? 0,
              error: d.error ?? "",
            }
          : st,
      );
      return withTurn(s, { ...turn, steps });
    }
    case "approval.request": {
      const d = ev.data;
      const card = cardOf(s, turn.id, d.request?.callId ?? "");
      if (!card || isEnded(card)) return s;
      return withCard(s, { ...card, status: "waiting", approval: { id: d.id, state: "pending", reason: d.reason ?? "", message: "" } });
    }
    case "approval.answer": {
      const d = ev.data;
      const card = cardOf(s, turn.id, d.callId);
      if (!card || isEnded(card) || card.approval?.id !== d.id) return s;
      const state = d.state === "allowed" || d.state === "denied" || d.state === "cancelled" ? d.state : "cancelled";
      return withCard(s, {
        ...card,
        status: card.startedAt !== "" ? "running" : "queued",
        approval: { ...card.approval, state, message: d.answer?.message ?? "" },
      });
    }
    case "hook.run": {
      const d = ev.data;
      const note: HookNote = {
        seq: ev.seq,
        hook: d.hook ?? "",
        event: d.event ?? "",
        source: d.source,
        file: d.file,
        status: d.status === "ok" || d.status === "skipped" ? d.status : "failed",
        decision: d.decision ?? "",
        reason: d.reason ?? "",
        note: d.note ?? "",
        error: d.error ?? "",
        output: d.output ?? "",
        durationMs: d.durationMs,
      };
      const card = cardOf(s, turn.id, d.callId ?? "");
      if (card !== undefined) return withCard(s, { ...card, hooks: [...card.hooks, note] });
      return withTurn(s, { ...turn, hooks: [...turn.hooks, note] });
    }
    case "run.interrupted":
      return withTurn(s, { ...turn, interruptedCalls: ev.data.calls });
    case "run.steer":
      return withTurn(s, { ...turn, steers: [...turn.steers, { seq: ev.seq, step: ev.data.step, text: ev.data.text }] });
    case "run.end": {
      const d = ev.data;
      const status: TurnStatus = turnEnds.has(d.status) ? (d.status as TurnStatus) : "failed";
      const error = d.error ?? "";
      const next = withTurn(s, {
        ...turn,
        status,
        error,
        endedAt: ev.time,
        usage: d.usage ?? null,
        stepLimit: status === "failed" && stepLimitError.test(error),
      });
      return settleCards(next, turn, status, ev.time);
    }
    case "session.mode":
    case "session.model":
    case "session.title":
    case "todo.updated":
    case "run.start":
    case "file.reverted":
    case "file.captured":
    case "file.changed_outside":
    case "file.watch_degraded":
    case "change.reviewed":
    case "context.compacted":
    case "context.uncompacted":
    case "isolation.setup":
    case "isolation.applied":
    case "isolation.discarded":
    case "context.compact_failed":
      return s;
    default:
      return unreachable(ev);
  }
}

function unreachable(ev: never): never {
  throw new Error(`unhandled event ${JSON.stringify(ev)}`);
}

function newCard(runId: string, step: number, index: number, id: string, name: string, time: string): ToolCard {
  return {
    id,
    runId,
    step,
    index,
    name,
    status: "queued",
    argsBytes: 0,
    argsPreview: "",
    tail: "",
    approval: null,
    beganAt: time,
    startedAt: "",
    endedAt: "",
    durationMs: null,
    result: null,
    endedWithRun: false,
    childRunId: "",
    hooks: [],
  };
}

function emptyStep(step: number): Step {
  return { step, tools: [], cards: [], names: {}, ended: false, finishReason: "", usage: null, toolCalls: 0, error: "" };
}

function isEnded(c: ToolCard): boolean {
  return endStatuses.has(c.status);
}

function withTurn(s: ConversationState, t: Turn): ConversationState {
  return { ...s, turns: withKey(s.turns, t.id, t) };
}

function withCard(s: ConversationState, c: ToolCard): ConversationState {
  return { ...s, cards: withKey(s.cards, c.runId, withKey(s.cards[c.runId] ?? {}, c.id, c)) };
}

// addCard adds c to s and its key to its step (made if the step.start is
// missing), ordered by the model's index.
function addCard(s: ConversationState, turn: Turn, c: ToolCard): ConversationState {
  let steps = turn.steps;
  if (!steps.some((st) => st.step === c.step)) {
    steps = [...steps, emptyStep(c.step)];
  }
  steps = steps.map((st) => {
    if (st.step !== c.step) return st;
    const cards = [...st.cards, c.id].sort((a, b) => indexOf(s, c, a) - indexOf(s, c, b));
    return { ...st, cards, names: { ...st.names, [c.id]: c.name } };
  });
  return withCard(withTurn(s, { ...turn, steps }), c);
}

function indexOf(s: ConversationState, added: ToolCard, id: string): number {
  return id === added.id ? added.index : (cardOf(s, added.runId, id)?.index ?? 0);
}

// settleCards ends the turn's cards that the run left unended: a run's end
// is its last event, so none of them will end otherwise. They take the
// run's outcome and are marked endedWithRun, so the view can say so.
function settleCards(s: ConversationState, turn: Turn, status: TurnStatus, time: string): ConversationState {
  const to: CardStatus = status === "cancelled" ? "cancelled" : status === "interrupted" ? "interrupted" : "error";
  const old = s.cards[turn.id] ?? {};
  let cards = old;
  for (const st of turn.steps) {
    for (const id of st.cards) {
      const c = cards[id];
      if (!c || isEnded(c)) continue;
      if (cards === old) cards = { ...old };
      cards[id] = { ...c, status: to, endedAt: time, endedWithRun: true };
    }
  }
  return cards === old ? s : { ...s, cards: withKey(s.cards, turn.id, cards) };
}

// Selectors: what the conversation view derives from the state. Each returns
// stored objects (or primitives), so useSession does not render on its own.

/** childOf is the sub-agent a task card started, or undefined. */
export function childOf(s: ConversationState, card: ToolCard): Turn | undefined {
  return card.childRunId === "" ? undefined : s.turns[card.childRunId];
}

/** lastAnswer is the text of a turn's last step that has any ("" when none): a sub-agent's answer. */
export function lastAnswer(s: ConversationState, turn: Turn): string {
  for (let i = turn.steps.length - 1; i >= 0; i--) {
    const text = s.streams[turn.id]?.[turn.steps[i]!.step]?.text ?? "";
    if (text !== "") return text;
  }
  return "";
}

/** lastTurn is the latest turn, or undefined in a session with none. */
export function lastTurn(s: ConversationState): Turn | undefined {
  for (let i = s.entries.length - 1; i >= 0; i--) {
    const e = s.entries[i]!;
    if (e.kind === "turn") return s.turns[e.id];
  }
  return undefined;
}

/** runningTurnId is the ID of the turn still running, or "" when none runs. */
export function runningTurnId(s: ConversationState): string {
  const t = lastTurn(s);
  return t !== undefined && t.status === "running" ? t.id : "";
}

/** lastPrompt is the latest turn's prompt ("" when none), what Up recalls in the composer. */
export function lastPrompt(s: ConversationState): string {
  return lastTurn(s)?.prompt ?? "";
}

/**
 * Row is one item of the transcript as a virtualized list shows it: a mode
 * switch between turns, a turn's prompt, a step's text and reasoning, a
 * tool card or a group of them (consecutive file lookups), the turn's end. Rows hold keys, not content, so streamed text
 * and card updates leave the rows as they are.
 */
export type Row =
  | { kind: "mode"; key: string; note: ModeNote }
  | { kind: "model"; key: string; note: ModelNote }
  | { kind: "steer"; key: string; runId: string; note: SteerNote }
  | { kind: "compact"; key: string; id: string }
  | { kind: "prompt"; key: string; runId: string }
  | { kind: "step"; key: string; runId: string; step: number }
  | { kind: "card"; key: string; runId: string; callId: string }
  | { kind: "group"; key: string; runId: string; callIds: string[] }
  | { kind: "end"; key: string; runId: string };

/**
 * rowsOf lists the transcript's rows in order. It reads only entries and
 * turns, which a text delta or a card's update leave unchanged, so a view
 * can memoize it on those two objects.
 */
export function rowsOf(entries: Entry[], turns: Record<string, Turn>): Row[] {
  const rows: Row[] = [];
  for (const e of entries) {
    if (e.kind === "mode") {
      rows.push({ kind: "mode", key: `mode:${e.seq}`, note: e });
      continue;
    }
    if (e.kind === "model") {
      rows.push({ kind: "model", key: `model:${e.seq}`, note: e });
      continue;
    }
    if (e.kind === "compact") {
      rows.push({ kind: "compact", key: `compact:${e.id}`, id: e.id });
      continue;
    }
    const t = turns[e.id];
    if (t === undefined) continue;
    rows.push({ kind: "prompt", key: `prompt:${t.id}`, runId: t.id });
    const steer = (n: SteerNote) => rows.push({ kind: "steer", key: `steer:${n.seq}`, runId: t.id, note: n });
    const compact = (c: { id: string }) => rows.push({ kind: "compact", key: `compact:${c.id}`, id: c.id });
    for (const st of t.steps) {
      t.compactions.filter((c) => c.step === st.step).forEach(compact);
      t.steers.filter((n) => n.step === st.step).forEach(steer);
      rows.push({ kind: "step", key: `step:${t.id}:${st.step}`, runId: t.id, step: st.step });
      for (const ids of callRuns(st)) {
        if (ids.length === 1) rows.push({ kind: "card", key: `card:${t.id}:${ids[0]!}`, runId: t.id, callId: ids[0]! });
        else rows.push({ kind: "group", key: `group:${t.id}:${ids[0]!}`, runId: t.id, callIds: ids });
      }
    }
    // Sent for a step that has not started yet.
    t.steers.filter((n) => !t.steps.some((st) => st.step === n.step)).forEach(steer);
    t.compactions.filter((c) => !t.steps.some((st) => st.step === c.step)).forEach(compact);
    rows.push({ kind: "end", key: `end:${t.id}`, runId: t.id });
  }
  return rows;
}

/** lookupTools are the tools that only look at files: consecutive calls of them in a step show as one group. */
export const lookupTools = new Set(["read", "ls", "glob", "grep"]);

// callRuns splits a step's calls, in order, into runs: two or more
// consecutive lookups are one run, any other call a run of its own.
function callRuns(st: Step): string[][] {
  const runs: string[][] = [];
  let lookups: string[] = [];
  const flush = () => {
    if (lookups.length > 0) runs.push(lookups);
    lookups = [];
  };
  for (const id of st.cards) {
    if (lookupTools.has(st.names[id] ?? "")) {
      lookups.push(id);
      continue;
    }
    flush();
    runs.push([id]);
  }
  flush();
  return runs;
}
