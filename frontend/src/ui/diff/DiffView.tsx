// DiffView shows one file's unified diff (the backend's text) with
// react-diff-view: unified (each run's removed lines before its added
// ones) or split, highlighted by refractor with the file's language
// fetched on demand, the changed words marked only in lines changed a
// little, unchanged regions collapsed between hunks (expandable when the
// old content is given), a full-file toggle, long lines wrapped or
// scrolled (a kept choice) and actions per hunk (revert, undo) with the
// reverted hunks marked. A long diff is cut into pages of lines, and only
// the pages near the part of it in view are drawn (virtual.ts): the others
// are empty boxes of their height, so a 10,000-line diff opens and
// scrolls as fast as a short one. A jump to a hunk (revealHunk) draws its
// page first. A page is drawn as plain text and highlighted when the
// browser is idle, a few hunks at a time.
import { Fragment, memo, useEffect, useMemo, useRef, useState, type ReactElement, type ReactNode } from "react";
import { computeNewLineNumber, computeOldLineNumber, Diff, Hunk, tokenize, type ChangeData, type DiffType, type GutterOptions, type HunkData, type HunkTokens } from "react-diff-view";
import "react-diff-view/style/index.css";
import { gapHunk, gaps, grouped, hunkLines, parse, sourceLines, zipped, type Gap } from "./model";
import { markSimilarEdits } from "./edits";
import { useStoredFlag } from "../stored";
import { highlighter, isLoaded, languageOf, loadLanguage } from "./languages";
import { useVirtualPages, type PageSize } from "./virtual";
import { useLineComment } from "./comment";
import "./diff.css";

export type DiffMode = "unified" | "split";

/**
 * PAGE_LINES is how many lines of a diff a page holds: each page is a
 * table of its own, drawn (as plain text, highlighted after when the
 * browser is idle) when it comes near the view and dropped (its box kept
 * at its height) when it is far from it, so drawing a page never redraws
 * (or highlights again) the others, and no task draws more than a page.
 */
export const PAGE_LINES = 50;

/** wrapKey is the localStorage key of the choice to wrap long lines (else they scroll). */
export const wrapKey = "foya.diff.wrap";

export interface DiffViewProps {
  /** The unified diff, as the backend's Diff call or a change's diff gives it. */
  diff: string;
  /** The file's path, for the caption and the highlighting language. */
  path?: string;
  /** The layout shown first; the view's toolbar switches it. */
  mode?: DiffMode;
  /** Called with the layout the person chose. */
  onModeChange?: (mode: DiffMode) => void;
  /**
   * The file's content before the change. With it, collapsed regions can be
   * expanded and the whole file shown; without it they stay collapsed.
   */
  oldSource?: string;
  /** Show the whole file at first (with oldSource). */
  fullFile?: boolean;
  /** When given, each hunk has a revert button calling it with the hunk's number (from 1, in the diff's order). */
  onRevertHunk?: (hunk: number) => void;
  /**
   * The actions of hunk n (from 1) shown in its header, in place of
   * onRevertHunk's button: a caller that knows the hunks' state offers
   * "Revert hunk n" or "Undo hunk n".
   */
  hunkActions?: (hunk: number) => ReactNode;
  /**
   * Changes when what hunkActions draws changes (beyond revertedHunks and
   * busy): a page already drawn is drawn again only when this, or what
   * the view itself shows, changes.
   */
  hunkActionsKey?: string;
  /** The hunks reverted now: marked as such, their lines dimmed. */
  revertedHunks?: readonly number[];
  /** How many lines a page holds (PAGE_LINES). */
  pageLines?: number;
  /** When given, hunk n's header has the id `${hunkIdPrefix}-${n}` and can take focus (keyboard review). */
  hunkIdPrefix?: string;
  /**
   * The hunk (from 1) to show and focus (with hunkIdPrefix): its page is
   * drawn, wherever it is, and kept while this stays the same; 0 for none.
   */
  revealHunk?: number;
  /** Disables the hunk actions (a revert is being made). */
  busy?: boolean;
  /**
   * When given, each hunk has a comment button calling it with the hunk's
   * lines (of the after side, from 1, both included), and the line of the
   * after side under the mouse one with the line (comment.tsx: one button
   * for the diff, which Up and Down move from line to line).
   */
  onComment?: (lines: { start: number; end: number }) => void;
}

/** DiffView renders a diff; text that is no unified diff (a binary file, a folder) is shown as a note. */
export function DiffView(props: DiffViewProps) {
  const { diff, path, oldSource, onRevertHunk, hunkActions, revertedHunks, hunkIdPrefix, busy, onComment } = props;
  const pageLines = props.pageLines ?? PAGE_LINES;
  const revealHunk = props.revealHunk ?? 0;
  const file = useMemo(() => parse(diff), [diff]);
  const [mode, setMode] = useState<DiffMode>(props.mode ?? "unified");
  // A parent that holds the layout (one choice for several diffs) switches it here too.
  useEffect(() => {
    if (props.mode !== undefined) setMode(props.mode);
  }, [props.mode]);
  const [full, setFull] = useState(props.fullFile === true && oldSource !== undefined);
  const [opened, setOpened] = useState<ReadonlySet<number>>(new Set());
  const name = path ?? file?.newPath ?? "";
  const lang = languageOf(name === "/dev/null" ? (file?.oldPath ?? "") : name);
  const [langReady, setLangReady] = useState(() => isLoaded(lang));
  const tableBox = useRef<HTMLDivElement>(null);
  const [wrap, setWrap] = useStoredFlag(wrapKey, true);

  useEffect(() => {
    let live = true;
    setLangReady(isLoaded(lang));
    void loadLanguage(lang).then((ok) => {
      if (live) setLangReady(ok);
    });
    return () => {
      live = false;
    };
  }, [lang]);

  const lines = useMemo(() => (oldSource === undefined ? null : sourceLines(oldSource)), [oldSource]);
  const hunks = file?.hunks ?? [];
  const gapList = useMemo(() => gaps(hunks, lines === null ? -1 : lines.length), [hunks, lines]);

  // The hunks react-diff-view renders: the diff's own, with the gaps that
  // are shown as hunks of unchanged lines, in line order.
  const shown = useMemo(() => {
    const order = mode === "split" ? zipped : grouped;
    const out: Shown[] = [];
    const open = (g: Gap) => lines !== null && (full || opened.has(g.before));
    for (let i = 0; i <= hunks.length; i++) {
      const g = gapList.find((x) => x.before === i);
      if (g !== undefined && open(g) && lines !== null) {
        const h = gapHunk(g, lines);
        if (h !== null) out.push({ hunk: h, index: -1, gap: g });
      }
      const h = hunks[i];
      if (h !== undefined) out.push({ hunk: order(h), index: i + 1, gap: null });
    }
    return out;
  }, [hunks, gapList, lines, full, opened, mode]);

  // What is drawn: the pages near the view (and the one a jump asks for);
  // the others are boxes of their height.
  const pages = useMemo(() => paginate(shown, pageLines), [shown, pageLines]);
  const sizes = useMemo<PageSize[]>(
    () =>
      pages.map((list) => {
        const first = list[0];
        const rows = list.reduce((n, s) => n + s.hunk.changes.length + (s.continued === true || s.gap !== null ? 0 : 1), 0);
        const at = first === undefined ? "" : `${first.index}-${first.hunk.oldStart}-${first.hunk.newStart}-${first.continued === true}`;
        return { key: `${mode}|${wrap}|${at}|${rows}`, rows };
      }),
    [pages, mode, wrap],
  );
  const revealPage = revealHunk > 0 ? pages.findIndex((l) => l.some((s) => s.index === revealHunk && s.gap === null && s.continued !== true)) : -1;
  const slots = useRef<(HTMLDivElement | null)[]>([]);
  const { drawn, height } = useVirtualPages(sizes, tableBox, slots, revealPage);
  const comment = useLineComment(tableBox, onComment, file?.type !== "delete");

  // A jump to a hunk focuses its header once its page is drawn (the focus
  // scrolls it into view).
  useEffect(() => {
    if (revealHunk <= 0 || hunkIdPrefix === undefined) return;
    const el = document.getElementById(`${hunkIdPrefix}-${revealHunk}`);
    el?.focus();
    el?.scrollIntoView?.({ block: "nearest" });
  }, [revealHunk, hunkIdPrefix, file]);

  // What the pages' rows depend on besides their hunks: a drawn page is
  // drawn again only when it changes.
  const version = [
    busy === true,
    (revertedHunks ?? []).join(","),
    props.hunkActionsKey ?? "",
    [...opened].join(","),
    full,
    lines?.length ?? -1,
    hunkIdPrefix ?? "",
    onRevertHunk !== undefined,
    hunkActions !== undefined,
    columnsOf(mode, file?.type),
  ].join("|");

  if (file === null) {
    return (
      <div className="diffview">
        <p className="diffview-note">{diff.trim() === "" ? "No changes to show." : diff.trim()}</p>
      </div>
    );
  }

  const columns = columnsOf(mode, file.type);
  const changeMode = (m: DiffMode) => {
    setMode(m);
    props.onModeChange?.(m);
  };

  const gapRow = (g: Gap): ReactElement | null => {
    const isOpen = lines !== null && (full || opened.has(g.before));
    if (isOpen) return null;
    const label = g.count === 1 ? "1 unchanged line" : `${g.count} unchanged lines`;
    return (
      <tbody className="diffview-gap" key={`gap-${g.before}`}>
        <tr>
          <td colSpan={columns}>
            <span>{label} not shown</span>
            {lines !== null && (
              <button
                type="button"
                className="diffview-button"
                onClick={() => setOpened(new Set(opened).add(g.before))}
              >
                Show {label}
              </button>
            )}
          </td>
        </tr>
      </tbody>
    );
  };

  const renderHunks = (list: readonly Shown[], last: boolean) => {
    const out: ReactElement[] = [];
    list.forEach((s) => {
      const key = `${s.index}-${s.hunk.oldStart}-${s.hunk.newStart}`;
      if (s.gap !== null) {
        out.push(<Hunk key={`open-${key}`} hunk={s.hunk} />);
        return;
      }
      if (s.continued) {
        // The rest of a hunk a page began: its header is on that page.
        out.push(<Hunk key={`rest-${key}-${s.hunk.changes.length}`} hunk={s.hunk} />);
        return;
      }
      const g = gapList.find((x) => x.before === s.index - 1);
      if (g !== undefined) {
        const row = gapRow(g);
        if (row !== null) out.push(row);
      }
      const reverted = revertedHunks?.includes(s.index) === true;
      out.push(
        <tbody
          className={`diff-decoration diffview-hunk-header${reverted ? " diffview-hunk-reverted" : ""}`}
          key={`head-${key}`}
        >
          <tr>
            <th
              scope="rowgroup"
              colSpan={columns}
              {...(hunkIdPrefix !== undefined ? { id: `${hunkIdPrefix}-${s.index}`, tabIndex: -1 } : {})}
            >
              <span className="diffview-hunk-title">
                Hunk {s.index}
                {reverted && <span className="diffview-hunk-state">reverted: these lines are as they were before</span>}{" "}
                <code>{s.hunk.content}</code>
              </span>
              {onComment && (
                <button
                  type="button"
                  className="diffview-button"
                  aria-label={`Comment on hunk ${s.index}`}
                  onClick={() => onComment(hunkLines(s.hunk))}
                >
                  Comment
                </button>
              )}
              {hunkActions !== undefined && hunkActions(s.index)}
              {hunkActions === undefined && onRevertHunk && (
                <button
                  type="button"
                  className="diffview-button"
                  disabled={busy === true}
                  onClick={() => onRevertHunk(s.index)}
                >
                  Revert hunk {s.index}
                </button>
              )}
            </th>
          </tr>
        </tbody>,
      );
      out.push(<Hunk key={`hunk-${key}`} hunk={s.hunk} />);
    });
    const tail = gapList.find((x) => x.before === hunks.length);
    if (tail !== undefined && last) {
      const row = gapRow(tail);
      if (row !== null) out.push(row);
    }
    return out;
  };

  return (
    <div className="diffview">
      <div className="diffview-toolbar" role="toolbar" aria-label={name === "" ? "Diff view" : `Diff view of ${name}`}>
        <div role="group" aria-label="Layout">
          <button type="button" className="diffview-button" aria-pressed={mode === "unified"} onClick={() => changeMode("unified")}>
            Unified
          </button>
          <button type="button" className="diffview-button" aria-pressed={mode === "split"} onClick={() => changeMode("split")}>
            Split
          </button>
        </div>
        {lines !== null && (
          <button type="button" className="diffview-button" aria-pressed={full} onClick={() => setFull(!full)}>
            Full file
          </button>
        )}
        <button
          type="button"
          className="diffview-button"
          aria-pressed={wrap}
          title={wrap ? "Long lines wrap; press to scroll them instead" : "Long lines scroll; press to wrap them instead"}
          onClick={() => setWrap(!wrap)}
        >
          Wrap lines
        </button>
      </div>
      <div className={`diffview-table ${wrap ? "diffview-wrap" : "diffview-nowrap"}`} ref={tableBox} onMouseMove={comment.onMouseMove}>
        {comment.button}
        {pages.map((list, i) => {
          const on = drawn === null || drawn.has(i);
          const of = name === "" ? "Diff" : `Diff of ${name}`;
          return (
            <div
              key={i}
              ref={(el) => {
                slots.current[i] = el;
              }}
              className={on ? "diffview-page" : "diffview-page diffview-page-empty"}
              data-page={i}
              data-drawn={on}
              style={on ? undefined : { height: height(i) }}
            >
              {on && (
                <DiffPage
                  list={list}
                  mode={mode}
                  fileType={file.type}
                  lang={lang}
                  langReady={langReady}
                  label={i === 0 ? of : `${of}, continued (${i + 1})`}
                  render={() => renderHunks(list, i === pages.length - 1)}
                  gutter={renderGutter}
                  version={version}
                />
              )}
            </div>
          );
        })}
      </div>
    </div>
  );
}

/** Shown is a hunk as drawn: the diff's hunk index (from 1; -1 for an opened gap), and whether it continues one a page before began. */
type Shown = { hunk: HunkData; index: number; gap: Gap | null; continued?: boolean };

/**
 * paginate cuts the shown hunks into pages of size lines, a hunk longer
 * than what is left of a page cut in two (its rest continued on the next
 * page).
 */
export function paginate(shown: readonly Shown[], size: number): Shown[][] {
  const pages: Shown[][] = [];
  let page: Shown[] = [];
  let used = 0;
  for (const s of shown) {
    let rest = s;
    for (;;) {
      const n = rest.hunk.changes.length;
      if (used + n <= size || n === 0) {
        page.push(rest);
        used += n;
        break;
      }
      const take = size - used;
      if (take > 0) page.push({ ...rest, hunk: { ...rest.hunk, changes: rest.hunk.changes.slice(0, take) } });
      pages.push(page);
      page = [];
      used = 0;
      if (take > 0) rest = { ...rest, hunk: { ...rest.hunk, changes: rest.hunk.changes.slice(take) }, continued: true };
    }
  }
  if (page.length > 0 || pages.length === 0) pages.push(page);
  return pages;
}

/**
 * DiffPage is one page of a diff: a table of its own with its own
 * highlighting (the language's, once its grammar is loaded, and the words
 * that changed within a line changed a little), worked out once per page.
 */
const DiffPage = memo(DiffPageView, (a, b) =>
  a.list === b.list && a.label === b.label && a.mode === b.mode && a.fileType === b.fileType && a.lang === b.lang && a.langReady === b.langReady && a.gutter === b.gutter && a.version === b.version,
);

/** columnsOf is how many columns a diff's rows have. */
function columnsOf(mode: DiffMode, type: DiffType | undefined): number {
  if (mode === "unified") return 3;
  return type === "add" || type === "delete" ? 2 : 4;
}

function DiffPageView(props: {
  list: readonly Shown[];
  mode: DiffMode;
  fileType: DiffType;
  lang: string;
  langReady: boolean;
  /** The table's accessible name. */
  label: string;
  render: () => ReactElement[];
  gutter: (opts: GutterOptions) => ReactNode;
  /** What the rows depend on besides the hunks (see version in DiffView). */
  version: string;
}) {
  const { list, lang, langReady, label } = props;
  const box = useRef<HTMLDivElement>(null);
  // react-diff-view's table takes no ARIA props: name it here.
  useEffect(() => {
    box.current?.querySelector("table")?.setAttribute("aria-label", label);
  });
  const hunks = useMemo(() => list.map((s) => s.hunk), [list]);
  // A page is drawn as plain text first and highlighted after, a few
  // hunks at a time, each when the browser is idle: drawing and
  // highlighting a page in one go is a task long enough to stall
  // scrolling. A page highlighted before (scrolled away and back) is
  // drawn highlighted at once. Tokens are kept with the lines they were
  // worked out for: another page's tokens would replace these lines' text.
  const want = langReady ? lang : "";
  const [done, setDone] = useState<{ list: readonly Shown[]; tokens: HunkTokens | null } | null>(null);
  const kept = highlighted.get(list);
  const tokens = kept?.lang === want ? kept.tokens : done?.list === list ? done.tokens : null;
  useEffect(() => {
    if (highlighted.get(list)?.lang === want) return;
    const parts = chunksOf(hunks, HIGHLIGHT_LINES);
    let sofar: HunkTokens | null = null;
    let next = 0;
    let cancel = () => {};
    const step = () => {
      const part = parts[next++]!;
      const { hunks: moved, oldBy, newBy } = fromLineOne(part);
      sofar = merge(sofar, tokensOf(moved, want), moved, oldBy, newBy);
      if (next < parts.length) cancel = whenIdle(step);
      else highlighted.set(list, { lang: want, tokens: sofar });
      setDone({ list, tokens: sofar });
    };
    if (parts.length === 0) highlighted.set(list, { lang: want, tokens: null });
    else cancel = whenIdle(step);
    return () => cancel();
  }, [list, hunks, want]);
  return (
    <div ref={box}>
      <Diff viewType={props.mode} diffType={props.fileType} hunks={hunks} tokens={tokens} renderGutter={props.gutter}>
        {() => <Fragment>{props.render()}</Fragment>}
      </Diff>
    </div>
  );
}

// highlighted keeps each page's tokens while its lines are the same, so a
// page scrolled away and back is not highlighted again.
const highlighted = new WeakMap<readonly Shown[], { lang: string; tokens: HunkTokens | null }>();

// whenIdle runs f when the browser has nothing else to do (at most a
// second later), or soon where it cannot tell; it returns what cancels it.
function whenIdle(f: () => void): () => void {
  if (typeof requestIdleCallback === "function") {
    const id = requestIdleCallback(f, { timeout: 1000 });
    return () => cancelIdleCallback(id);
  }
  const id = setTimeout(f, 0);
  return () => clearTimeout(id);
}

/**
 * HIGHLIGHT_LINES is about how many lines one idle callback highlights:
 * a page's hunks are highlighted in runs of whole hunks of about this
 * many lines (a longer hunk alone), so a hunk's lines are highlighted and
 * their changed words paired together.
 */
export const HIGHLIGHT_LINES = 16;

// chunksOf cuts hunks into runs of whole hunks of at least size lines (the last one fewer).
function chunksOf(hunks: readonly HunkData[], size: number): HunkData[][] {
  const out: HunkData[][] = [];
  let run: HunkData[] = [];
  let n = 0;
  for (const h of hunks) {
    run.push(h);
    n += h.changes.length;
    if (n >= size) {
      out.push(run);
      run = [];
      n = 0;
    }
  }
  if (run.length > 0) out.push(run);
  return out;
}

// tokensOf is the tokens of hunks: their lines highlighted in lang (none:
// "") and the words changed within a line changed a little marked.
function tokensOf(hunks: HunkData[], lang: string): HunkTokens | null {
  if (hunks.length === 0) return null;
  const enhancers = [markSimilarEdits(hunks)];
  try {
    return lang !== ""
      ? tokenize(hunks, { highlight: true, refractor: highlighter, language: lang, enhancers })
      : tokenize(hunks, { enhancers });
  } catch {
    return null;
  }
}

// fromLineOne returns hunks with their lines numbered from 1 (on each
// side), and by how much each side was moved: react-diff-view tokenizes
// every line up to the last one's number, so hunks far down a file would
// cost as much as the whole file above them.
function fromLineOne(hunks: readonly HunkData[]): { hunks: HunkData[]; oldBy: number; newBy: number } {
  let oldBy = Infinity;
  let newBy = Infinity;
  for (const h of hunks) {
    for (const c of h.changes) {
      const o = computeOldLineNumber(c);
      const n = computeNewLineNumber(c);
      if (o > 0) oldBy = Math.min(oldBy, o - 1);
      if (n > 0) newBy = Math.min(newBy, n - 1);
    }
  }
  if (oldBy === Infinity) oldBy = 0;
  if (newBy === Infinity) newBy = 0;
  const moved = hunks.map((h) => ({
    ...h,
    oldStart: Math.max(0, h.oldStart - oldBy),
    newStart: Math.max(0, h.newStart - newBy),
    changes: h.changes.map((c): ChangeData => {
      if (c.type === "insert") return { ...c, lineNumber: c.lineNumber - newBy };
      if (c.type === "delete") return { ...c, lineNumber: c.lineNumber - oldBy };
      return { ...c, oldLineNumber: c.oldLineNumber - oldBy, newLineNumber: c.newLineNumber - newBy };
    }),
  }));
  return { hunks: moved, oldBy, newBy };
}

// merge returns into with the tokens part has for the lines of hunks
// (numbered from 1 after moving each side by oldBy and newBy lines).
function merge(into: HunkTokens | null, part: HunkTokens | null, hunks: readonly HunkData[], oldBy: number, newBy: number): HunkTokens | null {
  if (part === null) return into;
  const out: HunkTokens = { old: into === null ? [] : [...into.old], new: into === null ? [] : [...into.new] };
  for (const h of hunks) {
    for (const c of h.changes) {
      const o = computeOldLineNumber(c);
      const n = computeNewLineNumber(c);
      if (o > 0 && part.old[o - 1] !== undefined) out.old[o - 1 + oldBy] = part.old[o - 1]!;
      if (n > 0 && part.new[n - 1] !== undefined) out.new[n - 1 + newBy] = part.new[n - 1]!;
    }
  }
  return out;
}

// renderGutter draws a line's number. Whether a line was added or removed
// is said to screen readers by the code cell's sign (diff.css: the "+" or
// "-" drawn before the code has "added line" or "removed line" as its
// alternative text), not by an element of its own in every line.
function renderGutter({ renderDefault }: GutterOptions) {
  return renderDefault();
}
