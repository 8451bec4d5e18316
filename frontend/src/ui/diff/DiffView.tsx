// DiffView shows one file's unified diff (the backend's text) with
// react-diff-view: unified (each run's removed lines before its added
// ones) or split, highlighted by refractor with the file's language
// fetched on demand, the changed words marked only in lines changed a
// little, unchanged regions collapsed between hunks (expandable when the
// old content is given), a full-file toggle, long lines wrapped or
// scrolled (a kept choice) and an optional revert action per hunk.
import { Fragment, useEffect, useMemo, useRef, useState, type ReactElement } from "react";
import { Diff, Hunk, tokenize, type GutterOptions, type HunkData, type HunkTokens } from "react-diff-view";
import "react-diff-view/style/index.css";
import { gapHunk, gaps, grouped, parse, sourceLines, zipped, type Gap } from "./model";
import { markSimilarEdits } from "./edits";
import { useStoredFlag } from "../stored";
import { highlighter, isLoaded, languageOf, loadLanguage } from "./languages";
import "./diff.css";

export type DiffMode = "unified" | "split";

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
  /** Disables the hunk actions (a revert is being made). */
  busy?: boolean;
  /**
   * When given, each hunk and each line of the after side has a comment
   * button calling it with the lines (of the after side, from 1, both
   * included): the hunk's, or the line's.
   */
  onComment?: (lines: { start: number; end: number }) => void;
}

/** DiffView renders a diff; text that is no unified diff (a binary file, a folder) is shown as a note. */
export function DiffView(props: DiffViewProps) {
  const { diff, path, oldSource, onRevertHunk, busy, onComment } = props;
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

  const gutter = useMemo(() => (onComment ? commentGutter(onComment) : renderGutter), [onComment]);
  const lines = useMemo(() => (oldSource === undefined ? null : sourceLines(oldSource)), [oldSource]);
  const hunks = file?.hunks ?? [];
  const gapList = useMemo(() => gaps(hunks, lines === null ? -1 : lines.length), [hunks, lines]);

  // The hunks react-diff-view renders: the diff's own, with the gaps that
  // are shown as hunks of unchanged lines, in line order.
  const shown = useMemo(() => {
    const order = mode === "split" ? zipped : grouped;
    const out: { hunk: HunkData; index: number; gap: Gap | null }[] = [];
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

  // Tokens: the language's highlighting once its grammar is loaded, and
  // the words that changed within a line changed a little, marked.
  const tokens = useMemo<HunkTokens | null>(() => {
    if (shown.length === 0) return null;
    const hs = shown.map((s) => s.hunk);
    const enhancers = [markSimilarEdits(hs)];
    try {
      return langReady
        ? tokenize(hs, { highlight: true, refractor: highlighter, language: lang, enhancers })
        : tokenize(hs, { enhancers });
    } catch {
      return null;
    }
  }, [langReady, lang, shown]);

  // react-diff-view's table takes no ARIA props; name it here.
  useEffect(() => {
    const table = tableBox.current?.querySelector("table");
    if (table) table.setAttribute("aria-label", name === "" ? "Diff" : `Diff of ${name}`);
  });

  if (file === null) {
    return (
      <div className="diffview">
        <p className="diffview-note">{diff.trim() === "" ? "No changes to show." : diff.trim()}</p>
      </div>
    );
  }

  const monotonous = file.type === "add" || file.type === "delete";
  const columns = mode === "unified" ? 3 : monotonous ? 2 : 4;
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

  const renderHunks = () => {
    const out: ReactElement[] = [];
    shown.forEach((s) => {
      const key = `${s.index}-${s.hunk.oldStart}-${s.hunk.newStart}`;
      if (s.gap !== null) {
        out.push(<Hunk key={`open-${key}`} hunk={s.hunk} />);
        return;
      }
      const g = gapList.find((x) => x.before === s.index - 1);
      if (g !== undefined) {
        const row = gapRow(g);
        if (row !== null) out.push(row);
      }
      out.push(
        <tbody className="diff-decoration diffview-hunk-header" key={`head-${key}`}>
          <tr>
            <th scope="rowgroup" colSpan={columns}>
              <span className="diffview-hunk-title">
                Hunk {s.index} <code>{s.hunk.content}</code>
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
              {onRevertHunk && (
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
    if (tail !== undefined) {
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
      <div className={`diffview-table ${wrap ? "diffview-wrap" : "diffview-nowrap"}`} ref={tableBox}>
        <Diff
          viewType={mode}
          diffType={file.type}
          hunks={shown.map((s) => s.hunk)}
          tokens={tokens}
          renderGutter={gutter}
        >
          {() => <Fragment>{renderHunks()}</Fragment>}
        </Diff>
      </div>
    </div>
  );
}

// hunkLines is the after side's lines of a hunk; a hunk that only removed
// lines gives the line after them.
function hunkLines(h: HunkData): { start: number; end: number } {
  const start = Math.max(h.newStart, 1);
  return { start, end: Math.max(start, h.newStart + h.newLines - 1) };
}

// commentGutter is renderGutter with a comment button beside each line of
// the after side.
function commentGutter(onComment: (lines: { start: number; end: number }) => void) {
  return function gutter(opts: GutterOptions) {
    const { change, side } = opts;
    const line = side !== "new" ? 0 : change.type === "insert" ? change.lineNumber : change.type === "normal" ? change.newLineNumber : 0;
    return (
      <>
        {line > 0 && (
          <button
            type="button"
            className="diffview-comment"
            aria-label={`Comment on line ${line}`}
            onClick={() => onComment({ start: line, end: line })}
          >
            +
          </button>
        )}
        {renderGutter(opts)}
      </>
    );
  };
}

// renderGutter adds, for screen readers, whether a line was added or
// removed: the colours alone do not say it.
function renderGutter({ change, side, renderDefault }: GutterOptions) {
  const mark =
    change.type === "insert" && side === "new" ? "added line" : change.type === "delete" && side === "old" ? "removed line" : "";
  return (
    <>
      {mark !== "" && <span className="diffview-sr">{mark} </span>}
      {renderDefault()}
    </>
  );
}
