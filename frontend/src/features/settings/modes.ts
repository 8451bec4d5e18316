// The three approval modes as the settings explain them. The sentences
// follow the approval-mode table of the design (approval.Decide implements
// it; backend/approval/mode.go names the modes): change them together.
import { ModeAuto, ModeFullAccess, ModeManual } from "../../backend/gen/event";

export type ModeName = typeof ModeManual | typeof ModeAuto | typeof ModeFullAccess;

export interface ModeInfo {
  value: ModeName;
  label: string;
  /** One sentence: what the mode allows without asking. */
  sentence: string;
}

export const modes: readonly ModeInfo[] = [
  {
    value: ModeManual,
    label: "Manual",
    sentence:
      "Asks you before every write, edit, delete, command, web fetch and MCP tool (commands then run in the sandbox); only reading and searching inside the workspace go ahead without asking.",
  },
  {
    value: ModeAuto,
    label: "Auto",
    sentence:
      "Writes, edits and deletes (to the trash) inside the workspace and runs commands in the sandbox without asking; asks before anything outside the workspace or in .git, before a command leaves the sandbox, and once per web host.",
  },
  {
    value: ModeFullAccess,
    label: "Full Access",
    sentence:
      "Allows everything without asking, anywhere on your computer, and runs commands without the sandbox; only deleting the filesystem root is refused.",
  },
];

/**
 * fullAccessWarning is what the confirmation says before switching to Full
 * Access: what it allows that the other modes do not.
 */
export const fullAccessWarning =
  "In Full Access the agent does not ask before anything: it can write, edit and delete files outside the workspace (deletes go to the trash), run commands without the sandbox with network access and your user's rights, including permanent deletes such as rm -rf, and fetch any host. Only deleting the filesystem root is refused.";

/** modeLabel names a mode as stored ("full_access") in words ("Full Access"); an unknown one as it is. */
export function modeLabel(mode: string): string {
  return modes.find((m) => m.value === mode)?.label ?? mode;
}

/** isMode says whether s is one of the three modes as stored. */
export function isMode(s: string): s is ModeName {
  return modes.some((m) => m.value === s);
}
