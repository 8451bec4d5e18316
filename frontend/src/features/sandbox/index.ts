export { DenialList } from "./DenialList";
export { SandboxGrantsMenu } from "./SandboxGrantsMenu";
export { useSandboxGrants, type SandboxGrants } from "./useSandboxGrants";
export { SandboxSettings } from "./SandboxSettings";
