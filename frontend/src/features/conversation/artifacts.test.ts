// The desktop's artifact reads (artifacts.ts): once per transport, the
// least recently used images out past cacheBytes with their URLs revoked,
// failures not kept.
import { describe, expect, it, vi } from "vitest";
import { ApiError, createApi } from "../../backend";
import { FakeTransport } from "../../backend/fake";
import { cacheBytes, loadArtifact } from "./artifacts";

const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
// Sizes as the kernel reports them; the bytes stay small.
const big = { mime: "image/png", size: Math.floor(cacheBytes * 0.6), data: png };

describe("loadArtifact", () => {
  it("reads each artifact once, and drops the least recently used past cacheBytes, revoking its URL", async () => {
    const revoked = vi.spyOn(URL, "revokeObjectURL");
    const t = new FakeTransport({ Artifact: { id: "art", ...big } });
    const api = createApi(t);
    const a = await loadArtifact(t, api, "s1", "art_a");
    expect(await loadArtifact(t, api, "s1", "art_a")).toBe(a);
    expect(t.callsOf("Artifact")).toBe(1);
    expect(a.kind).toBe("image");

    const b = await loadArtifact(t, api, "s1", "art_b"); // 1.2 × cacheBytes: art_a goes
    expect(revoked.mock.calls.map((c) => c[0])).toEqual([a.kind === "image" ? a.url : ""]);
    expect(await loadArtifact(t, api, "s1", "art_b")).toBe(b);
    expect(t.callsOf("Artifact")).toBe(2);
    await loadArtifact(t, api, "s1", "art_a");
    expect(t.callsOf("Artifact")).toBe(3);
    // Another session's artifact of the same ID is another read.
    await loadArtifact(t, api, "s2", "art_a");
    expect(t.calls.at(-1)!.args).toEqual(["s2", "art_a"]);
  });

  it("keeps no failure, so that the next try reads again", async () => {
    const t = new FakeTransport({ Artifact: new ApiError("unavailable", "the kernel is not open: restart Foya") });
    const api = createApi(t);
    await expect(loadArtifact(t, api, "s1", "art_a")).rejects.toThrow("the kernel is not open");
    t.replies.Artifact = { id: "art_a", mime: "application/pdf", size: 9, data: btoa("%PDF-1.7") };
    expect(await loadArtifact(t, api, "s1", "art_a")).toEqual({ kind: "other", mime: "application/pdf", size: 9 });
    expect(t.callsOf("Artifact")).toBe(2);
  });
});
