// The one way a view loads data from the kernel: a call started when the view
// mounts and when what it depends on changes, its loading, value and error
// as state, and a reload. Only the latest call's answer is shown: one that
// comes after an unmount, a change of what it depends on, a reload or a set
// is dropped, so a slow answer never overwrites a newer one, and the call's
// AbortSignal is aborted then, for a load that can stop its work.
import { useCallback, useEffect, useRef, useState, type DependencyList } from "react";
import { toApiError, type ApiError } from "../backend/errors";

/**
 * LoadState is a load's state. value is the last value loaded: while a
 * reload runs, or after it failed, the view may keep showing it; it is
 * undefined before the first value and after what the load depends on
 * changed.
 */
export type LoadState<T> =
  | { status: "loading"; value: T | undefined }
  | { status: "ready"; value: T }
  | { status: "error"; error: ApiError; value: T | undefined };

/** Loaded is what useLoad returns. */
export interface Loaded<T> {
  state: LoadState<T>;
  /** reload calls the load again, keeping the value until the answer. */
  reload: () => void;
  /**
   * set makes value the state, ready, as after a load: a view that changed
   * the data itself (a mode switched) shows what it knows without a
   * reload. A load still running is dropped.
   */
  set: (value: T) => void;
}

/** LoadOptions changes what useLoad shows while it loads. */
export interface LoadOptions {
  /**
   * keep keeps the value when deps change, as on reload: for a value that
   * is still right meanwhile (a count, a switch's state asked again), not
   * for one that belongs to what changed (another session's).
   */
  keep?: boolean;
}

/**
 * useLoad calls load when the component mounts and whenever deps change (as
 * useEffect's deps: load itself is not one), and on reload. A load that
 * throws or rejects is an error state with the ApiError (toApiError); only
 * the latest call's answer counts, and signal is aborted once it no longer
 * does (unmount, deps changed, reload, set).
 */
export function useLoad<T>(load: (signal: AbortSignal) => Promise<T>, deps: DependencyList, opts: LoadOptions = {}): Loaded<T> {
  const [state, setState] = useState<LoadState<T>>({ status: "loading", value: undefined });
  const [tick, setTick] = useState(0);
  // generation counts calls, sets and cleanups: an answer counts only while
  // the generation is the one its call started.
  const generation = useRef(0);
  const lastTick = useRef(tick);
  const latest = useRef(load);
  latest.current = load;
  const running = useRef<AbortController | null>(null);

  useEffect(() => {
    const g = ++generation.current;
    const keep = opts.keep === true || lastTick.current !== tick;
    lastTick.current = tick;
    setState((s) => ({ status: "loading", value: keep ? s.value : undefined }));
    const ctl = new AbortController();
    running.current = ctl;
    let p: Promise<T>;
    try {
      p = latest.current(ctl.signal);
    } catch (e) {
      p = Promise.reject(e);
    }
    p.then(
      (value) => {
        if (generation.current === g) setState({ status: "ready", value });
      },
      (e: unknown) => {
        if (generation.current === g) setState((s) => ({ status: "error", error: toApiError(e), value: s.value }));
      },
    );
    return () => {
      if (generation.current === g) generation.current++;
      ctl.abort();
    };
    // deps are the caller's (load is read through latest); tick is a reload.
  }, [...deps, tick]);

  const reload = useCallback(() => setTick((t) => t + 1), []);
  const set = useCallback((value: T) => {
    generation.current++;
    running.current?.abort();
    setState({ status: "ready", value });
  }, []);
  return { state, reload, set };
}
