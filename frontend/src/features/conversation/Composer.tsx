// The composer: the message box with its @-mentions of the session's
// files, the messages queued while a run goes, the token meter, Send,
// Stop and Attach….
import { useCallback, useEffect, useRef, useState, type KeyboardEvent, type RefObject } from "react";
import { X } from "lucide-react";
import type { WorkspaceEntry } from "../../backend/gen/kernel";
import { useSession } from "../session/hooks";
import { Unanchored, WaitingNotice } from "../approvals";
import { AttachButton, AttachedList, type Attached } from "./AttachResources";
import { ContextMeter } from "./ContextMeter";
import { MentionList, useWorkspaceFiles } from "./MentionList";
import { ImageChips, imageFiles, useImageInput, usePastedImages, useWindowDrop } from "./PastedImages";
import type { PastedImage } from "../../backend/gen/kernel";
import { holds, matchEntries, mentionAt, mentioned, pick, removeToken, token, type Typing } from "./mentions";
import { ModelPicker } from "./ModelPicker";
import { QueuedList, steerable, useQueue } from "./queue";
import { useApi } from "../../backend/context";
import { lastPrompt, type TurnStatus } from "./reducer";
import { useForkDraft } from "./Fork";

/** Outgoing is a message as the composer sends it: its text, attached resources, mentioned paths and stored images. */
export interface Outgoing {
  text: string;
  attached: Attached[];
  files: string[];
  images?: PastedImage[];
}

/** Composer is the open session's message box with what goes with it (see the file's comment). */
export function Composer(props: {
  sessionId: string;
  busy: boolean;
  /** A message is on its way (the Run call has not answered): the box waits, read-only. */
  sending: boolean;
  running: boolean;
  /** An isolated session's setup command runs: messages wait (queued) for its end. */
  setup?: boolean;
  /** The status of the session's latest turn ("" when none): queued messages go when it is completed. */
  lastStatus: TurnStatus | "";
  noModel: string;
  error: string;
  onSend: (m: Outgoing) => Promise<boolean>;
  onStop: () => void;
  input: RefObject<HTMLTextAreaElement | null>;
}) {
  // A fork opens with the prompt it was forked before (Fork.tsx).
  const [draft, setDraft] = useState(useForkDraft(props.sessionId, props.input));
  const [attached, setAttached] = useState<Attached[]>([]);
  const [picked, setPicked] = useState<WorkspaceEntry[]>([]);
  const [typing, setTyping] = useState<Typing | null>(null);
  const [active, setActive] = useState(0);
  // The "@" whose list Escape closed: it stays closed while that mention is typed.
  const [dismissed, setDismissed] = useState(-1);
  const recall = useSession((s) => lastPrompt(s.conversation));
  const files = useWorkspaceFiles(props.sessionId, typing !== null);
  const api = useApi();
  const queue = useQueue({
    busy: props.busy,
    lastStatus: props.lastStatus,
    send: props.onSend,
    steer: (id, text) => api.Steer({ sessionId: props.sessionId, id, text }).then((r) => r.delivered),
  });
  const pasted = usePastedImages(props.sessionId);
  const textOnlyModel = useImageInput(props.sessionId);
  const disabled = props.noModel !== "";
  const addImages = pasted.add;
  useWindowDrop(useCallback((files: File[]) => void (disabled ? undefined : addImages(files)), [disabled, addImages]));
  // Read-only while a message is on its way too: its text is still in the
  // box, and an approval request that comes meanwhile must take focus
  // (approvals' mayTakeFocus leaves a person typing in a writable box alone).
  const readOnly = disabled || props.sending;
  const reason = props.running
    ? "A run is going: Enter queues your message, sent when the run completes. Escape stops the run."
    : props.setup === true && !disabled
      ? "The isolated copy’s setup command is running: runs wait for it. Enter queues your message, sent when setup ends."
      : props.busy
      ? "Sending…"
      : props.noModel;

  const open = typing !== null && typing.start !== dismissed;
  const matches = open && files.entries !== null ? matchEntries(files.entries, typing.query) : [];

  // The caret moved or the text changed: is a mention being typed?
  const look = (el: HTMLTextAreaElement) => {
    const t = el.selectionStart === el.selectionEnd ? mentionAt(el.value, el.selectionStart) : null;
    setTyping((old) => (old?.start === t?.start && old?.query === t?.query ? old : t));
    if (t?.start !== typing?.start || t?.query !== typing?.query) setActive(0);
    if (t === null) setDismissed(-1);
  };
  const caretTo = useRef<number | null>(null);
  useEffect(() => {
    const el = props.input.current;
    if (caretTo.current !== null && el !== null) {
      el.setSelectionRange(caretTo.current, caretTo.current);
      caretTo.current = null;
    }
  });
  const choose = (e: WorkspaceEntry) => {
    const el = props.input.current;
    if (typing === null || el === null) return;
    const next = pick(draft, typing, el.selectionStart, e);
    setDraft(next.text);
    setPicked((l) => (l.some((x) => x.path === e.path) ? l : [...l, e]));
    setTyping(null);
    caretTo.current = next.caret;
    el.focus();
  };

  const clear = (message: string) => {
    setDraft((d) => (d === message ? "" : d));
    setAttached([]);
    setPicked([]);
    setTyping(null);
    pasted.clear();
  };
  const submit = async () => {
    if (readOnly || draft.trim() === "" || pasted.uploading) return;
    const m: Outgoing = { text: draft, attached, files: mentioned(draft, picked), images: pasted.images };
    if (props.busy) {
      queue.add(m, picked.filter((e) => holds(draft, e)));
      clear(draft);
      return;
    }
    if (await props.onSend(m)) clear(m.text);
  };
  const onKey = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.nativeEvent.isComposing) return;
    if (open && matches.length > 0) {
      if (e.key === "ArrowDown" || e.key === "ArrowUp") {
        e.preventDefault();
        const n = matches.length;
        setActive((a) => (e.key === "ArrowDown" ? (a + 1) % n : (a - 1 + n) % n));
        return;
      }
      if ((e.key === "Enter" && !e.shiftKey) || e.key === "Tab") {
        e.preventDefault();
        choose(matches[Math.min(active, matches.length - 1)]!);
        return;
      }
    }
    if (open && e.key === "Escape") {
      // Closes the list; the run goes on (the view's Escape sees this handled).
      e.preventDefault();
      setDismissed(typing.start);
      return;
    }
    if (e.key === "Enter" && e.shiftKey && (e.ctrlKey || e.metaKey)) {
      // Send now: the first waiting message steers the running run.
      e.preventDefault();
      const first = queue.items.find((q) => q.held === "");
      if (props.running && first !== undefined && steerable(first)) queue.steerNow(first.id);
    } else if (e.key === "Enter" && !e.shiftKey) {
      e.preventDefault();
      void submit();
    } else if (e.key === "ArrowUp" && draft === "" && recall !== "" && !props.busy && !disabled) {
      e.preventDefault();
      setDraft(recall);
    }
  };
  const chips = picked.filter((e) => holds(draft, e));
  const listId = `convo-mentions-${props.sessionId}`;
  return (
    <form
      className="convo-composer"
      aria-label="Send a message"
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
      onDragOver={(e) => {
        if (!disabled && e.dataTransfer.types.includes("Files")) e.preventDefault();
      }}
      onDrop={(e) => {
        const files = imageFiles(e.dataTransfer);
        if (disabled || files.length === 0) return;
        e.preventDefault();
        void pasted.add(files);
      }}
    >
      {props.error !== "" && (
        <p className="convo-composer-error" role="alert">
          {props.error}
        </p>
      )}
      {reason !== "" && (
        <p className="convo-composer-reason" id="convo-composer-reason">
          {reason}
        </p>
      )}
      <Unanchored />
      <WaitingNotice />
      <QueuedList
        queue={queue}
        canSend={!props.busy && !disabled}
        running={props.running}
        onEdit={(q) => {
          queue.remove(q.id);
          setDraft((d) => (d.trim() === "" ? q.text : `${d}\n${q.text}`));
          setAttached((l) => [...l, ...q.attached]);
          pasted.restore(q.images ?? []);
          setPicked((l) => [...l, ...q.entries.filter((e) => !l.some((x) => x.path === e.path))]);
          props.input.current?.focus();
        }}
      />
      <ImageChips chips={pasted.chips} errors={pasted.errors} textOnlyModel={textOnlyModel} onRemove={pasted.remove} />
      <AttachedList attached={attached} onRemove={(a) => setAttached((l) => l.filter((x) => x !== a))} />
      {chips.length > 0 && (
        <ul className="convo-mentioned" aria-label="Mentioned files">
          {chips.map((e) => (
            <li key={e.path} className="convo-chip">
              <code>{token(e)}</code>
              <button
                type="button"
                className="button icon-button"
                aria-label={`Remove ${token(e)}`}
                onClick={() => {
                  setDraft((d) => removeToken(d, e));
                  setPicked((l) => l.filter((x) => x.path !== e.path));
                }}
              >
                <X aria-hidden size={14} />
              </button>
            </li>
          ))}
        </ul>
      )}
      <div className="convo-composer-row">
        <div className="convo-input-wrap">
          {open && <MentionList id={listId} query={typing.query} files={files} matches={matches} active={active} onPick={choose} onHover={setActive} />}
          <textarea
            ref={props.input}
            className="convo-input"
            aria-label="Message"
            aria-describedby={reason !== "" ? "convo-composer-reason" : undefined}
            aria-disabled={readOnly}
            aria-controls={open ? listId : undefined}
            aria-activedescendant={open && matches.length > 0 ? `${listId}-${Math.min(active, matches.length - 1)}` : undefined}
            aria-autocomplete="list"
            // Read-only rather than disabled: it keeps focus, so Escape still stops the run.
            readOnly={readOnly}
            rows={3}
            value={draft}
            placeholder="Say what to do. @ mentions a file. Enter sends (queues while a run goes), Shift+Enter starts a new line."
            onChange={(e) => {
              setDraft(e.target.value);
              look(e.target);
            }}
            onSelect={(e) => look(e.currentTarget)}
            onKeyDown={onKey}
            onBlur={() => setTyping(null)}
            onPaste={(e) => {
              const files = imageFiles(e.clipboardData);
              if (readOnly || files.length === 0) return;
              // Files only: pasted text goes into the box as usual.
              e.preventDefault();
              void pasted.add(files);
            }}
          />
        </div>
      </div>
      {/* Under the box, as in the editors people know: what the message goes to on the left, the actions on the right. */}
      <div className="convo-composer-foot">
        <div className="convo-composer-context">
          <ModelPicker sessionId={props.sessionId} running={props.running} />
          <ContextMeter sessionId={props.sessionId} running={props.running} />
        </div>
        <div className="convo-composer-buttons">
          <AttachButton sessionId={props.sessionId} attached={attached} disabled={disabled} onAttach={(a) => setAttached((l) => [...l, a])} />
          {props.running ? (
            <button type="button" className="button convo-stop" onClick={props.onStop}>
              Stop
            </button>
          ) : null}
          <button type="submit" className="button convo-send" disabled={readOnly || draft.trim() === "" || pasted.uploading}>
            {props.busy ? "Queue" : "Send"}
          </button>
        </div>
      </div>
    </form>
  );
}
