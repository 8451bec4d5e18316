import { act, cleanup, render, renderHook, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { ApiError } from "../backend/errors";
import { useLoad } from "./useLoad";

afterEach(cleanup);

// Calls hands out promises the test settles, in any order.
class Calls {
  pending: { arg: string; signal: AbortSignal | undefined; resolve: (v: string) => void; reject: (e: unknown) => void }[] = [];
  load = (arg: string, signal?: AbortSignal) =>
    new Promise<string>((resolve, reject) => {
      this.pending.push({ arg, signal, resolve, reject });
    });
  aborted = () => this.pending.map((p) => p.signal?.aborted);
  async settle(i: number, f: (p: Calls["pending"][number]) => void) {
    await act(async () => {
      f(this.pending[i]!);
      await Promise.resolve();
    });
  }
}

describe("useLoad", () => {
  it("is loading, then ready with the value", async () => {
    const c = new Calls();
    const { result } = renderHook(() => useLoad(() => c.load("a"), []));
    expect(result.current.state).toEqual({ status: "loading", value: undefined });
    await c.settle(0, (p) => p.resolve("A"));
    expect(result.current.state).toEqual({ status: "ready", value: "A" });
  });

  it("shows the error of a failed load, as an ApiError, and loads again on reload", async () => {
    const c = new Calls();
    const { result } = renderHook(() => useLoad(() => c.load("a"), []));
    await c.settle(0, (p) => p.reject(new ApiError("unavailable", "the kernel is not open")));
    expect(result.current.state).toMatchObject({ status: "error", error: { code: "unavailable", message: "the kernel is not open" } });
    act(() => result.current.reload());
    expect(result.current.state.status).toBe("loading");
    await c.settle(1, (p) => p.resolve("A"));
    expect(result.current.state).toEqual({ status: "ready", value: "A" });
  });

  it("turns a load that throws, or rejects with a string, into an error", async () => {
    const { result } = renderHook(() =>
      useLoad<string>(() => {
        throw new Error("no transport");
      }, []),
    );
    await act(async () => await Promise.resolve());
    expect(result.current.state).toMatchObject({ status: "error", error: { message: "no transport" } });
  });

  it("keeps the value while a reload runs and after it fails", async () => {
    const c = new Calls();
    const { result } = renderHook(() => useLoad(() => c.load("a"), []));
    await c.settle(0, (p) => p.resolve("A"));
    act(() => result.current.reload());
    expect(result.current.state).toEqual({ status: "loading", value: "A" });
    await c.settle(1, (p) => p.reject(new ApiError("busy", "busy")));
    expect(result.current.state).toMatchObject({ status: "error", value: "A" });
  });

  it("ignores a stale answer: a reload's wins over the call before it, whatever comes first", async () => {
    const c = new Calls();
    const { result } = renderHook(() => useLoad(() => c.load("a"), []));
    act(() => result.current.reload());
    await c.settle(1, (p) => p.resolve("new"));
    await c.settle(0, (p) => p.resolve("old"));
    expect(result.current.state).toEqual({ status: "ready", value: "new" });
    await c.settle(0, (p) => p.reject(new Error("late")));
    expect(result.current.state).toEqual({ status: "ready", value: "new" });
  });

  it("loads again when its deps change, forgets the old value and drops the old answer", async () => {
    const c = new Calls();
    const { result, rerender } = renderHook(({ id }) => useLoad(() => c.load(id), [id]), { initialProps: { id: "a" } });
    await c.settle(0, (p) => p.resolve("A"));
    rerender({ id: "b" });
    expect(c.pending.map((p) => p.arg)).toEqual(["a", "b"]);
    expect(result.current.state).toEqual({ status: "loading", value: undefined });
    rerender({ id: "c" });
    await c.settle(2, (p) => p.resolve("C"));
    await c.settle(1, (p) => p.resolve("B"));
    expect(result.current.state).toEqual({ status: "ready", value: "C" });
  });

  it("keeps the value when its deps change, with keep", async () => {
    const c = new Calls();
    const { result, rerender } = renderHook(({ id }) => useLoad(() => c.load(id), [id], { keep: true }), { initialProps: { id: "a" } });
    await c.settle(0, (p) => p.resolve("A"));
    rerender({ id: "b" });
    expect(result.current.state).toEqual({ status: "loading", value: "A" });
    await c.settle(1, (p) => p.resolve("B"));
    expect(result.current.state).toEqual({ status: "ready", value: "B" });
  });

  it("drops a running load on set", async () => {
    const c = new Calls();
    const { result } = renderHook(() => useLoad(() => c.load("a"), []));
    act(() => result.current.set("mine"));
    await c.settle(0, (p) => p.resolve("A"));
    expect(result.current.state).toEqual({ status: "ready", value: "mine" });
  });

  it("aborts the call whose answer no longer counts: on reload, deps changed, set and unmount", async () => {
    const c = new Calls();
    const { result, rerender, unmount } = renderHook(({ id }) => useLoad((signal) => c.load(id, signal), [id]), { initialProps: { id: "a" } });
    expect(c.aborted()).toEqual([false]);
    act(() => result.current.reload());
    expect(c.aborted()).toEqual([true, false]);
    rerender({ id: "b" });
    expect(c.aborted()).toEqual([true, true, false]);
    act(() => result.current.set("mine"));
    expect(c.aborted()).toEqual([true, true, true]);
    act(() => result.current.reload());
    expect(c.aborted()).toEqual([true, true, true, false]);
    unmount();
    expect(c.aborted()).toEqual([true, true, true, true]);
  });

  it("renders nothing more once unmounted: the answer is dropped", async () => {
    const c = new Calls();
    let renders = 0;
    function View() {
      renders++;
      const { state } = useLoad(() => c.load("a"), []);
      return <p>{state.status}</p>;
    }
    const { unmount } = render(<View />);
    expect(screen.getByText("loading")).toBeTruthy();
    const before = renders;
    unmount();
    await c.settle(0, (p) => p.resolve("A"));
    expect(renders).toBe(before);
  });
});
