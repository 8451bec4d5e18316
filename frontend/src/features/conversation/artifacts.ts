// Images a tool made, read through the API's Artifact call where there is
// no artifacts route (the desktop window). Their bytes become a Blob shown
// through an <img> from a blob: URL, never as markup: an SVG shown this way
// runs no script. Artifacts never change, so each is read once per
// transport and kept (up to cacheBytes) while the virtualized transcript
// unmounts and remounts its cards.
import type { Api } from "../../backend/gen/api";

/** Types shown inline, as an image; other artifacts are named with their type and size. */
export const imageTypes = new Set(["image/png", "image/jpeg", "image/gif", "image/webp", "image/avif", "image/bmp", "image/svg+xml"]);

export type LoadedArtifact =
  | { kind: "image"; url: string; mime: string; size: number; width: number; height: number }
  | { kind: "other"; mime: string; size: number };

/** cacheBytes bounds the bytes of the images kept per transport. */
export const cacheBytes = 64 << 20;

interface Cache {
  entries: Map<string, { loaded: Promise<LoadedArtifact>; size: number; url: string | null }>;
  total: number;
}

const caches = new WeakMap<object, Cache>();

/**
 * loadArtifact reads artifact id of sessionId through api (once per owner,
 * usually the transport) and resolves to its blob: URL when it is an image.
 * A failed read is not kept, so that a retry reads again.
 */
export function loadArtifact(owner: object, api: Api, sessionId: string, id: string): Promise<LoadedArtifact> {
  let cache = caches.get(owner);
  if (cache === undefined) {
    cache = { entries: new Map(), total: 0 };
    caches.set(owner, cache);
  }
  const c = cache;
  const key = `${sessionId}\n${id}`;
  const hit = c.entries.get(key);
  if (hit !== undefined) {
    // Most recently used last: eviction takes the first.
    c.entries.delete(key);
    c.entries.set(key, hit);
    return hit.loaded;
  }
  // The entry still there when the read ends (not evicted meanwhile).
  const current = () => {
    const e = c.entries.get(key);
    return e?.loaded === loaded ? e : undefined;
  };
  const loaded: Promise<LoadedArtifact> = api.Artifact(sessionId, id).then(
    (a) => {
      if (!imageTypes.has(a.mime)) return { kind: "other", mime: a.mime, size: a.size };
      const url = URL.createObjectURL(new Blob([fromBase64(a.data)], { type: a.mime }));
      const e = current();
      if (e !== undefined) {
        e.size = a.size;
        e.url = url;
        c.total += a.size;
        evict(c, key);
      }
      return { kind: "image", url, mime: a.mime, size: a.size, width: a.width ?? 0, height: a.height ?? 0 };
    },
    (err: unknown) => {
      if (current() !== undefined) c.entries.delete(key);
      throw err;
    },
  );
  c.entries.set(key, { loaded, size: 0, url: null });
  return loaded;
}

/** evict drops the least recently used images beyond cacheBytes, except keep. */
function evict(c: Cache, keep: string): void {
  for (const [k, e] of c.entries) {
    if (c.total <= cacheBytes) return;
    if (k === keep || e.url === null) continue;
    // An <img> that already shows it keeps its decoded picture.
    URL.revokeObjectURL(e.url);
    c.total -= e.size;
    c.entries.delete(k);
  }
}

function fromBase64(s: string): Uint8Array<ArrayBuffer> {
  const bin = atob(s);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}
