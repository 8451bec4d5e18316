// Copy-on-write for a batch of events. A reducer that adds one key to a
// record copies the record, so folding a long history (thousands of events
// into records of hundreds of keys) costs events times keys. Within a batch
// (inBatch), a record or array a reducer made in that batch is written in
// place instead: its first change in the batch copies it, later ones reuse
// the copy. Objects of the state the batch started from are never written,
// so what the previous state shared stays as it was, and an area the batch
// does not touch keeps its objects; once the batch returns, nothing it made
// is written again (the next batch starts with nothing of its own).
//
// A reducer must finish reading an event (everything that may throw on a
// payload of the wrong shape) before it calls these, so a skipped bad event
// leaves nothing half written.

let owned: WeakSet<object> | null = null;

/** Draft is what a batch made: a batch folded in several calls of inBatch passes the same one to each. */
export type Draft = WeakSet<object>;

/**
 * inBatch runs fold with copy-on-write on. What the batch made must be
 * published whole, after its last call of inBatch: a batch folded in slices
 * (a task each) passes one draft to every slice and publishes nothing before
 * the end, since the next slice may write what the last one made.
 */
export function inBatch<T>(fold: () => T, draft: Draft = new WeakSet()): T {
  const outer = owned;
  owned = draft;
  try {
    return fold();
  } finally {
    owned = outer;
  }
}

function mine<T extends object>(v: T): T {
  owned?.add(v);
  return v;
}

/** withKey returns rec with rec[key] = value: rec itself when this batch made it, else a copy. */
export function withKey<V>(rec: Record<string, V>, key: string | number, value: V): Record<string, V> {
  // (Assigning "__proto__" would set the prototype, not a key: copy.)
  if (owned?.has(rec) && key !== "__proto__") {
    rec[key] = value;
    return rec;
  }
  return mine({ ...rec, [key]: value });
}

/** withoutKey returns rec without key: rec itself when this batch made it, else a copy. */
export function withoutKey<V>(rec: Record<string, V>, key: string): Record<string, V> {
  if (!Object.hasOwn(rec, key)) return rec;
  const next = owned?.has(rec) ? rec : mine({ ...rec });
  delete next[key];
  return next;
}

/** withItem returns list with item appended: list itself when this batch made it, else a copy. */
export function withItem<T>(list: readonly T[], item: T): T[] {
  if (owned?.has(list)) {
    (list as T[]).push(item);
    return list as T[];
  }
  return mine([...list, item]);
}

/** withAt returns list with list[i] = item: list itself when this batch made it, else a copy. */
export function withAt<T>(list: readonly T[], i: number, item: T): T[] {
  const next = owned?.has(list) ? (list as T[]) : mine([...list]);
  next[i] = item;
  return next;
}
