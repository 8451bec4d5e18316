// Words for a background command's state, from the kernel's
// BackgroundCommand (no state is invented: what it does not say is not
// shown).
import type { BackgroundCommand } from "../../backend/gen/kernel";

/** durationText shows nanoseconds as "850 ms", "12.4 s", "3 min 5 s" or "2 h 1 min". */
export function durationText(ns: number): string {
  const ms = ns / 1e6;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(1)} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${Math.floor(s % 60)} s`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}

/** sizeText shows a byte count: "0 bytes", "512 bytes", "1.5 KiB", "3.2 MiB". */
export function sizeText(n: number): string {
  if (n < 1024) return `${n} ${n === 1 ? "byte" : "bytes"}`;
  if (n < 1 << 20) return `${(n / 1024).toFixed(1)} KiB`;
  if (n < 1 << 30) return `${(n / (1 << 20)).toFixed(1)} MiB`;
  return `${(n / (1 << 30)).toFixed(1)} GiB`;
}

/** statusText says how a command is or how it ended. */
export function statusText(c: BackgroundCommand): string {
  if (c.running) return `Running (PID ${c.pid})`;
  const after = c.durationNs !== undefined && c.durationNs > 0 ? ` after ${durationText(c.durationNs)}` : "";
  if (c.killed === true) return `Stopped on request${after}`;
  if (c.timedOut === true) return `Timed out${after}`;
  if (c.signal !== undefined && c.signal !== "") return `Killed by signal ${c.signal}${after}`;
  return `Exited with code ${c.exitCode}${after}`;
}

/** statusKind is the state's class: running, ok (exit 0) or failed. */
export function statusKind(c: BackgroundCommand): "running" | "ok" | "failed" {
  if (c.running) return "running";
  return c.exitCode === 0 && c.killed !== true && c.timedOut !== true && (c.signal ?? "") === "" ? "ok" : "failed";
}

/** sandboxText says what confined a command. */
export function sandboxText(c: BackgroundCommand): string {
  return c.sandbox === "none" || c.sandbox === "" ? "no sandbox" : `sandbox: ${c.sandbox}`;
}
