// Helpers for the settings the backend declares (backend/settings: every
// key with its label, doc, default and kind, which api.SettingList gives);
// SetSetting validates every value and says what it wants.
import { ImagesPrefix } from "../../backend/gen/settings";

/** imageKey is the setting that says whether model takes image input. */
export function imageKey(model: string): string {
  return ImagesPrefix + model;
}

/** bytesText shows a byte count in words: "67108864 bytes (64 MiB)". */
export function bytesText(v: string): string {
  const n = Number(v);
  if (!Number.isSafeInteger(n) || n <= 0) return v;
  for (const [unit, size] of [["GiB", 1 << 30], ["MiB", 1 << 20], ["KiB", 1 << 10]] as const) {
    if (n >= size) {
      const q = n / size;
      return `${n} bytes (${Number.isInteger(q) ? q : q.toFixed(1)} ${unit})`;
    }
  }
  return `${n} bytes`;
}
