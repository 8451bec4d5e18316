/** Mode is an approval mode as the kernel names it. */
export type Mode = "manual" | "auto" | "full_access";

/** modes lists the approval modes from the most careful to the least. */
export const modes: readonly Mode[] = ["manual", "auto", "full_access"];

/** modeLabel names a mode for people. */
export const modeLabel: Record<Mode, string> = { manual: "Manual", auto: "Auto", full_access: "Full Access" };

/** modeHint says in one sentence what a mode lets the agent do. */
export const modeHint: Record<Mode, string> = {
  manual: "Asks before every change to files, every command and every fetch.",
  auto: "Edits files in the folder and runs commands in the sandbox without asking; asks for anything else.",
  full_access: "Does everything without asking and runs commands without the sandbox.",
};

/**
 * toMode reads a mode as the kernel or an event writes it ("full_access",
 * "full-access"); anything else is null.
 */
export function toMode(v: string): Mode | null {
  switch (v.trim().toLowerCase().replace(/[-\s]/g, "_")) {
    case "manual":
      return "manual";
    case "auto":
      return "auto";
    case "full_access":
      return "full_access";
    default:
      return null;
  }
}
