// A page with the review panel of one session in the shell's layout (the
// sessions column, the conversation, the side panel with its resizable
// edge), fed by hand: the store is the real one, the transport is
// FakeTransport answering Diff and ChangeContents with one edit of a Go
// file (lines changed a little, a block rewritten, a long line). shots.mjs
// drives it; the theme comes from the page's ?theme=. With ?bench=1 the
// session is 100 turns of 5 changes (500), each change's diff 5,000 lines
// long, for bench.mjs: the page records when the panel first painted.
import { createRoot } from "react-dom/client";
import { TransportProvider } from "../../src/backend";
import { FakeTransport } from "../../src/backend/fake";
import type { Event } from "../../src/backend/gen/event";
import { ConversationView } from "../../src/features/conversation";
import { ReviewPanel } from "../../src/features/changes";
import { SessionStoreProvider } from "../../src/features/session/hooks";
import { createSessionStore } from "../../src/features/session/store";
import { SidePanel } from "../../src/ui/panel/SidePanel";
import "../../src/styles.css";

const SESSION = "ses_shots";
const WORKDIR = "/home/me/project";

const before = [
  "package store",
  "",
  'import "fmt"',
  "",
  "// Open opens the database at path.",
  "func Open(path string) (*DB, error) {",
  "\tdb, err := sql.Open(\"sqlite\", path)",
  "\tif err != nil {",
  '\t\treturn nil, fmt.Errorf("open: %v", err)',
  "\t}",
  "\treturn &DB{db: db}, nil",
  "}",
  "",
  "func (d *DB) Close() error { return d.db.Close() }",
  "",
].join("\n");

const diff = [
  "--- a/backend/store/open.go",
  "+++ b/backend/store/open.go",
  "@@ -4,9 +4,13 @@",
  " ",
  "-// Open opens the database at path.",
  "-func Open(path string) (*DB, error) {",
  '-\tdb, err := sql.Open("sqlite", path)',
  "+// Open opens the database at path, in WAL mode, with foreign keys enforced and a busy timeout so that concurrent writers wait instead of failing.",
  "+func Open(ctx context.Context, path string) (*DB, error) {",
  '+\tdb, err := sql.Open("sqlite", path+"?_pragma=foreign_keys(1)&_pragma=journal_mode(WAL)&_pragma=busy_timeout(5000)")',
  " \tif err != nil {",
  '-\t\treturn nil, fmt.Errorf("open: %v", err)',
  '+\t\treturn nil, fmt.Errorf("open %s: %w", path, err)',
  " \t}",
  "-\treturn &DB{db: db}, nil",
  "+\tif err := migrate(ctx, db); err != nil {",
  "+\t\tdb.Close()",
  "+\t\treturn nil, err",
  "+\t}",
  "+\treturn &DB{db: db}, nil",
  " }",
  " ",
  "",
].join("\n");

let seq = 0;
const ev = (type: string, data: unknown, runId = ""): Event => {
  seq++;
  const e: Event = { type, sessionId: SESSION, seq, time: new Date(Date.parse("2026-12-01T11:00:00Z") + seq * 7).toISOString(), data };
  if (runId !== "") e.runId = runId;
  return e;
};
const run = "run_1";
const change = (id: string, callId: string, path: string, op: string, added: number, removed: number) => ({
  id,
  sessionId: SESSION,
  runId: run,
  callId,
  tool: op === "create" ? "write" : "edit",
  path: `${WORKDIR}/${path}`,
  op,
  existedBefore: op !== "create",
  existsAfter: true,
  diff,
  added,
  removed,
  createdAt: "2026-12-01T11:00:02Z",
});
const events: Event[] = [
  ev("run.start", { prompt: "Open the store in WAL mode and run the migrations", workdir: WORKDIR, model: "m", provider: "p", approvalMode: "manual" }, run),
  ev("step.start", { step: 1, tools: ["edit", "write"] }, run),
  ev("text.delta", { step: 1, text: "I will open the database in WAL mode and run the migrations at open." }, run),
  ev("tool.begin", { step: 1, index: 0, id: "call_1", name: "edit" }, run),
  ev("tool.end", { step: 1, index: 0, id: "call_1", name: "edit", status: "done", isError: false, text: "edited", durationMs: 12, fileChanges: [change("chg_1", "call_1", "backend/store/open.go", "edit", 11, 5)] }, run),
  ev("tool.begin", { step: 1, index: 1, id: "call_2", name: "write" }, run),
  ev("tool.end", { step: 1, index: 1, id: "call_2", name: "write", status: "done", isError: false, text: "written", durationMs: 9, fileChanges: [change("chg_2", "call_2", "backend/store/migrate.go", "create", 40, 0)] }, run),
  ev("step.end", { step: 1, finishReason: "stop", toolCalls: 2, usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 } }, run),
  ev("run.end", { status: "completed", error: "", steps: 1, usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 } }, run),
];

// benchEvents is a session of 100 turns of 5 edits each.
function benchEvents(): Event[] {
  seq = 0; // a session's events count from 1
  const out: Event[] = [];
  for (let r = 0; r < 100; r++) {
    const id = `run_${r}`;
    out.push(ev("run.start", { prompt: `Turn ${r}: change five files`, workdir: WORKDIR, model: "m", provider: "p", approvalMode: "auto" }, id));
    out.push(ev("step.start", { step: 1, tools: ["edit"] }, id));
    for (let c = 0; c < 5; c++) {
      const call = `call_${r}_${c}`;
      const fc = { ...change(`chg_${r}_${c}`, call, `pkg${r}/file${c}.go`, "edit", 2500, 2500), runId: id };
      out.push(ev("tool.begin", { step: 1, index: c, id: call, name: "edit" }, id));
      out.push(ev("tool.end", { step: 1, index: c, id: call, name: "edit", status: "done", isError: false, text: "edited", durationMs: 3, fileChanges: [fc] }, id));
    }
    out.push(ev("step.end", { step: 1, finishReason: "stop", toolCalls: 5 }, id));
    out.push(ev("run.end", { status: "completed", error: "", steps: 1 }, id));
  }
  return out;
}

// bigDiff is a 5,000-line diff: 2,500 lines changed, in hunks of 10.
function bigDiff(): string {
  const out = ["--- a/pkg/big.go", "+++ b/pkg/big.go"];
  for (let h = 0; h < 250; h++) {
    const at = h * 20 + 1;
    out.push(`@@ -${at},10 +${at},10 @@`);
    for (let i = 0; i < 10; i++) out.push(`-\tvalue${at + i} := compute(${at + i}, "old")`);
    for (let i = 0; i < 10; i++) out.push(`+\tvalue${at + i} := compute(${at + i}, "new")`);
  }
  return out.join("\n") + "\n";
}

const params = new URLSearchParams(location.search);
const bench = params.get("bench") === "1";
const theme = params.get("theme") ?? "light";
document.documentElement.dataset["theme"] = theme;
// One comment on the rewritten lines, for the screenshots.
const comments = [
  {
    id: "cmt_1",
    sessionId: SESSION,
    changeId: "chg_1",
    path: `${WORKDIR}/backend/store/open.go`,
    startLine: 5,
    endLine: 7,
    quote: "// Open opens the database at path, in WAL mode…",
    text: "Keep the busy timeout in a constant, and say why 5 s.",
    state: "open",
    sent: false,
    createdAt: "2026-12-01T11:00:05Z",
    updatedAt: "2026-12-01T11:00:05Z",
  },
];
const transport = new FakeTransport({
  Changes: [],
  Comments: bench ? [] : comments,
  Diff: bench ? bigDiff() : diff,
  ChangeContents: bench ? { before: "", after: "", beforeKnown: false, afterKnown: false } : { before, after: "", beforeKnown: true, afterKnown: true },
});
const store = createSessionStore(SESSION);
store.getState().apply(bench ? benchEvents() : events);

// The panel's first paint: from the render call to the frame after the
// one that drew it.
// The first paint holds the newest turns only: reviewAllDrawn is when the
// frame after the one that drew all 100 rows of the first page began.
const started = performance.now();
const marks = window as unknown as { reviewPainted: number; reviewAllDrawn: number };
requestAnimationFrame(() =>
  requestAnimationFrame(() => {
    marks.reviewPainted = performance.now() - started;
  }),
);
if (bench) {
  const whenAll = () => {
    if (document.querySelectorAll(".review-change").length >= 100) marks.reviewAllDrawn = performance.now() - started;
    else requestAnimationFrame(whenAll);
  };
  requestAnimationFrame(whenAll);
}
createRoot(document.getElementById("root")!).render(
  <TransportProvider transport={transport}>
    <SessionStoreProvider store={store}>
      <div className="app">
        <aside className="sidebar" aria-label="Sessions sidebar">
          <h1 className="brand" style={{ padding: "12px 16px" }}>
            Foya
          </h1>
        </aside>
        <main className="main">
          <div className="session-body has-panel">
            <div className="session-centre">
              {/* The benchmark times the review panel alone. */}
              {!bench && <ConversationView sessionId={SESSION} />}
            </div>
            <SidePanel name="review" storageKey="foya.panel.review.width">
              <ReviewPanel sessionId={SESSION} onClose={() => {}} />
            </SidePanel>
          </div>
        </main>
      </div>
    </SessionStoreProvider>
  </TransportProvider>,
);
