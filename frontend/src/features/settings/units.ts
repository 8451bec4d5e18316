// Settings in units people use: sizes in KB, MB and GB, durations in
// seconds. The kernel keeps and checks byte counts and Go durations; these
// turn its values into words and what a person types back into its form.

/** Sizes are binary, as the kernel's limits are: 1 KB = 1,024 bytes, 1 MB = 1,048,576 bytes. */
const sizeUnits = [
  ["GB", 1024 ** 3],
  ["MB", 1024 ** 2],
  ["KB", 1024],
] as const;

const sizeWords: Record<string, number> = {
  "": 1, b: 1, byte: 1, bytes: 1,
  k: 1024, kb: 1024, kib: 1024,
  m: 1024 ** 2, mb: 1024 ** 2, mib: 1024 ** 2,
  g: 1024 ** 3, gb: 1024 ** 3, gib: 1024 ** 3,
};

/** trim shows a number with at most two decimals and no trailing zeros. */
function trim(n: number): string {
  return String(Math.round(n * 100) / 100);
}

/**
 * formatBytes shows a byte count (the kernel's digits) in the largest unit
 * it reaches: "64 MB", "1.5 KB", "512 bytes". Text that is not a count is
 * shown as it is.
 */
export function formatBytes(v: string): string {
  const n = Number(v);
  if (v.trim() === "" || !Number.isSafeInteger(n) || n < 0) return v;
  for (const [unit, size] of sizeUnits) {
    if (n >= size) return `${trim(n / size)} ${unit}`;
  }
  return n === 1 ? "1 byte" : `${n} bytes`;
}

/** Parsed is what a person typed, in the kernel's form, or why it cannot be read. */
export type Parsed = { ok: true; value: string } | { ok: false; error: string };

/**
 * parseBytes reads a size as people write it: "64 MB", "64MB", "64 MiB",
 * "1.5 GB", "512 KB", "4096" (bytes). It gives the whole number of bytes,
 * the form the kernel keeps.
 */
export function parseBytes(text: string): Parsed {
  const m = /^\s*(\d+(?:\.\d+)?|\.\d+)\s*([a-z]*)\s*$/i.exec(text.replace(/[,_](?=\d{3})/g, ""));
  const size = m !== null ? sizeWords[m[2]!.toLowerCase()] : undefined;
  if (m === null || size === undefined) {
    return { ok: false, error: `“${text.trim()}” is not a size: write a number with KB, MB or GB, such as 64 MB.` };
  }
  const n = Math.round(Number(m[1]) * size);
  if (!Number.isSafeInteger(n) || n <= 0) return { ok: false, error: "The size must be more than 0 bytes, such as 64 MB." };
  return { ok: true, value: String(n) };
}

const goUnits: Record<string, number> = { ns: 1e-6, us: 1e-3, "µs": 1e-3, "μs": 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** goMillis reads a Go duration ("2m0s", "1h30m", "500ms") in milliseconds; null when it is not one. */
export function goMillis(v: string): number | null {
  const s = v.trim();
  if (s === "" || s === "0") return s === "0" ? 0 : null;
  const re = /(\d+(?:\.\d+)?)(ns|us|µs|μs|ms|s|m|h)/gy;
  let total = 0;
  let at = 0;
  for (let m = re.exec(s); m !== null; m = re.exec(s)) {
    total += Number(m[1]) * goUnits[m[2]!]!;
    at = re.lastIndex;
  }
  return at === s.length && at > 0 ? total : null;
}

/** formatDuration shows a Go duration in seconds: "120 s", "0.5 s". Text that is not a duration is shown as it is. */
export function formatDuration(v: string): string {
  const ms = goMillis(v);
  return ms === null ? v : `${trim(ms / 1000)} s`;
}

const durationWords: Record<string, number> = {
  "": 1000, s: 1000, sec: 1000, secs: 1000, second: 1000, seconds: 1000,
  ms: 1, millisecond: 1, milliseconds: 1,
  m: 60_000, min: 60_000, mins: 60_000, minute: 60_000, minutes: 60_000,
  h: 3_600_000, hr: 3_600_000, hour: 3_600_000, hours: 3_600_000,
};

/**
 * parseDuration reads a duration as people write it: "120" or "120 s"
 * (seconds), "2 min", "500 ms", "1 h", or a Go duration ("1m30s"). It gives
 * the Go duration the kernel takes, in seconds or milliseconds.
 */
export function parseDuration(text: string): Parsed {
  const m = /^\s*(\d+(?:\.\d+)?|\.\d+)\s*([a-z]*)\s*$/i.exec(text);
  const unit = m !== null ? durationWords[m[2]!.toLowerCase()] : undefined;
  let ms: number | null = m !== null && unit !== undefined ? Number(m[1]) * unit : goMillis(text);
  if (ms === null) return { ok: false, error: `“${text.trim()}” is not a duration: write seconds, such as 120 s, or minutes, such as 2 min.` };
  ms = Math.round(ms);
  if (ms <= 0) return { ok: false, error: "The duration must be more than 0 seconds, such as 120 s." };
  return { ok: true, value: ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms` };
}
