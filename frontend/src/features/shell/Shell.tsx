import { FolderGit2, GitFork, Plus, Settings, Sparkles, TerminalSquare } from "lucide-react";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { useTransport, type Session, type UIReport } from "../../backend";
import { Button } from "../../ui/Button";
import { IconButton } from "../../ui/IconButton";
import { Notice } from "../../ui/Notice";
import { ErrorActions } from "../../ui/ErrorNotice";
import { FirstRunView, useFirstRun } from "../firstrun";
import { useInfo } from "../kernel/useInfo";
import { useReadyReport } from "../kernel/useReadyReport";
import { createSessionStore, type SessionStore, type Subscribe } from "../session/store";
import { SessionStoreProvider, useFollow } from "../session/hooks";
import {
  CreateSessionDialog,
  DeleteSessionDialog,
  forkLabel,
  SessionList,
  titleOf,
  useNotifications,
  useSessionList,
  type SessionListHandle,
} from "../sessions";
import { ForkProvider, type ForkTarget } from "../conversation";
import type { Forked } from "../../backend/gen/kernel";
import { About } from "./About";
import { KeyboardHelp } from "./KeyboardHelp";
import { useShortcuts } from "./keyboard";
import { ModeMenu } from "./ModeMenu";
import { SandboxGrantsMenu } from "../sandbox";
import { ApprovalsSlot, BackgroundSlot, ConversationSlot, ReviewSlot, SettingsSlot } from "./slots";
import { SidePanel } from "../../ui/panel/SidePanel";
import { ReviewToggle } from "../changes/Scopes";
import { IsolationActions, IsolationNotes, IsolationReviewNote, IsolationWhere } from "../isolation";

/** Panel is what the right-hand side shows beside the conversation. */
export type Panel = "review" | "background" | null;

const openKey = "session";

/** openFromLocation reads the open session from the address (#session=ID), so a reload keeps it open. */
function openFromLocation(): string | null {
  const id = new URLSearchParams(window.location.hash.slice(1)).get(openKey);
  return id === null || id === "" ? null : id;
}

function writeLocation(id: string | null): void {
  const hash = id === null ? "" : `#${openKey}=${encodeURIComponent(id)}`;
  if (window.location.hash === hash) return;
  history.replaceState(null, "", `${window.location.pathname}${window.location.search}${hash}`);
}

/**
 * Shell is Foya's window: the sessions sidebar on the left, the open
 * session (header with its mode, the conversation, a side panel, the
 * approval queue) in the centre, settings as a view of its own. onReady,
 * if given, is told once what the window first rendered.
 */
export function Shell(props: { onReady?: (r: UIReport) => void }) {
  const transport = useTransport();
  const info = useInfo(transport);
  const list = useSessionList(transport);
  const [openId, setOpenId] = useState<string | null>(openFromLocation);
  const [creating, setCreating] = useState(false);
  const [deleting, setDeleting] = useState<Session | null>(null);
  const [settings, setSettings] = useState(false);
  const [panel, setPanel] = useState<Panel>(null);
  // The first-run setup: opened once when there is no provider profile and
  // no session, and from the sidebar at any time.
  const first = useFirstRun({ load: list.state.load, count: list.state.live.sessions.length });
  const [setup, setSetup] = useState(false);
  const decided = useRef(false);
  useEffect(() => {
    if (first === "unknown" || decided.current) return;
    decided.current = true;
    if (first && openFromLocation() === null) setSetup(true);
  }, [first]);
  useReadyReport(props.onReady, info, list.state, first === "unknown" ? "unknown" : first && openFromLocation() === null);
  const search = useRef<HTMLInputElement>(null);
  const sessionList = useRef<SessionListHandle>(null);
  const newButton = useRef<HTMLButtonElement>(null);

  const sessions = list.state.live.sessions;
  const open = sessions.find((s) => s.id === openId) ?? null;
  useNotifications(transport, sessions);

  useEffect(() => writeLocation(openId), [openId]);
  // A session that is gone (deleted elsewhere, or an old address) is closed.
  useEffect(() => {
    if (list.state.load === "ready" && openId !== null && open === null) setOpenId(null);
  }, [list.state.load, openId, open]);

  const openSession = useCallback((id: string) => {
    setOpenId(id);
    setSettings(false);
    setSetup(false);
  }, []);

  useShortcuts({
    newSession: () => setCreating(true),
    focusSearch: () => {
      search.current?.focus();
      search.current?.select();
    },
    openSettings: () => setSettings(true),
  });

  // A fork (Fork from here) is listed and opened at once.
  const upsert = list.upsert;
  const onForked = useCallback(
    (f: Forked) => {
      upsert(f.session);
      openSession(f.session.id);
    },
    [upsert, openSession],
  );

  const errorActions = useMemo(() => ({ onSettings: () => setSettings(true) }), []);
  const app = (
    <div className="app">
      <aside className="sidebar" aria-label="Sessions sidebar">
        <div className="sidebar-top">
          <h1 className="brand">Foya</h1>
          <Button ref={newButton} variant="primary" onClick={() => setCreating(true)} aria-keyshortcuts="Control+N">
            <Plus size={16} aria-hidden="true" /> New session
          </Button>
        </div>
        <SessionList
          ref={sessionList}
          state={list.state}
          openId={openId}
          onOpen={openSession}
          onReload={list.reload}
          onRenamed={list.upsert}
          onDelete={setDeleting}
          searchRef={search}
        />
        <div className="sidebar-footer">
          <About state={info} />
          <div className="sidebar-footer-actions">
            <IconButton
              label="Set up a model"
              icon={<Sparkles size={16} />}
              onClick={() => {
                setSettings(false);
                setSetup(true);
              }}
            />
            <IconButton label="Settings" icon={<Settings size={16} />} onClick={() => setSettings(true)} aria-keyshortcuts="Control+," />
            <KeyboardHelp />
          </div>
        </div>
      </aside>

      <main className="main">
        {info.status === "ready" && info.info.readOnly ? (
          <Notice kind="alert" title="Read-only: nothing can be changed">
            Foya opened its database {info.info.dbPath} read-only: {info.info.readOnly}. Sessions can be read; new runs, mode
            switches and settings are refused until the file can be written.
          </Notice>
        ) : null}
        {settings ? (
          <SettingsSlot sessionId={open?.id ?? null} onClose={() => setSettings(false)} onOpenSession={openSession} />
        ) : setup ? (
          <FirstRunView
            onSkip={() => setSetup(false)}
            onSessionCreated={(s) => {
              list.upsert(s);
              openSession(s.id);
            }}
          />
        ) : open !== null ? (
          <OpenSession
            key={open.id}
            session={open}
            parent={sessions.find((s) => s.id === open.forkedFrom) ?? null}
            panel={panel}
            setPanel={setPanel}
            onSettings={() => setSettings(true)}
            onForked={onForked}
          />
        ) : (
          <Welcome load={list.state.load} count={sessions.length} onNew={() => setCreating(true)} />
        )}
      </main>

      <CreateSessionDialog
        open={creating}
        onClose={() => setCreating(false)}
        onCreated={(s) => {
          setCreating(false);
          list.upsert(s);
          openSession(s.id);
        }}
      />
      <DeleteSessionDialog
        session={deleting}
        onClose={() => setDeleting(null)}
        // Focus goes to the next session, else the previous, else New session: never the page's body.
        onFocusAfter={() => {
          if (sessionList.current?.focusAfterDelete() !== true) newButton.current?.focus();
        }}
        onDeleted={(id) => {
          setDeleting(null);
          list.remove(id);
          if (openId === id) setOpenId(null);
        }}
      />
    </div>
  );
  // Every error notice in the app may offer "Open settings".
  return <ErrorActions.Provider value={errorActions}>{app}</ErrorActions.Provider>;
}

function Welcome(props: { load: "loading" | "ready" | "error"; count: number; onNew: () => void }) {
  if (props.load === "error") {
    return (
      <div className="welcome">
        <h2>Sessions are not available</h2>
        <p className="muted">The sidebar says why. Fix that, then press “Try again” there.</p>
      </div>
    );
  }
  const loaded = props.load === "ready";
  return (
    <div className="welcome">
      <h2>{loaded && props.count === 0 ? "Start your first session" : "No session open"}</h2>
      <p className="muted">
        {loaded && props.count === 0
          ? "A session works in a folder of yours. Foya asks before it changes anything, unless you choose a mode that does not."
          : "Choose a session on the left, or start a new one."}
      </p>
      <Button variant="primary" onClick={props.onNew}>
        <Plus size={16} aria-hidden="true" /> New session
      </Button>
    </div>
  );
}

/**
 * OpenSession is one open session: its store (created here, fed by the
 * transport from seq 1, so the stored history comes back, crash-interrupted
 * runs included), the header and the slots, all below its
 * SessionStoreProvider.
 */
function OpenSession(props: {
  session: Session;
  /** parent is the listed session this one was forked from, if any. */
  parent: Session | null;
  panel: Panel;
  setPanel: (p: Panel) => void;
  onSettings: () => void;
  onForked: (f: Forked) => void;
}) {
  const transport = useTransport();
  const { session: s, panel, setPanel } = props;
  // One store per opening (the key of this component is the session's ID).
  const [store] = useState<SessionStore>(() => createSessionStore(s.id, { mode: s.approvalMode }));
  const subscribe = useMemo<Subscribe>(() => transport.subscribe.bind(transport), [transport]);
  useFollow(store, subscribe);
  const toggle = (p: Exclude<Panel, null>) => setPanel(panel === p ? null : p);
  const { onForked } = props;
  const fork = useMemo<ForkTarget>(() => ({ sessionId: s.id, onForked }), [s.id, onForked]);
  const forked = forkLabel(s, props.parent);

  return (
    <SessionStoreProvider store={store}>
      <header className="session-header">
        <div className="session-heading">
          <h2 className="session-name" title={titleOf(s)}>
            {titleOf(s)}
          </h2>
          <p className="session-where mono" title={s.isolation !== undefined ? s.projectId : s.workdir}>
            <FolderGit2 size={13} aria-hidden="true" />{" "}
            <span className="session-path">{s.isolation !== undefined ? s.projectId : s.workdir}</span>
            {s.model !== "" && <span className="session-model muted"> · {s.model}</span>}
          </p>
          <IsolationWhere session={s} />
          {forked !== "" && (
            <p
              className="session-forked muted"
              title="A fork works in the same folder as the session it came from: either session’s changes to the files are the other’s too."
            >
              <GitFork size={13} aria-hidden="true" /> {forked[0]!.toUpperCase() + forked.slice(1)} · {s.isolation ? "in its own copy" : "shares its folder"}
            </p>
          )}
        </div>
        <IsolationActions session={s} />
        <SandboxGrantsMenu sessionId={s.id} />
        <ModeMenu sessionId={s.id} listed={s.approvalMode} />
        <div className="session-tools" role="toolbar" aria-label="Session views">
          <ReviewToggle pressed={panel === "review"} onClick={() => toggle("review")} />
          <IconButton
            label="Background"
            text="Background"
            icon={<TerminalSquare size={16} />}
            aria-pressed={panel === "background"}
            onClick={() => toggle("background")}
          />
          <IconButton label="Session settings" icon={<Settings size={16} />} onClick={props.onSettings} />
        </div>
      </header>
      <div className={`session-body${panel !== null ? " has-panel" : ""}`}>
        <div className="session-centre">
          <IsolationNotes session={s} />
          <ForkProvider value={fork}>
            <ConversationSlot sessionId={s.id} />
          </ForkProvider>
        </div>
        {panel === "review" && (
          <SidePanel name="review" storageKey="foya.panel.review.width">
            <ReviewSlot
              sessionId={s.id}
              onClose={() => setPanel(null)}
              above={s.isolation !== undefined ? <IsolationReviewNote session={s} /> : undefined}
            />
          </SidePanel>
        )}
        {panel === "background" && (
          <SidePanel name="background" storageKey="foya.panel.background.width">
            <BackgroundSlot sessionId={s.id} onClose={() => setPanel(null)} />
          </SidePanel>
        )}
      </div>
      <ApprovalsSlot sessionId={s.id} />
    </SessionStoreProvider>
  );
}
