import { toApiError } from "../../backend";

/**
 * errorText is what a failed call shows: the kernel's own message, which
 * says what happened and what to do; a kernel that is not open says so.
 */
export function errorText(e: unknown): string {
  const err = toApiError(e);
  return err.message.trim() === "" ? `The call failed (${err.code}); try again.` : err.message;
}
